import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EmbeddingProvider } from '../../src/llm/ports';
import { startTestApp, type TestApp } from '../helpers/app';
import { waitForTask } from '../fixtures/documents';
import { startService, type ServiceProcess } from '../fixtures/service-process';
import { jsonEvents, readSse, recordLlmCalls } from '../unit/retrieval-fixtures';

/**
 * The OpenAI-compatible API as a provider (docs/api.md §4.12): a second instance of the service, in its own
 * process, is configured with an `openai`-type provider whose base URL is the first instance's `/v1`. It ingests
 * a document and answers queries with the first instance's mock model and embeddings, over real HTTP.
 */

jest.setTimeout(120_000);

let upstream: TestApp;
let downstream: ServiceProcess;
let dir: string;
const embedded: string[] = [];

/** The credential the first instance expects, as an OpenAI API key (sent as `Authorization: Bearer`). */
function upstreamKey(headers: Record<string, string>): string {
  const entries = Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v] as const);
  const bearer = entries.find(([k]) => k === 'authorization')?.[1].replace(/^Bearer\s+/i, '');
  return bearer ?? entries.find(([k]) => k === 'x-api-key')?.[1] ?? 'unused';
}

beforeAll(async () => {
  // A model server only: without workers it never claims work other suites left queued in a shared database.
  upstream = await startTestApp({}, { start: false });
  // Count what the first instance embeds for others.
  const registry = upstream.rt.providers;
  const embedding = registry.embedding.bind(registry);
  registry.embedding = (provider?: string, model?: string): EmbeddingProvider => {
    const inner = embedding(provider, model);
    return {
      provider: inner.provider,
      model: inner.model,
      dimension: inner.dimension,
      embed: (texts, signal) => {
        embedded.push(...texts);
        return inner.embed(texts, signal);
      },
    };
  };
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgrag-upstream-'));
  const catalog = path.join(dir, 'models.toml');
  fs.writeFileSync(
    catalog,
    [
      '[defaults]',
      'llm_provider = "upstream"',
      'llm_model = "mock/mock-llm"',
      'embedding_provider = "upstream"',
      'embedding_model = "mock/mock-embedding"',
      '',
      '[[providers]]',
      'name = "upstream"',
      'type = "openai"',
      `api_base = "${upstream.url}/v1"`,
      'api_key_env = "UPSTREAM_API_KEY"',
      '',
      '[[providers.models]]',
      'name = "mock/mock-llm"',
      'model_type = "llm"',
      '',
      '[[providers.models]]',
      'name = "mock/mock-embedding"',
      'model_type = "embedding"',
      '[providers.models.capabilities]',
      'embedding_dimension = 256',
      '',
    ].join('\n'),
  );
  downstream = await startService(`downstream-${randomUUID().slice(0, 8)}`, null, {
    SERVICE_MODELS_CONFIG: catalog,
    SERVICE_LLM_PROVIDER: 'upstream',
    SERVICE_EMBEDDING_PROVIDER: 'upstream',
    UPSTREAM_API_KEY: upstreamKey(upstream.headers),
    SERVICE_EMBEDDING_DIMENSION: '256',
    WORKER_THREADS: '1',
  });
});

