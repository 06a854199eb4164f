import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HOSTILE_BEHAVIOURS } from '../../src/llm/mock/hostile';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * What a hostile model's output leaves stored (docs/api.md "Extraction health"): a workspace whose LLM is a mock
 * model playing a real small model's failure (src/llm/mock/hostile.ts) ingests a document; the test reads the
 * document's status, warnings and extraction figures, the workspace graph and its counters.
 */

jest.setTimeout(60_000);

const FOOTBALL =
  'Manchester United beat Liverpool at Old Trafford on Sunday. Marcus Rashford scored twice for Manchester United, ' +
  'and Mohamed Salah answered for Liverpool. Erik ten Hag praised Marcus Rashford after the match.';

let app: TestApp;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgrag-hostile-'));
  const file = path.join(dir, 'models.toml');
  const models = HOSTILE_BEHAVIOURS.map((b) => `[[providers.models]]\nname = "mock-${b}"\nmodel_type = "llm"\n`).join('');
  fs.writeFileSync(
    file,
    `${fs.readFileSync(path.join(__dirname, '../../models.toml'), 'utf8')}
[[providers]]
name = "hostile"
type = "mock"
priority = 300
${models}`,
  );
  app = await startTestApp({ SERVICE_MODELS_CONFIG: file, SERVICE_PROMPTS_DIR: path.join(dir, 'prompts') });
});

