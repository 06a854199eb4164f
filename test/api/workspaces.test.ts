import { randomUUID } from 'node:crypto';
import { type TestApp, startTestApp } from '../helpers/app';
import { openTestDriver } from '../fixtures/graph-integrity';

/**
 * Workspaces and tenants (docs/api.md §4.6, §4.7): creation checked against the model catalog, an unknown workspace
 * is 404 (never an empty one), deletion leaves nothing, embedding changes go through a rebuild.
 */

const json = async (res: Response) => (await res.json()) as Record<string, any>;
const CONTENT = 'Ada Lovelace wrote the first program for the Analytical Engine. Charles Babbage designed the Analytical Engine in London.';

describe('workspaces', () => {
  let app: TestApp;
  const call = (path: string, init: { method?: string; json?: unknown; workspace?: string } = {}) => app.request(`/api/v1${path}`, init);

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  async function ingest(workspace: string, content = CONTENT): Promise<string> {
    const res = await call('/documents', { method: 'POST', json: { content }, workspace });
    expect(res.status).toBe(201);
    return (await json(res)).id as string;
  }

  async function waitForTask(workspace: string, id: string): Promise<Record<string, any>> {
    for (let i = 0; i < 400; i++) {
      const task = await json(await call(`/tasks/${id}`, { workspace }));
      if (!['pending', 'running'].includes(task.status)) return task;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`task ${id} did not finish`);
  }

  it('creates a workspace with the configured models, lists, reads and renames it; refuses unknown models and duplicate slugs', async () => {
    const slug = `docs-${randomUUID().slice(0, 8)}`;
    const created = await call('/workspaces', { method: 'POST', json: { name: 'Docs', slug, description: 'manuals' } });
    expect(created.status).toBe(201);
    const ws = await json(created);
    expect(ws).toMatchObject({
      name: 'Docs',
      slug,
      description: 'manuals',
      is_default: false,
      llm_provider: 'mock',
      embedding_provider: 'mock',
      embedding_dimension: app.config.embedding.dimension,
    });
    expect((await call('/workspaces', { method: 'POST', json: { name: 'Docs', slug } })).status).toBe(409);
    const bad = await call('/workspaces', {
      method: 'POST',
      json: { name: 'x', llm_model: 'no-such-model', embedding_provider: 'nowhere' },
    });
    expect(bad.status).toBe(422);
    expect((await json(bad)).errors.map((e: { field: string }) => e.field).sort()).toEqual(['embedding_provider', 'llm_model']);
    expect((await json(await call(`/workspaces/${ws.id}`))).id).toBe(ws.id);
    const listed = await json(await call('/workspaces?limit=500'));
    expect(listed.workspaces.map((w: { id: string }) => w.id)).toContain(ws.id);
    const renamed = await json(await call(`/workspaces/${ws.id}`, { method: 'PATCH', json: { name: 'Manuals' } }));
    expect(renamed).toMatchObject({ id: ws.id, name: 'Manuals', slug });
  });

  it('answers 404 for a workspace that was never created and 400 for a header that is neither a UUID nor a slug', async () => {
    const unknown = randomUUID();
    const res = await call('/documents', { workspace: unknown });
    expect(res.status).toBe(404);
    expect((await json(res)).detail).toContain(unknown);
    expect((await call('/documents', { workspace: '../../etc/passwd' })).status).toBe(400);
    expect((await call(`/workspaces/${unknown}`)).status).toBe(404);
  });

  it('refuses to change the embedding model of a workspace holding data, and allows it while it is empty', async () => {
    const empty = await app.createWorkspace();
    expect(await json(await call(`/workspaces/${empty}`, { method: 'PATCH', json: { embedding_dimension: 64 } }))).toMatchObject({
      embedding_dimension: 64,
    });
    const full = await app.createWorkspace();
    await ingest(full);
    const refused = await call(`/workspaces/${full}`, { method: 'PATCH', json: { embedding_dimension: 64 } });
    expect(refused.status).toBe(409);
    expect((await json(refused)).detail).toMatch(/rebuild-embeddings/);
  });

  it('rebuilds the embeddings with another dimension as a task, and queries answer from the new vectors', async () => {
    const ws = await app.createWorkspace();
    await ingest(ws);
    const scope = { workspaceId: ws };
    const before = await app.rt.stores.vectors.count(scope, 'entity');
    expect(before).toBeGreaterThan(0);
    const started = await call(`/workspaces/${ws}/rebuild-embeddings`, {
      method: 'POST',
      json: { embedding_model: 'mock-embedding', embedding_dimension: 32 },
    });
    expect(started.status).toBe(202);
    const { task_id } = await json(started);
    const task = await waitForTask(ws, task_id);
    expect(task).toMatchObject({ type: 'rebuild_embeddings', status: 'completed', progress: 100 });
    expect(await json(await call(`/workspaces/${ws}`))).toMatchObject({ embedding_dimension: 32, rebuild_task_id: null });
    expect(await app.rt.stores.vectors.count(scope, 'entity')).toBe(before);
    const hits = await app.rt.stores.vectors.search(scope, 'chunk', Array(32).fill(0.1), 3);
    expect(hits.length).toBeGreaterThan(0);
    const answer = await json(
      await call('/query', {
        method: 'POST',
        json: { query: 'Who wrote the first program?', mode: 'naive', context_only: true },
        workspace: ws,
      }),
    );
    expect(answer.sources.length).toBeGreaterThan(0);
    // A document ingested after the rebuild is embedded in the new space.
    await ingest(ws, 'Grace Hopper built the first compiler at Remington Rand in Philadelphia.');
    expect(await app.rt.stores.vectors.search(scope, 'entity', Array(32).fill(0.1), 100)).toHaveLength(
      await app.rt.stores.vectors.count(scope, 'entity'),
    );
  });

  it('reprocesses every document and re-extracts the graph with another model as document tasks', async () => {
    const ws = await app.createWorkspace();
    await ingest(ws);
    const reprocess = await json(await call(`/workspaces/${ws}/reprocess-documents`, { method: 'POST' }));
    expect(reprocess.queued).toBe(1);
    for (const id of reprocess.task_ids) expect((await waitForTask(ws, id)).status).toBe('completed');
    const rebuilt = await call(`/workspaces/${ws}/rebuild-knowledge-graph`, { method: 'POST', json: { llm_model: 'mock-llm' } });
    expect(rebuilt.status).toBe(202);
    const body = await json(rebuilt);
    expect(body).toMatchObject({ llm_model: 'mock-llm', queued: 1 });
    for (const id of body.task_ids) expect((await waitForTask(ws, id)).status).toBe('completed');
    expect((await call(`/workspaces/${ws}/rebuild-knowledge-graph`, { method: 'POST', json: { llm_model: 'no-such-llm' } })).status).toBe(
      422,
    );
  });

  it('stores metrics snapshots and returns their history', async () => {
    const ws = await app.createWorkspace();
    await ingest(ws);
    const snap = await call(`/workspaces/${ws}/metrics-snapshot`, { method: 'POST' });
    expect(snap.status).toBe(201);
    expect((await json(snap)).stats.documents.total).toBe(1);
    await call(`/workspaces/${ws}/metrics-snapshot`, { method: 'POST' });
    const history = await json(await call(`/workspaces/${ws}/metrics-history?days=7`));
    expect(history).toMatchObject({ workspace_id: ws, days: 7, total: 2 });
    expect(history.snapshots[0].stats.workspace_id).toBe(ws);
    expect((await call(`/workspaces/${ws}/metrics-history?days=0`)).status).toBe(422);
  });

  it('deletes a workspace with every piece of its data, and refuses to delete a default workspace', async () => {
    const ws = await app.createWorkspace();
    await ingest(ws);
    await call('/chat/completions', { method: 'POST', json: { message: 'Who is Ada?' }, workspace: ws });
    await call(`/workspaces/${ws}/metrics-snapshot`, { method: 'POST' });
    const key = await app.createApiKey({ workspaceId: ws });
    const scope = { workspaceId: ws };
    const { stores } = app.rt;
    expect((await stores.graph.stats(scope)).total_nodes).toBeGreaterThan(0);
    expect((await call(`/workspaces/${ws}`, { method: 'DELETE' })).status).toBe(204);
    expect((await call('/documents', { workspace: ws })).status).toBe(404);
    expect((await call(`/workspaces/${ws}`)).status).toBe(404);
    const counts = {
      documents: (await stores.documents.list(scope, { limit: 1, offset: 0 })).total,
      chunks: await stores.chunks.count(scope),
      graph: (await stores.graph.stats(scope)).total_nodes + (await stores.graph.stats(scope)).total_edges,
      vectors: (await Promise.all((['chunk', 'entity', 'relationship'] as const).map((k) => stores.vectors.count(scope, k)))).reduce(
        (a, b) => a + b,
        0,
      ),
      tasks: (await stores.tasks.list(scope, { limit: 1, offset: 0 })).total,
      conversations: (await stores.conversations.list(scope, { limit: 1, offset: 0 })).total,
      snapshots: await stores.accounts.metricsSnapshots.count({ workspace_id: ws }),
    };
    expect(counts).toEqual({ documents: 0, chunks: 0, graph: 0, vectors: 0, tasks: 0, conversations: 0, snapshots: 0 });
    // A key bound to the deleted workspace stops working.
    expect((await app.request('/api/v1/graph/stats', { headers: { 'X-API-Key': key } })).status).toBe(401);
    const defaultWorkspace = (await app.rt.stores.accounts.workspaces.findOne({
      tenant_id: app.rt.tenancy.operatorTenantId,
      is_default: true,
    }))!;
    expect((await call(`/workspaces/${defaultWorkspace.id}`, { method: 'DELETE' })).status).toBe(409);
  });

  it('creates tenants with a default workspace; deleting one refuses while it holds data unless forced, then removes everything', async () => {
    const created = await call('/tenants', { method: 'POST', json: { name: `Acme ${randomUUID().slice(0, 6)}`, plan: 'team' } });
    expect(created.status).toBe(201);
    const tenant = await json(created);
    expect(tenant.default_workspace).toMatchObject({ tenant_id: tenant.id, is_default: true });
    const extra = await json(
      await call(`/tenants/${tenant.id}/workspaces`, {
        method: 'POST',
        json: { name: 'Research', slug: 'research', llm_provider: 'mock', llm_model: 'mock-llm' },
      }),
    );
    expect(extra).toMatchObject({ tenant_id: tenant.id, slug: 'research', llm_model: 'mock-llm' });
    const key = await app.createApiKey({ tenantId: tenant.id, role: 'admin' });
    const asTenant = (path: string, init: RequestInit = {}) =>
      app.request(`/api/v1${path}`, { ...init, workspace: extra.id, headers: { 'X-API-Key': key, ...(init.headers as object) } });
    expect(
      (
        await asTenant('/documents', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ content: CONTENT }),
        })
      ).status,
    ).toBe(201);
    expect((await json(await asTenant('/tenants'))).tenants.map((t: { id: string }) => t.id)).toEqual([tenant.id]);
    expect(
      (
        await json(
          await asTenant(`/tenants/${tenant.id}`, {
            method: 'PATCH',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ plan: 'enterprise' }),
          }),
        )
      ).plan,
    ).toBe('enterprise');
    // Tenants are managed by operators only.
    expect((await asTenant(`/tenants/${tenant.id}`, { method: 'DELETE' })).status).toBe(403);
    expect((await call(`/tenants/${tenant.id}`, { method: 'DELETE' })).status).toBe(409);
    const forced = await call(`/tenants/${tenant.id}?force=true`, { method: 'DELETE' });
    expect(await json(forced)).toMatchObject({ id: tenant.id, deleted_workspaces: 2 });
    expect((await call(`/tenants/${tenant.id}`)).status).toBe(404);
    expect((await asTenant('/documents')).status).toBe(401);
    expect(await app.rt.stores.documents.list({ workspaceId: extra.id }, { limit: 1, offset: 0 })).toEqual({ items: [], total: 0 });
  });
});