afterAll(async () => {
  await downstream?.kill('SIGTERM');
  await upstream?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface IngestedDocument {
  status: string;
  entity_count: number;
  relationship_count: number;
}

/**
 * Ingests `content` in the downstream and answers with its stored result. A synchronous run that was interrupted
 * answers 202 and its document goes back to the queue, as documented: on a loaded machine its database may stop it,
 * and other suites' instances sharing the database (with leases of a second or two) may queue the document again
 * while its admission is still writing. That case is followed to the end and must complete. Any other answer fails
 * with the downstream's warnings.
 */
async function ingest(content: string): Promise<IngestedDocument> {
  const res = await downstream.request('/api/v1/documents', { method: 'POST', json: { title: 'Acme', content } });
  if (res.status === 201) return (await res.json()) as IngestedDocument;
  const body = await res.text();
  if (res.status !== 202) throw new Error(`answered ${res.status} ${body}; warnings:\n${warnings(downstream)}`);
  const { id, task_id: taskId } = JSON.parse(body) as { id: string; task_id: string };
  const task = await waitForTask(downstream, taskId, ['completed', 'failed', 'cancelled'], 60_000);
  if (task.status !== 'completed') {
    throw new Error(`answered 202 and the task ended ${JSON.stringify(task)}; warnings:\n${warnings(downstream)}`);
  }
  console.warn(`the synchronous run was interrupted and its document completed from the queue:\n${warnings(downstream)}`);
  return (await (await downstream.request(`/api/v1/documents/${id}`)).json()) as IngestedDocument;
}

/** The service's warning and error lines, for a failure message. */
function warnings(service: ServiceProcess): string {
  return service.logs
    .filter((l) => typeof l.level === 'number' && l.level >= 40)
    .map((l) => JSON.stringify(l))
    .join('\n');
}

const CONTENT =
  'Alice Johnson works with Bob Smith at Acme Corporation in Berlin. Acme Corporation builds the Falcon Engine, a database ' +
  'technology. Bob Smith leads the Berlin Research Lab, part of Acme Corporation.';

describe('a second instance whose provider is the first instance over /v1', () => {
  it('reports the upstream provider healthy through GET /v1/models', async () => {
    const health = (await (await downstream.request('/health')).json()) as {
      llm_provider_name: string;
      components: { llm_provider: boolean };
    };
    expect(health.llm_provider_name).toBe('upstream');
    expect(health.components.llm_provider).toBe(true);
  });

  it('ingests a document: extraction by the upstream model, embeddings by the upstream embedder', async () => {
    const rec = recordLlmCalls(upstream.rt);
    try {
      const doc = await ingest(CONTENT);
      expect(doc.status).toBe('completed');
      expect(doc.entity_count).toBeGreaterThanOrEqual(4);
      expect(doc.relationship_count).toBeGreaterThan(0);
      // The prompts arrived over HTTP, without the task the downstream knew: the model read it from the prompt.
      expect(rec.calls.length).toBeGreaterThan(0);
      expect(rec.calls.every((c) => c.task === undefined && c.provider === 'mock')).toBe(true);
      expect(rec.calls.some((c) => c.messages[1].content.includes('Alice Johnson works with Bob Smith'))).toBe(true);
    } finally {
      rec.restore();
    }
    expect(embedded.some((t) => t.includes('Alice Johnson works with Bob Smith'))).toBe(true);
    const entities = (await (await downstream.request('/api/v1/graph/entities?limit=50')).json()) as { entities: Array<{ id: string }> };
    expect(entities.entities.map((e) => e.id)).toEqual(expect.arrayContaining(['ALICE_JOHNSON', 'ACME_CORPORATION', 'BERLIN']));
  });

  it('answers a query: keywords in JSON mode and the answer from the upstream model', async () => {
    const rec = recordLlmCalls(upstream.rt);
    try {
      const res = await downstream.request('/api/v1/query', {
        method: 'POST',
        json: { query: 'Where does Alice Johnson work?', mode: 'hybrid' },
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { answer: string; sources: unknown[]; stats: { llm_provider: string; llm_model: string } };
      expect(body.stats).toMatchObject({ llm_provider: 'upstream', llm_model: 'mock/mock-llm' });
      expect(body.sources.length).toBeGreaterThan(0);
      expect(body.answer).toContain('Acme Corporation');
      expect(rec.calls.map((c) => c.options.json === true)).toEqual([true, false]);
    } finally {
      rec.restore();
    }
  });

  it('streams a query answer read from the upstream SSE stream', async () => {
    const res = await downstream.request('/api/v1/query/stream', {
      method: 'POST',
      json: { query: 'Where does Alice Johnson work?', mode: 'hybrid' },
      headers: { Accept: 'text/event-stream' },
    });
    const events = jsonEvents(await readSse(res));
    expect(events[0].type).toBe('context');
    expect(events[events.length - 1]).toMatchObject({ type: 'done', llm_provider: 'upstream' });
    const answer = events
      .filter((e) => e.type === 'token')
      .map((e) => e.content)
      .join('');
    expect(answer).toContain('Acme Corporation');
  });
});