afterAll(async () => {
  await app?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Ingested {
  workspace: string;
  created: Record<string, unknown>;
  detail: {
    status: string;
    error_message: string | null;
    entity_count: number;
    warnings: Array<{ code: string; message: string }>;
    extraction: {
      chunks_with_records: number;
      records_kept: number;
      dropped: Record<string, number>;
      truncated_chunks: number[];
      looping_chunks: number[];
      unmarked_chunks: number[];
      prompt_version: number;
    };
  };
  entities: string[];
}

/** A workspace whose LLM is `mock-<behaviour>` ingests `content`; what is stored. */
async function ingestWith(
  behaviour: string | null,
  content = FOOTBALL,
  before: (workspace: string) => void = () => undefined,
): Promise<Ingested> {
  const made = await app.request('/api/v1/workspaces', {
    method: 'POST',
    json: {
      name: `hostile ${behaviour} ${randomUUID().slice(0, 8)}`,
      ...(behaviour ? { llm_provider: 'hostile', llm_model: `mock-${behaviour}` } : {}),
    },
  });
  expect(made.status).toBe(201);
  const workspace = ((await made.json()) as { id: string }).id;
  before(workspace);
  const res = await app.request('/api/v1/documents', { method: 'POST', json: { content, title: `${behaviour}` }, workspace });
  expect(res.status).toBe(201);
  const created = (await res.json()) as Record<string, unknown>;
  const detail = (await (await app.request(`/api/v1/documents/${String(created.id)}`, { workspace })).json()) as Ingested['detail'];
  const graph = (await (await app.request('/api/v1/graph?limit=100', { workspace })).json()) as {
    nodes: Array<{ label?: string; id: string }>;
  };
  return { workspace, created, detail, entities: graph.nodes.map((n) => n.label ?? n.id) };
}

const codes = (i: Ingested) => i.detail.warnings.map((w) => w.code).sort();

test('a well-behaved model: completed, no warnings, its records grounded', async () => {
  const good = await ingestWith(null);
  expect(good.detail.status).toBe('completed');
  expect(good.detail.warnings).toEqual([]);
  expect(good.detail.extraction).toMatchObject({ dropped: {}, truncated_chunks: [], prompt_version: 2 });
  expect(good.detail.entity_count).toBeGreaterThan(3);
  expect(good.entities).toEqual(expect.arrayContaining(['Marcus Rashford', 'Liverpool']));
});

test('echo: no placeholder stored, the document failed and says why', async () => {
  const echo = await ingestWith('echo');
  expect(echo.created).toMatchObject({ status: 'failed', entity_count: 0 });
  expect(echo.detail.status).toBe('failed');
  expect(echo.detail.error_message).toMatch(/no record grounded in the text.*placeholder/);
  expect(echo.detail.extraction).toMatchObject({ chunks_with_records: 0, records_kept: 0 });
  expect(echo.detail.extraction.dropped.placeholder).toBeGreaterThan(0);
  expect(echo.entities).toEqual([]);
  // The chunk's extraction metadata says the same.
  const chunk = (await (await app.request(`/api/v1/chunks/${String(echo.created.id)}-chunk-0`, { workspace: echo.workspace })).json()) as {
    extraction_metadata: { health: Record<string, unknown> };
  };
  expect(chunk.extraction_metadata.health).toMatchObject({
    records_kept: 0,
    // The format's two lines, in the first pass and in the gleaning pass.
    dropped: { placeholder: 4 },
    passes: 2,
    finish_reason: 'stop',
    completion_marker: true,
    prompt_version: 2,
  });
  const stats = (await (await app.request(`/api/v1/workspaces/${echo.workspace}/stats`, { workspace: echo.workspace })).json()) as {
    entities: { total: number };
    extraction: { documents_failed_extraction: number; dropped: Record<string, number> };
  };
  expect(stats.entities.total).toBe(0);
  expect(stats.extraction.documents_failed_extraction).toBe(1);
  expect(stats.extraction.dropped.placeholder).toBeGreaterThan(0);
});

test("copy-example: the prompt's example never enters the football document's graph", async () => {
  const copied = await ingestWith('copy-example');
  expect(copied.detail.status).toBe('failed');
  expect(copied.detail.error_message).toMatch(/example/);
  expect(copied.detail.extraction.dropped.example).toBeGreaterThan(0);
  expect(copied.entities).toEqual([]);
});

test('prose, refusal and empty output: failed, with the missing completion marker named', async () => {
  for (const behaviour of ['prose', 'refuse', 'empty']) {
    const got = await ingestWith(behaviour);
    expect([behaviour, got.detail.status]).toEqual([behaviour, 'failed']);
    expect(got.detail.error_message).toMatch(/completion marker/);
    expect(got.entities).toEqual([]);
  }
});

test('loop: completed with the records it wrote once, warned as cut and looping', async () => {
  const looped = await ingestWith('loop');
  expect(looped.detail.status).toBe('completed');
  expect(codes(looped)).toEqual(expect.arrayContaining(['completion_marker_missing', 'output_looped', 'output_truncated']));
  expect(looped.detail.extraction.truncated_chunks).toEqual([0]);
  expect(looped.detail.entity_count).toBeGreaterThan(0);
  const chunk = (await (
    await app.request(`/api/v1/chunks/${String(looped.created.id)}-chunk-0`, { workspace: looped.workspace })
  ).json()) as {
    extraction_metadata: { health: Record<string, unknown> };
  };
  expect(chunk.extraction_metadata.health).toMatchObject({ finish_reason: 'length', looped: true, completion_marker: false });
});

test('think: the reasoning block is not stored', async () => {
  const thought = await ingestWith('think');
  expect(thought.detail.status).toBe('completed');
  expect(thought.detail.warnings).toEqual([]);
  expect(thought.entities).toContain('Marcus Rashford');
  expect(thought.entities).not.toContain('Inner Thought');
  expect(thought.detail.entity_count).toBeGreaterThan(3);
});

test('ungrounded: invented names dropped and counted, the rest kept', async () => {
  const invented = await ingestWith('ungrounded');
  expect(invented.detail.status).toBe('completed');
  expect(codes(invented)).toEqual(['records_dropped']);
  expect(invented.detail.extraction.dropped.not_in_text).toBeGreaterThanOrEqual(4);
  expect(invented.entities).toContain('Marcus Rashford');
  expect(invented.entities).not.toContain('Captain Nemo');
  // The list shows the warnings too.
  const list = (await (await app.request('/api/v1/documents', { workspace: invented.workspace })).json()) as {
    documents: Array<{ warnings: Array<{ code: string }> }>;
  };
  expect(list.documents[0].warnings.map((w) => w.code)).toEqual(['records_dropped']);
});

test('a text that names nothing: completed, with a warning, not failed', async () => {
  const plain = await ingestWith(null, 'the rain fell all day and the river rose slowly over the fields.');
  expect(plain.detail.status).toBe('completed');
  expect(codes(plain)).toEqual(['no_entities']);
});

test('truncate: records and keyword JSON cut at the limit; the complete keywords are used', async () => {
  const cut = await ingestWith('truncate');
  expect(cut.detail.status).toBe('completed');
  expect(codes(cut)).toEqual(expect.arrayContaining(['output_truncated']));
  const res = await app.request('/api/v1/query', {
    method: 'POST',
    json: { query: 'How many goals did Marcus Rashford score against Liverpool at Old Trafford?', mode: 'local', debug: true },
    workspace: cut.workspace,
  });
  const body = (await res.json()) as { debug: { keywords: { origin: string; low_level: string[] } }; sources: unknown[] };
  expect(body.debug.keywords.origin).toBe('recovered');
  expect(body.debug.keywords.low_level.length).toBeGreaterThan(0);
  expect(body.sources.length).toBeGreaterThan(0);
});

test("a workspace's prompt files replace the instructions, and the documents and answers record which", async () => {
  const write = (workspace: string, prompt: string, text: string) => {
    const folder = path.join(dir, 'prompts', 'workspaces', workspace);
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, `${prompt}.txt`), text);
  };
  const own = await ingestWith(null, FOOTBALL, (workspace) => {
    write(
      workspace,
      'extraction',
      'List the entities and relationships of the text as records, one a line: entity<|>NAME<|>TYPE<|>DESCRIPTION.',
    );
    write(workspace, 'answer', 'Answer in one sentence, only from the context below; say when it does not hold the answer.');
  });
  expect(own.detail.status).toBe('completed');
  expect(own.detail.extraction).toMatchObject({ prompt_version: 2, prompt_override: expect.stringMatching(/^extraction@[0-9a-f]{12}$/) });
  const res = await app.request('/api/v1/query', {
    method: 'POST',
    json: { query: 'Who scored for Manchester United?', prompt_only: true },
    workspace: own.workspace,
  });
  const body = (await res.json()) as { prompt: string; prompt_override: string };
  expect(body.prompt).toContain('Answer in one sentence, only from the context below');
  expect(body.prompt).not.toContain('---Rules---');
  expect(body.prompt_override).toMatch(/^answer@[0-9a-f]{12}$/);
  // Another workspace keeps the built-in prompts.
  const plain = await ingestWith(null);
  expect(plain.detail.extraction).toMatchObject({ prompt_override: null });
});

test('a content update the model fails (echo) is refused, and the document keeps its previous version', async () => {
  const good = await ingestWith(null);
  const id = String(good.created.id);
  const switched = await app.request(`/api/v1/workspaces/${good.workspace}`, {
    method: 'PATCH',
    json: { llm_provider: 'hostile', llm_model: 'mock-echo' },
    workspace: good.workspace,
  });
  expect(switched.status).toBe(200);
  const res = await app.request(`/api/v1/documents/${id}`, {
    method: 'PUT',
    json: { content: `${FOOTBALL} Bruno Fernandes took the corner.` },
    workspace: good.workspace,
  });
  expect(res.status).toBe(503);
  expect(((await res.json()) as { detail: string }).detail).toMatch(/no record grounded in the text.*previous version/);
  const after = (await (await app.request(`/api/v1/documents/${id}`, { workspace: good.workspace })).json()) as {
    version: number;
    entity_count: number;
  };
  expect(after).toMatchObject({ version: 1, entity_count: good.detail.entity_count });
});
