import { startTestApp, type TestApp } from '../helpers/app';
import { json, prose, waitForTask, waitForTaskWhere } from '../fixtures/documents';

describe('tasks (list, detail, cancel, retry)', () => {
  let app: TestApp;

  beforeAll(async () => {
    // Slow provider calls keep a task running long enough to cancel it deterministically.
    app = await startTestApp({ SERVICE_MOCK_LATENCY_MS: '150' });
  });
  afterAll(async () => {
    await app.close();
  });

  const queue = async (seed: string) => {
    const res = await app.request('/api/v1/documents', { method: 'POST', json: { content: prose(seed), async_processing: true } });
    expect(res.status).toBe(202);
    return json(res);
  };
  const post = (path: string) => app.request(path, { method: 'POST' });

  it('cancels a running task: the document fails with the reason and keeps no graph data', async () => {
    const { id, task_id } = await queue('cancel-me');
    const scope = { workspaceId: app.workspace };
    // Cancel once the merge has written to the graph, so the cancellation has something to undo.
    await waitForTaskWhere(app, task_id, (t) => t.stages.embedding === 'running', 'the embedding stage');
    expect((await app.rt.stores.graph.entitiesOfDocument(scope, id)).length).toBeGreaterThan(0);
    const res = await post(`/api/v1/tasks/${task_id}/cancel`);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ id: task_id, status: 'cancelled', message: 'cancellation requested' });

    const task = await waitForTask(app, task_id, ['cancelled']);
    expect(task.finished_at).not.toBeNull();
    const doc = await json(await app.request(`/api/v1/documents/${id}`));
    expect(doc).toMatchObject({ status: 'failed', error: 'cancelled by request', chunk_count: 0, entity_count: 0 });
    expect(await app.rt.stores.chunks.listByDocument(scope, id)).toEqual([]);
    expect(await app.rt.stores.graph.entitiesOfDocument(scope, id)).toEqual([]);
  });

  it('retries a cancelled task as a new pending task that completes', async () => {
    const { id, task_id } = await queue('retry-me');
    await waitForTask(app, task_id, ['running']);
    await post(`/api/v1/tasks/${task_id}/cancel`);
    await waitForTask(app, task_id, ['cancelled']);
    const res = await post(`/api/v1/tasks/${task_id}/retry`);
    expect(res.status).toBe(200);
    const retried = await json(res);
    expect(retried).toMatchObject({ status: 'pending', message: 'queued for retry' });
    expect(retried.id).not.toBe(task_id);
    const task = await waitForTask(app, retried.id);
    expect(task).toMatchObject({ status: 'completed', retry_of: task_id, document_id: id, progress: 100 });
    expect(await json(await app.request(`/api/v1/documents/${id}`))).toMatchObject({ status: 'completed', task_id: retried.id });
  });

  it('refuses to cancel or retry a finished task with 409, and answers 404 for unknown tasks', async () => {
    const { task_id } = await queue('finished');
    await waitForTask(app, task_id);
    const cancel = await post(`/api/v1/tasks/${task_id}/cancel`);
    expect(cancel.status).toBe(409);
    expect((await json(cancel)).detail).toMatch(/already completed/);
    const retry = await post(`/api/v1/tasks/${task_id}/retry`);
    expect(retry.status).toBe(409);
    expect((await json(retry)).detail).toMatch(/only failed or cancelled tasks can be retried/);
    for (const res of [await app.request('/api/v1/tasks/unknown'), await post('/api/v1/tasks/unknown/cancel'), await post('/api/v1/tasks/unknown/retry')]) {
      expect(res.status).toBe(404);
      expect((await json(res)).detail).toContain("task 'unknown' not found");
    }
    expect((await app.request('/api/v1/documents/track/unknown')).status).toBe(404);
  });

  it('lists tasks newest first with status filter and pagination', async () => {
    const all = await json(await app.request('/api/v1/tasks'));
    expect(all.total).toBeGreaterThanOrEqual(4);
    expect(Object.keys(all.tasks[0]).sort()).toEqual(['document_id', 'id', 'progress', 'started_at', 'status', 'type', 'updated_at']);
    const cancelled = await json(await app.request('/api/v1/tasks?status=cancelled'));
    expect(cancelled.total).toBe(2);
    expect(cancelled.tasks.every((t: { status: string }) => t.status === 'cancelled')).toBe(true);
    const page = await json(await app.request('/api/v1/tasks?limit=1&offset=1'));
    expect(page.tasks).toHaveLength(1);
    expect(page.tasks[0].id).toBe(all.tasks[1].id);
    const bad = await app.request('/api/v1/tasks?status=sleeping');
    expect(bad.status).toBe(422);
  });
});

