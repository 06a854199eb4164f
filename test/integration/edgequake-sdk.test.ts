import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, type TestApp } from '../helpers/app';
import { pythonVenv } from '../helpers/venv';

/**
 * EdgeQuake's official Python SDK (PyPI `edgequake-sdk`), unchanged, against the real server: the suite makes a
 * virtual environment with the SDK, runs a session of SDK calls (test/fixtures/edgequake/sdk_session.py) and
 * compares what the SDK parsed with what the API holds, so that a field read under another name (a silent zero,
 * an empty list) fails here.
 */

jest.setTimeout(300_000);

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const SDK = 'edgequake-sdk==0.4.1';
const python = path.join(ROOT, 'build', 'edgequake-sdk-venv', 'bin', 'python');

/** The virtual environment with the SDK, made once and kept under build/. */
const ensureSdk = () => pythonVenv('edgequake-sdk-venv', SDK, ['python', '-c', 'import edgequake']);

type Outcome<T = Record<string, unknown>> = { ok: T } | { error: string; message: string; status: number | null };
type Session = Record<string, Outcome>;

let app: TestApp;
let session: Session;
let dir: string;

const LONG = Array.from({ length: 40 }, (_, i) => `Dana Lee of Umbrella Group wrote report number ${i} in Madrid.`).join('\n');

beforeAll(async () => {
  const sdk = ensureSdk();
  // Documents above 2 KB are queued, so that the session sees a task to follow.
  app = await startTestApp({ SERVICE_ASYNC_THRESHOLD_BYTES: '2000' });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgrag-edgequake-'));
  fs.writeFileSync(
    path.join(dir, 'globex.md'),
    '# Globex\n\nCarol White leads Globex Labs in Tokyo. Globex Labs studies quantum computing.\n',
  );
  fs.writeFileSync(path.join(dir, 'initech.txt'), 'Dave Brown works at Initech in Paris.\n');
  fs.writeFileSync(path.join(dir, 'hooli.txt'), 'Eve Adams joined Hooli in London.\n');
  fs.writeFileSync(path.join(dir, 'long.txt'), LONG);
  await sdk;
  session = await runSession('reads');
});