if (process.env.TEST_NEO4J_URI) {
  describe('persistent mode: accounts survive a restart, and a deleted workspace leaves no node behind', () => {
    const driver = openTestDriver();

    it('keeps users, keys and workspaces across a restart', async () => {
      const first = await startTestApp();
      const username = `durable-${randomUUID().slice(0, 8)}`;
      const res = await first.request('/api/v1/users', {
        method: 'POST',
        json: { username, email: `${username}@example.com`, password: 'a durable password', role: 'editor' },
      });
      expect(res.status).toBe(201);
      const key = await first.createApiKey({ role: 'viewer', workspaceId: first.workspace });
      await first.close();
      const second = await startTestApp();
      try {
        const login = await fetch(`${second.url}/api/v1/auth/login`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ username, password: 'a durable password' }),
        });
        expect(login.status).toBe(200);
        const me = await (await fetch(`${second.url}/api/v1/auth/me`, { headers: { 'X-API-Key': key } })).json();
        expect(me).toMatchObject({ kind: 'api_key', workspace_id: first.workspace });
        expect((await fetch(`${second.url}/api/v1/documents`, { headers: { 'X-API-Key': key } })).status).toBe(200);
      } finally {
        await second.close();
      }
    });

    it('deletes every node of the workspace (checked by Cypher)', async () => {
      const app = await startTestApp();
      try {
        const ws = app.workspace;
        expect((await app.request('/api/v1/documents', { method: 'POST', json: { content: CONTENT } })).status).toBe(201);
        await app.request('/api/v1/chat/completions', { method: 'POST', json: { message: 'Who is Ada?' } });
        await app.request(`/api/v1/workspaces/${ws}/metrics-snapshot`, { method: 'POST' });
        const count = async () =>
          (await driver.executeQuery('MATCH (n) WHERE n.workspace_id = $w OR n.id = $w RETURN count(n) AS n', { w: ws })).records[0].get(
            'n',
          ) as number;
        expect(await count()).toBeGreaterThan(10);
        expect((await app.request(`/api/v1/workspaces/${ws}`, { method: 'DELETE' })).status).toBe(204);
        expect(await count()).toBe(0);
      } finally {
        await app.close();
      }
    });
  });
}