describe('tasks across deletion, shutdown and restart', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ SERVICE_MOCK_LATENCY_MS: '150' });
  });
  afterAll(async () => {
    await app.close();
  });

  const queue = async (seed: string) =>
    json(await app.request('/api/v1/documents', { method: 'POST', json: { content: prose(seed), async_processing: true } }));

  it('cancels the running task of a deleted document and leaves nothing of it behind', async () => {
    const { id, task_id } = await queue('delete-while-running');
    await waitForTaskWhere(app, task_id, (t) => t.stages.embedding === 'running', 'the embedding stage');
    const res = await app.request(`/api/v1/documents/${id}`, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect((await json(await app.request(`/api/v1/tasks/${task_id}`))).status).toBe('cancelled');
    const scope = { workspaceId: app.workspace };
    expect(await app.rt.stores.documents.get(scope, id)).toBeNull();
    expect(await app.rt.stores.chunks.listByDocument(scope, id)).toEqual([]);
    expect(await app.rt.stores.graph.entitiesOfDocument(scope, id)).toEqual([]);
  });

  it('puts running tasks back in the queue on shutdown and finishes them after a restart', async () => {
    const { id, task_id } = await queue('interrupted');
    await waitForTask(app, task_id, ['running']);
    await app.rt.tasks.close();
    const task = await json(await app.request(`/api/v1/tasks/${task_id}`));
    expect(task).toMatchObject({ status: 'pending', progress: 0 });
    expect((await json(await app.request(`/api/v1/documents/${id}`))).status).toBe('processing');
    await app.rt.tasks.start();
    expect((await waitForTask(app, task_id)).status).toBe('completed');
    expect((await json(await app.request(`/api/v1/documents/${id}`))).status).toBe('completed');
  });
});

describe('start-up recovery', () => {
  it('queues again the tasks this instance left running and the documents stuck without a task', async () => {
    const app = await startTestApp({}, { start: false });
    try {
      const scope = { workspaceId: app.workspace };
      const running = await json(
        await app.request('/api/v1/documents', { method: 'POST', json: { content: prose('left-running'), async_processing: true } }),
      );
      const stuck = await json(
        await app.request('/api/v1/documents', { method: 'POST', json: { content: prose('left-stuck'), async_processing: true } }),
      );
      const far = new Date(Date.now() + 3_600_000).toISOString();
      await app.rt.stores.tasks.update(scope, running.task_id, { status: 'running', lease_owner: app.config.instanceId, lease_expires_at: far });
      await app.rt.stores.tasks.update(scope, stuck.task_id, { status: 'failed', error: 'worker died' });

      await app.rt.start();
      expect((await waitForTask(app, running.task_id)).status).toBe('completed');
      const doc = await json(await app.request(`/api/v1/documents/${stuck.id}`));
      expect(doc.task_id).not.toBe(stuck.task_id);
      expect((await waitForTask(app, doc.task_id)).status).toBe('completed');
      expect((await json(await app.request(`/api/v1/documents/${stuck.id}`))).status).toBe('completed');
    } finally {
      await app.close();
    }
  });
});