/** Runs one phase of the SDK session against the app: `reads` (uploads, then reads), `edits`, `accounts` or `accounts-end` (given the ids `accounts` made), `folders`, `conversations`. */
async function runSession(
  phase: 'reads' | 'edits' | 'accounts' | 'accounts-end' | 'folders' | 'conversations',
  ids?: Record<string, string>,
): Promise<Session> {
  const script = path.join(__dirname, '../fixtures/edgequake/sdk_session.py');
  const { stdout } = await run(python, [script, app.url, dir, phase, ...(ids ? [JSON.stringify(ids)] : [])], {
    env: { ...process.env, KGRAG_HEADERS: JSON.stringify(app.headers) },
    timeout: 240_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as Session;
}

afterAll(async () => {
  await app?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** What the SDK parsed for a call; fails with the SDK's error when the call failed. */
function parsed<T = Record<string, unknown>>(name: string): T {
  const outcome = session[name];
  if (!outcome) throw new Error(`the session made no call '${name}'`);
  if ('error' in outcome) throw new Error(`${name} failed in the SDK: ${outcome.error} ${outcome.status ?? ''} ${outcome.message}`);
  return outcome.ok as T;
}

async function api<T = Record<string, unknown>>(pathname: string, init?: Parameters<TestApp['request']>[1]): Promise<T> {
  const res = await app.request(pathname, init);
  expect(res.status).toBeLessThan(300);
  return (await res.json()) as T;
}

type Doc = {
  id: string;
  title: string;
  chunk_count: number;
  entity_count: number;
  relationship_count: number;
  metadata: Record<string, unknown>;
};
type DocList = { documents: Doc[]; total: number };

describe('the EdgeQuake SDK on documents', () => {
  it('uploads text and reads the new document id and counts', async () => {
    const up = parsed<{ document_id: string; status: string; chunk_count: number; entity_count: number }>('documents.upload');
    const doc = await api<Doc>(`/api/v1/documents/${up.document_id}`);
    expect(up.status).toBe('completed');
    expect(doc.title).toBe('Acme research');
    expect(up.chunk_count).toBe(doc.chunk_count);
    expect(up.entity_count).toBe(doc.entity_count);
    expect(doc.entity_count).toBeGreaterThan(2);
    expect(doc.metadata).toEqual({ team: 'graph' });
  });

  it('uploads a file with its title and metadata fields', async () => {
    const up = parsed<{ document_id: string; status: string }>('documents.upload_file');
    const doc = await api<Doc>(`/api/v1/documents/${up.document_id}`);
    expect(doc.title).toBe('Globex notes');
    expect(doc.metadata).toMatchObject({ author: 'kgrag' });
  });

  it('uploads a batch and reads the file count beside the per-file results', async () => {
    const batch = parsed<{ total_files: number; processed: number; results: Array<{ document_id: string; status: string }> }>(
      'documents.upload_batch',
    );
    expect(batch.total_files).toBe(2);
    expect(batch.processed).toBe(2);
    for (const r of batch.results) expect((await app.request(`/api/v1/documents/${r.document_id}`)).status).toBe(200);
  });

  it('follows a queued upload by its track id to the completed task', async () => {
    const queued = parsed<{ document_id: string; status: string; track_id: string; task_id: string }>('documents.upload.queued');
    expect(queued.status).toBe('processing');
    expect(queued.track_id).toBe(queued.task_id);
    const tracked = parsed<{ track_id: string; status: string; document_id: string }>('documents.track');
    expect(tracked).toMatchObject({ track_id: queued.task_id, status: 'completed', document_id: queued.document_id });
    const task = parsed<{ track_id: string; status: string; progress: number }>('tasks.get');
    const held = await api<{ status: string; progress: number }>(`/api/v1/tasks/${queued.task_id}`);
    expect(task).toMatchObject({ track_id: queued.task_id, status: held.status, progress: held.progress });
  });

  it('pages the document list with page and page_size', async () => {
    const all = await api<DocList>('/api/v1/documents?limit=100');
    expect(all.total).toBe(5);
    const first = parsed<{ documents: Doc[]; total: number; page: number; total_pages: number; has_more: boolean }>('documents.list.page1');
    const second = parsed<{ documents: Doc[]; page: number; has_more: boolean }>('documents.list.page2');
    expect(first).toMatchObject({ total: all.total, page: 1, total_pages: 3, has_more: true });
    expect(second).toMatchObject({ page: 2, has_more: true });
    expect([...first.documents, ...second.documents].map((d) => d.id)).toEqual(all.documents.slice(0, 4).map((d) => d.id));
  });

  it("reads a document's detail, deletion impact, lineage and metadata as the API holds them", async () => {
    const id = parsed<{ document_id: string }>('documents.upload').document_id;
    const detail = parsed<{ content: string; entity_count: number }>('documents.get');
    const held = await api<Doc & { content: string }>(`/api/v1/documents/${id}`);
    expect(detail.content).toBe(held.content);
    const impact = parsed<Record<string, number>>('documents.deletion_impact');
    const heldImpact = await api<Record<string, number>>(`/api/v1/documents/${id}/deletion-impact`);
    expect(impact).toMatchObject({
      entity_count: heldImpact.entities_affected,
      relationship_count: heldImpact.relationships_affected,
      exclusive_entities: heldImpact.entities_to_delete,
      exclusive_relationships: heldImpact.relationships_to_delete,
      chunk_count: held.chunk_count,
    });
    expect(impact.entity_count).toBeGreaterThan(0);
    const lineage = parsed<{ metadata: { id: string }; lineage: { chunks: unknown[]; entities: unknown[] } }>('documents.get_lineage');
    const heldLineage = await api<{ chunks: unknown[]; entities: unknown[] }>(`/api/v1/documents/${id}/lineage`);
    expect(lineage.metadata.id).toBe(id);
    expect(lineage.lineage.chunks).toEqual(heldLineage.chunks);
    expect(lineage.lineage.entities).toEqual(heldLineage.entities);
    expect(parsed('documents.get_metadata')).toEqual(await api(`/api/v1/documents/${id}/metadata`));
    expect(parsed('documents.failed_chunks')).toEqual([]);
  });

  it('reads chunks and their lineage with the flat names', async () => {
    const id = parsed<{ document_id: string }>('documents.upload').document_id;
    const held = await api<{ content: string; index: number; token_count: number }>(`/api/v1/chunks/${id}-chunk-0`);
    expect(parsed('chunks.get')).toMatchObject({
      id: `${id}-chunk-0`,
      document_id: id,
      content: held.content,
      chunk_index: held.index,
      token_count: held.token_count,
      embedding_model: 'mock-embedding',
    });
    const lineage = await api<{ tokens: number; chunk_index: number; entity_names: string[] }>(`/api/v1/chunks/${id}-chunk-0/lineage`);
    expect(parsed('chunks.get_lineage')).toMatchObject({
      index: lineage.chunk_index,
      token_count: lineage.tokens,
      entity_names: lineage.entity_names,
    });
  });
});

describe('the EdgeQuake SDK on queries and chat', () => {
  it.each(['naive', 'local', 'global', 'hybrid', 'mix'])(
    'answers a %s query as the API does, with the stats under its names',
    async (mode) => {
      const result = parsed<{ answer: string; mode: string; sources: unknown[]; stats: Record<string, unknown> }>(`query.execute.${mode}`);
      const held = await api<{ answer: string; sources: unknown[]; stats: Record<string, unknown> }>('/api/v1/query', {
        method: 'POST',
        json: { query: 'Where does Alice Johnson work?', mode },
      });
      expect(result.answer).toBe(held.answer);
      expect(result.mode).toBe(mode);
      expect(result.sources).toHaveLength(held.sources.length);
      expect(result.stats).toMatchObject({ provider: 'mock', model: 'mock-llm', retrieval_count: held.sources.length });
      // The session's query may have paid for keyword extraction that this repeat of it finds cached, never less.
      expect(result.stats.total_tokens).toBeGreaterThanOrEqual(held.stats.tokens_used as number);
      expect(held.stats.tokens_used).toBeGreaterThan(0);
    },
  );

  it('streams a query whose events carry the answer text', async () => {
    const held = await api<{ answer: string }>('/api/v1/query', {
      method: 'POST',
      json: { query: 'Where does Alice Johnson work?', mode: 'hybrid' },
    });
    expect(parsed<string>('query.stream.text')).toBe(held.answer);
    expect(held.answer).toContain('Alice Johnson');
    const events = parsed<Array<{ chunk: string | null; done: boolean; sources: unknown[] | null }>>('query.stream.events');
    expect(events[0].sources?.length).toBeGreaterThan(0);
    expect(events[events.length - 1].done).toBe(true);
  });

  it('chats: the reply carries its conversation and both message ids, as stored', async () => {
    const reply = parsed<{ conversation_id: string; user_message_id: string; assistant_message_id: string; content: string; mode: string }>(
      'chat.complete',
    );
    const conversation = await api<{ messages: Array<{ id: string; role: string; content: string }> }>(
      `/api/v1/conversations/${reply.conversation_id}`,
    );
    expect(conversation.messages.map((m) => [m.id, m.role])).toEqual([
      [reply.user_message_id, 'user'],
      [reply.assistant_message_id, 'assistant'],
    ]);
    expect(reply.content).toBe(conversation.messages[1].content);
    expect(reply.mode).toBe('hybrid');
    expect(parsed<{ id: string; messages: unknown[] }>('conversations.get')).toMatchObject({ id: reply.conversation_id });
    expect(parsed<{ items: Array<{ id: string }> }>('conversations.list_messages').items.map((m) => m.id)).toEqual([
      reply.user_message_id,
      reply.assistant_message_id,
    ]);
    const listed = parsed<{ items: Array<{ id: string }>; pagination: { total: number } }>('conversations.list');
    expect(listed.items.map((c) => c.id)).toContain(reply.conversation_id);
    expect(listed.pagination.total).toBe(2);
  });

  it('streams a chat from /chat/completions/stream: conversation, context, tokens, done', async () => {
    const events = parsed<Array<{ type: string; content: string | null; done: boolean; conversation_id: string | null }>>('chat.stream');
    expect(events[0].type).toBe('conversation');
    expect(events[1].type).toBe('context');
    expect(events[events.length - 1]).toMatchObject({ type: 'done', done: true });
    const text = events
      .filter((e) => e.type === 'token')
      .map((e) => e.content)
      .join('');
    const stored = await api<{ messages: Array<{ content: string }> }>(`/api/v1/conversations/${events[0].conversation_id}`);
    expect(text).toBe(stored.messages[1].content);
    expect(text.length).toBeGreaterThan(10);
  });
});

describe('the EdgeQuake SDK on the graph', () => {
  type Node = { id: string; label: string; degree: number };

  it('searches nodes and labels by name', async () => {
    const held = await api<{ entities: Array<{ id: string; name: string }> }>('/api/v1/graph/entities?search=alice');
    expect(parsed<{ nodes: Node[]; total_matches: number }>('graph.search_nodes')).toMatchObject({
      nodes: held.entities.map((e) => expect.objectContaining({ id: e.id })),
      total_matches: held.entities.length,
    });
    expect(held.entities.length).toBeGreaterThan(0);
    const acme = await api<{ entities: Array<{ name: string }> }>('/api/v1/graph/entities?search=acme');
    expect(parsed<{ labels: string[] }>('graph.search_labels').labels.sort()).toEqual(acme.entities.map((e) => e.name).sort());
  });

  it('lists the most connected labels with their degrees', async () => {
    const labels = parsed<{ labels: Array<{ label: string; degree: number; entity_type: string }> }>('graph.popular_labels').labels;
    const top = await api<{ nodes: Node[] }>('/api/v1/graph?max_nodes=3');
    expect(labels.map((l) => [l.label, l.degree])).toEqual(top.nodes.map((n) => [n.label, n.degree]));
    expect(labels[0].degree).toBeGreaterThan(0);
  });

  it('reads a node, degrees, entity existence and a neighbourhood', async () => {
    const alice = await api<{ degree: number; relationships: Array<{ source: string; target: string }> }>(
      '/api/v1/graph/entities/ALICE_JOHNSON',
    );
    expect(parsed<Node>('graph.get_node')).toMatchObject({ id: 'ALICE_JOHNSON', label: 'Alice Johnson', degree: alice.degree });
    const acme = await api<{ degree: number }>('/api/v1/graph/entities/ACME_CORPORATION');
    expect(parsed('graph.degrees_batch')).toEqual({
      degrees: { ALICE_JOHNSON: alice.degree, 'Acme Corporation': acme.degree, 'Nobody Here': 0 },
    });
    expect(parsed('entities.exists')).toEqual({ exists: true, entity_name: 'Alice Johnson' });
    expect(parsed('entities.exists.missing')).toEqual({ exists: false, entity_name: 'Nobody Here' });
    const around = parsed<{ center: { id: string }; nodes: Node[]; edges: unknown[]; depth: number }>('entities.neighborhood');
    const neighbours = alice.relationships.map((r) => (r.source === 'ALICE_JOHNSON' ? r.target : r.source));
    expect(around.center.id).toBe('ALICE_JOHNSON');
    expect(around.nodes.map((n) => n.id).sort()).toEqual(['ALICE_JOHNSON', ...neighbours].sort());
    expect(around.edges.length).toBeGreaterThanOrEqual(neighbours.length);
    expect(around.depth).toBe(1);
  });

  it('lists entities and relationships by page, with the relationship type under its name', async () => {
    const entities = parsed<Array<{ id: string; name: string }>>('entities.list');
    const held = await api<{ entities: Array<{ id: string }> }>('/api/v1/graph/entities?limit=3');
    expect(entities.map((e) => e.id)).toEqual(held.entities.map((e) => e.id));
    const people = parsed<Array<{ entity_type: string }>>('entities.list.person');
    const heldPeople = await api<{ total: number }>('/api/v1/graph/entities?type=PERSON&limit=1');
    expect(people).toHaveLength(heldPeople.total);
    expect(people.every((e) => e.entity_type === 'PERSON')).toBe(true);
    const relationships = parsed<Array<{ id: string; relationship_type: string }>>('relationships.list');
    const heldRels = await api<{ relationships: Array<{ id: string; relation_type: string }> }>('/api/v1/graph/relationships?limit=3');
    expect(relationships.map((r) => [r.id, r.relationship_type])).toEqual(heldRels.relationships.map((r) => [r.id, r.relation_type]));
  });

  it('reads provenance and the entity and document lineage graphs', async () => {
    // The SDK's model keeps fewer fields than the API sends: every one it keeps must hold the API's value.
    expect(await api('/api/v1/entities/ALICE_JOHNSON/provenance')).toMatchObject(parsed('provenance.get'));
    const held = await api<{ source_documents: Array<{ document_id: string; chunk_ids: string[] }> }>(
      '/api/v1/lineage/entities/ALICE_JOHNSON',
    );
    const graph = parsed<{ root_id: string; nodes: Array<{ id: string; node_type: string }>; edges: Array<{ relationship: string }> }>(
      'lineage.entity',
    );
    expect(graph.root_id).toBe('ALICE_JOHNSON');
    const expected = ['ALICE_JOHNSON', ...held.source_documents.flatMap((d) => [d.document_id, ...d.chunk_ids])];
    expect(graph.nodes.map((n) => n.id).sort()).toEqual(expected.sort());
    expect(graph.edges.filter((e) => e.relationship === 'MENTIONS')).toHaveLength(held.source_documents.flatMap((d) => d.chunk_ids).length);
    const id = parsed<{ document_id: string }>('documents.upload').document_id;
    const doc = await api<{ chunks: unknown[]; entities: unknown[] }>(`/api/v1/lineage/documents/${id}`);
    const docGraph = parsed<{ root_id: string; nodes: unknown[] }>('lineage.document');
    expect(docGraph.root_id).toBe(id);
    expect(docGraph.nodes).toHaveLength(1 + doc.chunks.length + doc.entities.length);
  });
});

describe('the EdgeQuake SDK on tasks, the pipeline and the workspace', () => {
  it('lists tasks with their track ids', async () => {
    const held = await api<{ tasks: Array<{ id: string }>; total: number }>('/api/v1/tasks');
    const tasks = parsed<{ tasks: Array<{ track_id: string }>; total: number }>('tasks.list');
    expect(tasks.total).toBe(held.total);
    expect(tasks.tasks.map((t) => t.track_id)).toEqual(held.tasks.map((t) => t.id));
    expect(held.total).toBeGreaterThan(0);
  });

  it('reads pipeline status and queue metrics as the counts the API holds', async () => {
    const documents = await api<DocList>('/api/v1/documents?limit=1');
    const completedDocs = await api<DocList>('/api/v1/documents?limit=1&status=completed');
    const completedTasks = await api<{ total: number }>('/api/v1/tasks?status=completed&limit=1');
    const status = parsed<Record<string, unknown>>('pipeline.status');
    expect(status).toMatchObject({
      is_busy: false,
      total_documents: documents.total,
      processed_documents: completedDocs.total,
      completed_tasks: completedTasks.total,
      pending_tasks: 0,
      worker_count: 2,
    });
    expect(status.total_documents).toBeGreaterThan(0);
    const metrics = await api<{ throughput: { last_hour: number }; queue: { pending: number; running: number } }>(
      '/api/v1/pipeline/queue-metrics',
    );
    const parsedMetrics = parsed<Record<string, number>>('pipeline.queue_metrics');
    expect(parsedMetrics).toMatchObject({
      completed_last_hour: metrics.throughput.last_hour,
      queue_depth: metrics.queue.pending,
      processing: metrics.queue.running,
    });
    expect(parsedMetrics.completed_last_hour).toBeGreaterThan(0);
    expect(parsedMetrics.avg_processing_time_ms).toBeGreaterThan(0);
  });

  it('reads the workspace statistics under its names', async () => {
    const held = await api<{
      documents: { total: number };
      chunks: { total: number };
      entities: { total: number };
      relationships: { total: number };
      storage: { total_bytes: number };
    }>(`/api/v1/workspaces/${app.workspace}/stats`);
    expect(parsed('workspaces.stats')).toMatchObject({
      workspace_id: app.workspace,
      document_count: held.documents.total,
      chunk_count: held.chunks.total,
      entity_count: held.entities.total,
      relationship_count: held.relationships.total,
      storage_size_bytes: held.storage.total_bytes,
    });
    expect(held.documents.total).toBe(5);
  });

  it('reads the model prices, the providers in use, the setup status and the (empty) saved connections', async () => {
    const pricing = parsed<{ models: Array<Record<string, unknown>> }>('pipeline.pricing');
    const ours = await api<{ models: Array<{ provider: string; name: string; input_cost_per_1k_tokens: number }> }>(
      '/api/v1/pipeline/costs/pricing',
    );
    expect(pricing.models.map((m) => [m.provider, m.model, m.input_cost_per_1k])).toEqual(
      ours.models.map((m) => [m.provider, m.name, m.input_cost_per_1k_tokens]),
    );
    expect(parsed('settings.provider_status')).toMatchObject({
      current_provider: 'mock',
      current_model: 'mock-llm',
      embedding_provider: 'mock',
      status: 'healthy',
    });
    const providers = parsed<{ providers: Array<{ name: string; is_available: boolean; is_current: boolean }> }>('settings.providers');
    expect(providers.providers.find((p) => p.name === 'mock')).toMatchObject({ is_available: true, is_current: true });
    expect(parsed('operations.setup_status')).toMatchObject({ needs_setup: false });
    expect(parsed('connections.list')).toEqual([]);
  });

  it('estimates the cost of a text with the model and provider named, as totals', async () => {
    const ours = await api<{ estimated_cost_usd: { total: number }; estimated_tokens: { extraction: number; embedding: number } }>(
      '/api/v1/pipeline/costs/estimate',
      { method: 'POST', json: { content_length: 20_000, llm_model: 'mock/mock-llm' } },
    );
    expect(parsed('pipeline.estimate_cost')).toEqual({
      estimated_cost_usd: ours.estimated_cost_usd.total,
      estimated_tokens: ours.estimated_tokens.extraction + ours.estimated_tokens.embedding,
      model: 'mock-llm',
      provider: 'mock',
    });
    expect(ours.estimated_tokens.extraction).toBeGreaterThan(0);
  });
});

describe('the EdgeQuake SDK on errors and edits', () => {
  it("raises the SDK's NotFoundError with the problem's detail as its message", async () => {
    const res = await app.request('/api/v1/documents/no-such-document');
    const problem = (await res.json()) as { detail: string };
    expect(session['errors.not_found']).toEqual({ error: 'NotFoundError', status: 404, message: problem.detail });
    expect(session['errors.bad_request']).toMatchObject({ status: 422, message: 'query: must not be empty' });
  });

  it('updates an entity with PUT and merges one entity into another', async () => {
    Object.assign(session, await runSession('edits'));
    expect(parsed('entities.update')).toMatchObject({ id: 'BERLIN', description: 'Berlin is the capital of Germany.' });
    expect((await api<{ description: string }>('/api/v1/graph/entities/BERLIN')).description).toBe('Berlin is the capital of Germany.');
    expect(parsed('entities.merge')).toMatchObject({ merged_count: 1, merged_entity: { id: 'ACME_CORPORATION' } });
    expect((await app.request('/api/v1/graph/entities/FALCON_ENGINE')).status).toBe(404);
  });
});

type User = { id: string; username: string; email: string; role: string; tenant_id: string; created_at: string };
type Tenant = { id: string; name: string; slug: string; created_at: string; updated_at: string };
type Workspace = { id: string; tenant_id: string; name: string; slug: string; description: string; llm_model: string; updated_at: string };
type ApiKey = {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
};

describe('the EdgeQuake SDK on accounts, tenants and workspaces', () => {
  let ids: Record<string, string>;

  beforeAll(async () => {
    Object.assign(session, await runSession('accounts'));
    ids = parsed<Record<string, string>>('ids');
  });

  it('creates, lists, reads and renames a tenant with PUT', async () => {
    const held = await api<Tenant>(`/api/v1/tenants/${ids.tenant}`);
    expect(held.name).toBe('Initrode Labs');
    const created = parsed<Tenant>('tenants.create');
    expect(created).toMatchObject({ id: held.id, name: 'Initrode', slug: held.slug, created_at: held.created_at });
    expect(held.slug).toMatch(/^initrode-/);
    const listed = await api<{ tenants: Tenant[] }>('/api/v1/tenants');
    expect(parsed<Tenant[]>('tenants.list').map((t) => t.id)).toEqual(listed.tenants.map((t) => t.id));
    expect(listed.tenants.map((t) => t.id)).toContain(ids.tenant);
    // Read before the rename and before the second workspace: the default workspace, no users.
    expect(parsed('tenants.get')).toMatchObject({ id: held.id, name: 'Initrode', slug: held.slug, workspace_count: 1, user_count: 0 });
    const now = await api<{ workspace_count: number; user_count: number }>(`/api/v1/tenants/${ids.tenant}`);
    const workspaces = await api<{ total: number }>(`/api/v1/workspaces?tenant_id=${ids.tenant}`);
    expect(now).toMatchObject({ workspace_count: workspaces.total, user_count: 0 });
    expect(workspaces.total).toBe(2);
    expect(parsed('tenants.update')).toMatchObject({ id: held.id, name: 'Initrode Labs', updated_at: held.updated_at });
  });

  it("creates a workspace in the tenant, lists the tenant's workspaces, reads and updates one with PUT", async () => {
    const held = await api<Workspace>(`/api/v1/workspaces/${ids.workspace}`);
    expect(held).toMatchObject({ tenant_id: ids.tenant, name: 'SDK notes', slug: 'sdk-notes', description: 'Changed by the SDK' });
    expect(parsed('workspaces.create')).toMatchObject({
      id: held.id,
      tenant_id: ids.tenant,
      slug: 'sdk-notes',
      description: 'Made by the SDK',
    });
    const listed = await api<{ workspaces: Workspace[]; total: number }>(`/api/v1/workspaces?tenant_id=${ids.tenant}`);
    expect(listed.total).toBe(2);
    expect(parsed<Workspace[]>('workspaces.list').map((w) => [w.id, w.slug])).toEqual(listed.workspaces.map((w) => [w.id, w.slug]));
    expect(parsed('workspaces.get')).toMatchObject({ id: held.id, tenant_id: ids.tenant, name: held.name, llm_model: held.llm_model });
    expect(parsed('workspaces.update')).toMatchObject({ id: held.id, description: 'Changed by the SDK', updated_at: held.updated_at });
  });

  it('takes a snapshot of the workspace statistics and reads it back as a history entry', async () => {
    const snapshot = parsed<{ id: string; created_at: string; workspace_id: string }>('workspaces.trigger_metrics_snapshot');
    expect(snapshot.workspace_id).toBe(app.workspace);
    const held = await api<{
      snapshots: Array<{ id: string; created_at: string; stats: Record<string, { total: number }> }>;
    }>(`/api/v1/workspaces/${app.workspace}/metrics-history`);
    expect(held.snapshots.map((s) => s.id)).toEqual([snapshot.id]);
    const { stats } = held.snapshots[0];
    const history = parsed<{ workspace_id: string; entries: Array<Record<string, unknown>> }>('workspaces.metrics_history');
    expect(history.workspace_id).toBe(app.workspace);
    expect(history.entries).toEqual([
      {
        timestamp: snapshot.created_at,
        document_count: stats.documents.total,
        entity_count: stats.entities.total,
        relationship_count: stats.relationships.total,
        query_count: null,
      },
    ]);
    expect(stats.documents.total).toBe(5);
    expect(stats.relationships.total).toBeGreaterThan(0);
  });

  it('creates users (the default role `user` is an editor), lists and reads them', async () => {
    const admin = await api<User>(`/api/v1/users/${ids.admin}`);
    const editor = await api<User>(`/api/v1/users/${ids.editor}`);
    expect(admin.role).toBe('admin');
    expect(editor.role).toBe('editor');
    for (const [name, held] of [
      ['users.create', admin],
      ['users.create.default_role', editor],
      ['users.get', admin],
    ] as const) {
      expect(parsed(name)).toMatchObject({
        id: held.id,
        username: held.username,
        email: held.email,
        role: held.role,
        tenant_id: held.tenant_id,
        created_at: held.created_at,
      });
    }
    const listed = await api<{ users: User[] }>('/api/v1/users');
    expect(parsed<User[]>('users.list').map((u) => [u.id, u.username])).toEqual(listed.users.map((u) => [u.id, u.username]));
    expect(listed.users.map((u) => u.id)).toEqual(expect.arrayContaining([ids.admin, ids.editor]));
  });

  it('logs in, reads who it is, refreshes once (the used refresh token is refused again)', async () => {
    const login = parsed<{ access_token: string; refresh_token: string; token_type: string; expires_in: number }>('auth.login');
    expect(login.token_type).toBe('Bearer');
    const me = await api<{ user: User }>('/api/v1/auth/me', { headers: { Authorization: `Bearer ${ids.access_token}` } });
    expect(me.user.id).toBe(ids.admin);
    expect(parsed('auth.me')).toEqual({
      id: me.user.id,
      username: me.user.username,
      email: me.user.email,
      role: 'admin',
      tenant_id: me.user.tenant_id,
      created_at: me.user.created_at,
      last_login: null,
    });
    // The renewed access token (ids.access_token) is the one /auth/me accepted above; its lifetime is the token's own.
    const renewed = parsed<{ expires_in: number; refresh_token: string }>('auth.refresh');
    const claims = JSON.parse(Buffer.from(ids.access_token.split('.')[1], 'base64url').toString()) as { iat: number; exp: number };
    expect(renewed.expires_in).toBe(claims.exp - claims.iat);
    expect(login.expires_in).toBe(renewed.expires_in);
    expect(renewed.refresh_token).not.toBe(login.refresh_token);
    expect(session['auth.refresh.reused']).toMatchObject({ error: 'UnauthorizedError', status: 401 });
  });

  it("creates an API key with expires_in and lists it under the SDK's names", async () => {
    const created = parsed<{ id: string; key: string; name: string; expires_at: string }>('api_keys.create');
    const listed = await api<{ api_keys: ApiKey[] }>('/api/v1/api-keys', {
      headers: { Authorization: `Bearer ${ids.access_token}` },
    });
    const held = listed.api_keys.find((k) => k.id === created.id)!;
    expect(created).toMatchObject({ id: held.id, name: 'SDK key', created_at: held.created_at, expires_at: held.expires_at });
    expect(Date.parse(held.expires_at!) - Date.parse(held.created_at)).toBeGreaterThan(3500_000);
    expect(Date.parse(held.expires_at!) - Date.parse(held.created_at)).toBeLessThanOrEqual(3600_000);
    expect(created.key.startsWith(held.prefix)).toBe(true);
    expect(parsed('api_keys.list')).toEqual(
      listed.api_keys.map((k) => ({
        id: k.id,
        name: k.name,
        prefix: k.prefix,
        created_at: k.created_at,
        expires_at: k.expires_at,
        last_used: k.last_used_at,
      })),
    );
    // The key works.
    expect((await app.request('/api/v1/auth/me', { headers: { 'X-API-Key': created.key } })).status).toBe(200);
  });

  it('revokes the key, logs out without a body (every refresh token of the user ends), deletes a user, the workspace and the tenant', async () => {
    Object.assign(session, await runSession('accounts-end', ids));
    // The SDK's revoke and logout return nothing: what they did is read from the API.
    expect(parsed('api_keys.revoke')).toBeNull();
    const keys = await api<{ api_keys: ApiKey[] }>('/api/v1/api-keys?limit=500');
    expect(keys.api_keys.find((k) => k.id === ids.key)?.revoked_at).toEqual(expect.any(String));
    expect((await app.request('/api/v1/auth/me', { headers: { 'X-API-Key': ids.key_secret } })).status).toBe(401);
    expect(parsed('auth.logout')).toBeNull();
    expect(session['auth.refresh.after_logout']).toMatchObject({ error: 'UnauthorizedError', status: 401 });
    expect(parsed('users.delete')).toBeNull();
    expect(session['users.get.deleted']).toMatchObject({ error: 'NotFoundError', status: 404 });
    expect((await app.request(`/api/v1/users/${ids.editor}`)).status).toBe(404);
    expect(parsed('workspaces.delete')).toBeNull();
    expect((await app.request(`/api/v1/workspaces/${ids.workspace}`)).status).toBe(404);
    expect(parsed('tenants.delete')).toBeNull();
    expect((await app.request(`/api/v1/tenants/${ids.tenant}`)).status).toBe(404);
  });
});

describe('the EdgeQuake SDK on conversation folders', () => {
  type Folder = { id: string; name: string; parent_id: string | null; conversation_count: number };
  type Conversation = { id: string; title: string; folder_id: string | null };
  type Listed = { items: Conversation[]; pagination: { total: number } };

  beforeAll(async () => {
    Object.assign(session, await runSession('folders'));
  });

  it('creates a folder, files conversations in it on creation and by update, and lists the folder', () => {
    const work = parsed<Folder>('folders.create');
    expect(work).toMatchObject({ name: 'Work', parent_id: null, conversation_count: 0 });
    const filed = parsed<Conversation>('conversations.create.in_folder');
    expect(filed).toMatchObject({ title: 'Filed', folder_id: work.id });
    const loose = parsed<Conversation>('conversations.create.loose');
    expect(loose.folder_id).toBeNull();
    expect(parsed<Conversation>('conversations.update.folder')).toMatchObject({ id: loose.id, title: 'Loose', folder_id: work.id });
    const listed = parsed<Listed>('conversations.list.folder');
    expect(listed.items.map((c) => c.id).sort()).toEqual([filed.id, loose.id].sort());
    expect(listed.pagination.total).toBe(2);
    expect(parsed<Folder[]>('folders.list')).toEqual([expect.objectContaining({ id: work.id, name: 'Work', conversation_count: 2 })]);
  });

  it("refuses a nested folder with the API's 422 problem", () => {
    expect(session['folders.create.nested']).toMatchObject({ status: 422, message: expect.stringContaining('folders do not nest') });
  });

  it('renames the folder, moves a conversation out in bulk, deletes the folder and leaves its conversation in no folder', async () => {
    const work = parsed<Folder>('folders.create');
    const loose = parsed<Conversation>('conversations.create.loose');
    expect(parsed<Folder>('folders.update')).toMatchObject({ id: work.id, name: 'Projects', conversation_count: 2 });
    expect(parsed('conversations.bulk_move')).toEqual({ affected: 1 });
    expect(parsed<Listed>('conversations.list.folder.after_move').items.map((c) => c.id)).toEqual([loose.id]);
    expect(session['folders.delete']).toEqual({ ok: null });
    expect(session['folders.delete.again']).toMatchObject({ status: 404 });
    expect(parsed<Folder[]>('folders.list.after_delete')).toEqual([]);
    expect(parsed<Conversation>('conversations.get.after_delete')).toMatchObject({ id: loose.id, folder_id: null });
    expect(await api<{ folders: Folder[] }>('/api/v1/folders')).toEqual({ folders: [] });
  });
});

describe('the EdgeQuake SDK on pinned, archived and deleted conversations', () => {
  type Conversation = { id: string; title: string; is_pinned: boolean; is_archived: boolean };
  type Listed = { items: Conversation[]; pagination: { total: number } };
  const ids = (name: string) => parsed<Listed>(name).items.map((c) => c.title);

  beforeAll(async () => {
    Object.assign(session, await runSession('conversations'));
  });

  it('pins by update and archives in bulk, all or none, and reads both flags', async () => {
    const alpha = parsed<Conversation>('conversations.create.0');
    expect(alpha).toMatchObject({ is_pinned: false, is_archived: false });
    expect(parsed('conversations.update.pin')).toMatchObject({ id: alpha.id, is_pinned: true, is_archived: false });
    expect(parsed('conversations.bulk_archive')).toEqual({ affected: 2 });
    expect(parsed('conversations.bulk_archive.undo')).toEqual({ affected: 1 });
    expect(session['conversations.bulk_archive.missing']).toMatchObject({ error: 'NotFoundError', status: 404 });
    expect(parsed('conversations.get.pinned')).toMatchObject({ id: alpha.id, is_pinned: true, is_archived: false });
    const held = await api<Conversation>(`/api/v1/conversations/${alpha.id}`);
    expect(held).toMatchObject({ is_pinned: true, is_archived: false });
  });

  it('lists by flag, by words of the title and in the order asked for', () => {
    expect(ids('conversations.list.pinned')).toEqual(['Alpha notes']);
    expect(ids('conversations.list.archived')).toEqual(['beta NOTES']);
    expect(ids('conversations.list.search')).toEqual(['Alpha notes', 'beta NOTES']);
    expect(parsed<Listed>('conversations.list.search').pagination.total).toBe(2);
  });

  it('deletes in bulk', async () => {
    expect(parsed('conversations.bulk_delete')).toEqual({ affected: 2 });
    expect(ids('conversations.list.after_delete')).toEqual(['Alpha notes']);
    const gamma = parsed<Conversation>('conversations.create.2');
    expect((await app.request(`/api/v1/conversations/${gamma.id}`)).status).toBe(404);
  });

  it('gets 501 with the reason for sharing, importing and writing messages by hand, and nothing changes', async () => {
    for (const [name, reason] of [
      ['conversations.share', 'sharing conversations is not offered'],
      ['conversations.get_shared', 'sharing conversations is not offered'],
      ['conversations.import', 'importing conversations is not offered'],
      ['conversations.create_message', 'messages are written by the chat'],
    ]) {
      expect({ name, ...session[name] }).toMatchObject({ name, status: 501, message: expect.stringContaining(reason) });
    }
    const alpha = parsed<Conversation>('conversations.create.0');
    expect(await api<{ message_count: number }>(`/api/v1/conversations/${alpha.id}`)).toMatchObject({ message_count: 0 });
  });
});
