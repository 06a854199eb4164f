import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { UsageEvent } from '../../src/llm/usage';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * Which model serves each provider call (docs/api.md §1.3): the request's choice, then the workspace's models,
 * then the service default. Checked through the usage events the provider registry reports for every call.
 */

jest.setTimeout(60_000);

let app: TestApp;
let dir: string;
const events: UsageEvent[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgrag-resolution-'));
  const file = path.join(dir, 'models.toml');
  fs.writeFileSync(
    file,
    `${fs.readFileSync(path.join(__dirname, '../../models.toml'), 'utf8')}
[[providers]]
name = "mock-b"
type = "mock"
priority = 200
[[providers.models]]
name = "mock-llm-b"
model_type = "llm"
[[providers.models]]
name = "mock-emb-b"
model_type = "embedding"
capabilities = { embedding_dimension = 64, similarity_threshold = 0.05 }
`,
  );
  app = await startTestApp({ SERVICE_MODELS_CONFIG: file }, { recorder: { record: (e) => events.push(e) } });
});

afterAll(async () => {
  await app?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The usage events of what `work` does, as `task provider/model` (embeddings as `embed provider/model`). */
async function callsOf(work: () => Promise<void>): Promise<string[]> {
  const from = events.length;
  await work();
  const seen = events.slice(from).map((e) => `${e.kind === 'embedding' ? 'embed' : e.task} ${e.provider}/${e.model}`);
  return [...new Set(seen)].sort();
}

async function ingest(workspace: string, content: string): Promise<void> {
  const res = await app.request('/api/v1/documents', { method: 'POST', json: { content }, workspace });
  expect(res.status).toBe(201);
}

async function query(workspace: string, body: Record<string, unknown>, status = 200): Promise<Record<string, unknown>> {
  const res = await app.request('/api/v1/query', { method: 'POST', json: { mode: 'hybrid', ...body }, workspace });
  expect(res.status).toBe(status);
  return (await res.json()) as Record<string, unknown>;
}

describe('the service defaults', () => {
  it('serve ingestion and queries of a workspace without models of its own', async () => {
    expect(await callsOf(() => ingest(app.workspace, 'Grace Hopper built the Harvard Mark I compiler at Harvard University.'))).toEqual([
      'embed mock/mock-embedding',
      'extract mock/mock-llm',
      'glean mock/mock-llm',
    ]);
    expect(await callsOf(async () => void (await query(app.workspace, { query: 'What did Grace Hopper build?' })))).toEqual([
      'answer mock/mock-llm',
      'embed mock/mock-embedding',
      'keywords mock/mock-llm',
    ]);
  });
});

describe('a request naming its model', () => {
  it("uses it for keywords and the answer; embeddings stay in the workspace's space", async () => {
    let body: Record<string, unknown> = {};
    const calls = await callsOf(async () => {
      body = await query(app.workspace, { query: 'Where did Grace Hopper work?', llm_provider: 'mock-b', llm_model: 'mock-llm-b' });
    });
    expect(calls).toEqual(['answer mock-b/mock-llm-b', 'embed mock/mock-embedding', 'keywords mock-b/mock-llm-b']);
    expect(body.stats).toMatchObject({ llm_provider: 'mock-b', llm_model: 'mock-llm-b' });
  });

  it("gets the provider's first model when it names only the provider", async () => {
    const calls = await callsOf(async () => void (await query(app.workspace, { query: 'Who built a compiler?', llm_provider: 'mock-b' })));
    expect(calls).toContain('answer mock-b/mock-llm-b');
  });

  it('is refused with 422 naming the field when the model is not one of the chosen provider, before any call', async () => {
    const calls = await callsOf(async () => {
      const problem = await query(app.workspace, { query: 'Who?', llm_model: 'mock-llm-b' }, 422);
      expect(problem.errors).toEqual([expect.objectContaining({ field: 'llm_model' })]);
    });
    expect(calls).toEqual([]);
  });
});

describe('a workspace with its own models', () => {
  let own: string;

  beforeAll(async () => {
    const res = await app.request('/api/v1/workspaces', {
      method: 'POST',
      json: {
        // Workspace names are unique in a tenant: a new one on each run, for a database that outlives runs.
        name: `own models ${randomUUID().slice(0, 8)}`,
        llm_provider: 'mock-b',
        llm_model: 'mock-llm-b',
        embedding_provider: 'mock-b',
        embedding_model: 'mock-emb-b',
      },
    });
    expect(res.status).toBe(201);
    own = ((await res.json()) as { id: string }).id;
  });

  it('uses them for ingestion', async () => {
    expect(await callsOf(() => ingest(own, 'Katherine Johnson computed trajectories for NASA at Langley Research Center.'))).toEqual([
      'embed mock-b/mock-emb-b',
      'extract mock-b/mock-llm-b',
      'glean mock-b/mock-llm-b',
    ]);
  });

  it('uses them for queries and chat, unless the request names another LLM', async () => {
    expect(await callsOf(async () => void (await query(own, { query: 'What did Katherine Johnson compute?' })))).toEqual([
      'answer mock-b/mock-llm-b',
      'embed mock-b/mock-emb-b',
      'keywords mock-b/mock-llm-b',
    ]);
    expect(
      await callsOf(async () => void (await query(own, { query: 'Where did Katherine Johnson work?', llm_provider: 'mock' }))),
    ).toEqual(['answer mock/mock-llm', 'embed mock-b/mock-emb-b', 'keywords mock/mock-llm']);
    const chat = await callsOf(async () => {
      const res = await app.request('/api/v1/chat/completions', {
        method: 'POST',
        json: { message: 'Who worked at Langley?' },
        workspace: own,
      });
      expect(res.status).toBe(200);
    });
    expect(chat).toEqual(['chat mock-b/mock-llm-b', 'embed mock-b/mock-emb-b', 'keywords mock-b/mock-llm-b']);
    const chatOverride = await callsOf(async () => {
      const res = await app.request('/api/v1/chat/completions', {
        method: 'POST',
        json: { message: 'Who computed trajectories?', llm_provider: 'mock', llm_model: 'mock-llm' },
        workspace: own,
      });
      expect(res.status).toBe(200);
    });
    expect(chatOverride).toEqual(['chat mock/mock-llm', 'embed mock-b/mock-emb-b', 'keywords mock/mock-llm']);
  });
});
