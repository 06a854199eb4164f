import { json, prose } from '../fixtures/documents';
import { integrityProblems, openTestDriver, SOUND } from '../fixtures/graph-integrity';
import { reportedOrphans, verifyWorkspace } from '../fixtures/service-integrity';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * Durability of the task queue on Neo4j: queued and interrupted tasks outlive the runtime, and start-up
 * recovery leaves no document in `processing` without something that will finish it, whichever instance
 * left it there.
 */
jest.setTimeout(90_000);

const driver = openTestDriver();
const apps: TestApp[] = [];

afterAll(async () => {
  for (const app of apps) await app.close().catch(() => undefined);
});

async function boot(env: Record<string, string>, start = true): Promise<TestApp> {
  const app = await startTestApp({ SERVICE_TASK_LEASE_MS: '2000', ...env }, { start });
  apps.push(app);
  return app;
}

async function close(app: TestApp): Promise<void> {
  apps.splice(apps.indexOf(app), 1);
  await app.close();
}

/** Polls GET /tasks/:id in `workspace` until every task has finished; returns them. */
async function finished(app: TestApp, workspace: string, taskIds: string[], timeoutMs = 60_000): Promise<Array<Record<string, any>>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const tasks = await Promise.all(taskIds.map(async (id) => json(await app.request(`/api/v1/tasks/${id}`, { workspace }))));
    if (tasks.every((t) => ['completed', 'failed', 'cancelled'].includes(t.status))) return tasks;
    if (Date.now() > deadline) throw new Error(`tasks did not finish: ${JSON.stringify(tasks.map((t) => [t.id, t.status]))}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function queue(app: TestApp, workspace: string, seed: string): Promise<{ id: string; task_id: string }> {
  const res = await app.request('/api/v1/documents', {
    method: 'POST',
    workspace,
    json: { content: prose(seed, 12), async_processing: true },
  });
  expect(res.status).toBe(202);
  return json(res);
}

describe('persistent mode: tasks outlive the runtime', () => {
  it('completes, after a restart on the same database, tasks queued while no worker ran and tasks a shutdown interrupted', async () => {
    const idle = await boot({ SERVICE_INSTANCE_ID: 'durable-idle' }, false);
    const workspace = idle.workspace;
    const queued = [];
    for (let i = 0; i < 3; i++) queued.push(await queue(idle, workspace, `idle-${i}`));
    await close(idle);

    // Slow calls: the shutdown finds runs under way and puts them back in the queue.
    const slow = await boot({ SERVICE_INSTANCE_ID: 'durable-slow', SERVICE_MOCK_LATENCY_MS: '200', WORKER_THREADS: '2' });
    for (let i = 0; i < 3; i++) queued.push(await queue(slow, workspace, `slow-${i}`));
    const deadline = Date.now() + 30_000;
    while ((await json(await slow.request('/api/v1/tasks?status=running', { workspace }))).total === 0) {
      if (Date.now() > deadline) throw new Error('no task started running');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await close(slow);
    const { records } = await driver.executeQuery("MATCH (t:Task {workspace_id: $w}) WHERE t.status <> 'pending' RETURN count(t) AS n", {
      w: workspace,
    });
    expect(records[0].get('n')).toBe(0);

    const next = await boot({ SERVICE_INSTANCE_ID: 'durable-next' });
    const tasks = await finished(
      next,
      workspace,
      queued.map((q) => q.task_id),
    );
    expect(tasks.map((t) => t.status)).toEqual(Array(6).fill('completed'));
    for (const { id, task_id } of queued) {
      expect(await json(await next.request(`/api/v1/documents/${id}`, { workspace }))).toMatchObject({ status: 'completed', task_id });
    }
    expect((await json(await next.request('/api/v1/tasks', { workspace }))).total).toBe(6);
    expect(await integrityProblems(driver, workspace)).toEqual(SOUND);
    expect(await reportedOrphans((path) => next.request(path, { workspace }))).toEqual({});
  });
});

describe('persistent mode: start-up recovery of what a dead instance left', () => {
  it('takes over its running task once the lease ends, requeues a document without its task and settles its unsettled cancels', async () => {
    const prep = await boot({ SERVICE_INSTANCE_ID: 'recovery-prep' }, false);
    const workspace = prep.workspace;
    const scope = { workspaceId: workspace };
    const { stores } = prep.rt;
    const now = new Date().toISOString();
    const dead = { lease_owner: 'dead-instance', started_at: now };

    const running = await queue(prep, workspace, 'dead-running');
    await stores.tasks.update(scope, running.task_id, {
      ...dead,
      status: 'running',
      lease_expires_at: new Date(Date.now() + 2000).toISOString(),
    });
    // The instance died between writing the document and writing its task, more than a task lease ago.
    const orphan = await queue(prep, workspace, 'dead-orphan');
    await driver.executeQuery('MATCH (t:Task {workspace_id: $w, id: $id}) DETACH DELETE t', { w: workspace, id: orphan.task_id });
    await stores.documents.update(scope, orphan.id, { updated_at: new Date(Date.now() - 60_000).toISOString() });
    // A cancel of a pending task recorded, the document not yet marked.
    const pending = await queue(prep, workspace, 'dead-pending-cancel');
    await stores.tasks.update(scope, pending.task_id, { status: 'cancelled', error: 'cancelled by request', finished_at: now });
    // A run that had written to the graph, cancelled while it ran there; the instance died before rolling it back.
    const res = await prep.request('/api/v1/documents', { method: 'POST', workspace, json: { content: prose('dead-cancelled', 12) } });
    expect(res.status).toBe(201);
    const merged = (await stores.documents.get(scope, (await json(res)).id))!;
    expect(merged.task_id).not.toBeNull();
    expect((await stores.graph.entitiesOfDocument(scope, merged.id)).length).toBeGreaterThan(0);
    await stores.documents.update(scope, merged.id, { status: 'processing' });
    await stores.tasks.update(scope, merged.task_id!, {
      ...dead,
      status: 'cancelled',
      error: 'cancelled by request',
      finished_at: now,
      lease_expires_at: new Date(Date.now() - 1000).toISOString(),
    });
    await close(prep);

    const live = await boot({ SERVICE_INSTANCE_ID: 'recovery-live' });
    const doc = async (id: string) => json(await live.request(`/api/v1/documents/${id}`, { workspace }));
    const [takenOver] = await finished(live, workspace, [running.task_id]);
    expect(takenOver).toMatchObject({ status: 'completed', document_id: running.id });
    expect(await doc(running.id)).toMatchObject({ status: 'completed', task_id: running.task_id });

    const requeued = await doc(orphan.id);
    expect(requeued.task_id).not.toBe(orphan.task_id);
    expect((await finished(live, workspace, [requeued.task_id]))[0].status).toBe('completed');
    expect(await doc(orphan.id)).toMatchObject({ status: 'completed' });

    expect(await doc(pending.id)).toMatchObject({ status: 'failed', error: 'cancelled by request', task_id: pending.task_id });
    expect(await doc(merged.id)).toMatchObject({ status: 'failed', error: 'cancelled by request', chunk_count: 0, entity_count: 0 });
    expect(await live.rt.stores.chunks.listByDocument(scope, merged.id)).toEqual([]);
    expect(await live.rt.stores.graph.entitiesOfDocument(scope, merged.id)).toEqual([]);
    expect(await live.rt.stores.tasks.get(scope, merged.task_id!)).toMatchObject({ status: 'cancelled', lease_owner: null });
    expect((await json(await live.request('/api/v1/tasks', { workspace }))).total).toBe(4);
    expect(await integrityProblems(driver, workspace)).toEqual(SOUND);
    expect(await reportedOrphans((path) => live.request(path, { workspace }))).toEqual({});
  });

  it('takes a failed document whose undo the instance did not finish out of the graph, keeping its chunks for a retry', async () => {
    const prep = await boot({ SERVICE_INSTANCE_ID: 'undo-prep' }, false);
    const workspace = prep.workspace;
    const scope = { workspaceId: workspace };
    const ingest = async (seed: string) => {
      const res = await prep.request('/api/v1/documents', { method: 'POST', workspace, json: { content: prose(seed, 12) } });
      expect(res.status).toBe(201);
      return (await json(res)).id as string;
    };
    const kept = await ingest('undo-kept');
    const failed = await ingest('undo-failed');
    // Its run failed and the instance died before undoing it: marked failed, everything it wrote still there.
    await prep.rt.stores.documents.update(scope, failed, { status: 'failed', error: 'processing failed: injected' });
    expect(Object.keys(await reportedOrphans((path) => prep.request(path, { workspace }))).length).toBeGreaterThan(0);
    const verified = await verifyWorkspace(workspace, { qdrant: true });
    expect(verified).toEqual({
      code: 1,
      output: expect.stringMatching(
        / 1 failed documents;[^]*\n {2}chunk_vector_of_failed_document: 1 [^]*\n {2}entity_citing_dead_source: [1-9]/,
      ),
    });
    await close(prep);

    const live = await boot({ SERVICE_INSTANCE_ID: 'undo-live' });
    const { graph, chunks } = live.rt.stores;
    expect(await graph.entitiesOfDocument(scope, failed)).toEqual([]);
    expect(await graph.relationshipsOfDocument(scope, failed)).toEqual([]);
    const left = await chunks.listByDocument(scope, failed);
    expect(left.length).toBeGreaterThan(0);
    expect(left.filter((c) => c.entity_ids.length + c.relationship_ids.length > 0 || c.embedding_model !== null)).toEqual([]);
    expect(await json(await live.request(`/api/v1/documents/${kept}`, { workspace }))).toMatchObject({ status: 'completed' });
    expect(await json(await live.request(`/api/v1/documents/${failed}`, { workspace }))).toMatchObject({ status: 'failed' });
    expect(await reportedOrphans((path) => live.request(path, { workspace }))).toEqual({});
  });
});
