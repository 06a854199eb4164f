import { newId } from '../../src/domain/ids';
import { startTestApp, type TestApp } from '../helpers/app';
import { EMPTY_COUNTS, json, processingDocument, prose, storedCounts, waitForTask } from '../fixtures/documents';
import { markerFailingProviders } from '../fixtures/providers';

describe('asynchronous processing and deletion', () => {
  let app: TestApp;

  beforeAll(async () => {
    // A small async threshold: the second document is queued for its size alone.
    app = await startTestApp({ SERVICE_ASYNC_THRESHOLD_BYTES: '2000' });
  });
  afterAll(async () => {
    await app.close();
  });

  const create = (body: unknown) => app.request('/api/v1/documents', { method: 'POST', json: body });

  it('queues a document, runs every stage and completes the task with stats', async () => {
    const res = await create({ content: prose('async-stages', 8), async_processing: true });
    expect(res.status).toBe(202);
    const { id, task_id } = await json(res);
    const task = await waitForTask(app, task_id);
    expect(task).toMatchObject({
      id: task_id,
      type: 'document_processing',
      status: 'completed',
      progress: 100,
      document_id: id,
      mode: 'full',
      error: null,
      retry_of: null,
      stages: { chunking: 'completed', extraction: 'completed', merging: 'completed', embedding: 'completed' },
    });
    expect(task.stats.chunks_total).toBeGreaterThanOrEqual(1);
    expect(task.stats.chunks_processed).toBe(task.stats.chunks_total);
    expect(task.stats.entities_found).toBeGreaterThan(0);
    expect(task.stats.relationships_found).toBeGreaterThan(0);
    expect(Date.parse(task.finished_at)).toBeGreaterThanOrEqual(Date.parse(task.created_at));

    const tracked = await json(await app.request(`/api/v1/documents/track/${task_id}`));
    expect(tracked).toEqual(task);
    const doc = await json(await app.request(`/api/v1/documents/${id}`));
    expect(doc).toMatchObject({ status: 'completed', task_id, error: null });
    expect(doc.chunk_count).toBe(task.stats.chunks_total);
  });

  it('queues content over the asynchronous threshold without being asked', async () => {
    const res = await create({ content: prose('big-enough', 40) });
    expect(res.status).toBe(202);
    const { task_id } = await json(res);
    expect((await waitForTask(app, task_id)).status).toBe('completed');
  });

  it('reports the effect of a deletion, then leaves no orphans once every document is deleted', async () => {
    const ids: string[] = [];
    for (const seed of ['del-1', 'del-2', 'del-3']) ids.push((await json(await create({ content: prose(seed) }))).id);
    const impact = await json(await app.request(`/api/v1/documents/${ids[0]}/deletion-impact`));
    expect(impact.document_id).toBe(ids[0]);
    expect(impact.entities_affected).toBeGreaterThan(0);
    expect(impact.entities_affected).toBe(impact.entities_to_delete + impact.entities_to_update);
    expect(impact.relationships_affected).toBe(impact.relationships_to_delete + impact.relationships_to_update);

    const all = await json(await app.request('/api/v1/documents?limit=1000'));
    for (const doc of all.documents) {
      const res = await app.request(`/api/v1/documents/${doc.id}`, { method: 'DELETE' });
      expect(res.status).toBe(204);
      expect(await res.text()).toBe('');
    }
    expect(await storedCounts(app)).toEqual(EMPTY_COUNTS);
    expect((await app.request(`/api/v1/documents/${ids[0]}`)).status).toBe(404);
  });

  it('queues documents stuck in processing without a live task (recover-stuck)', async () => {
    const scope = { workspaceId: app.workspace };
    const stuck = processingDocument('stuck');
    await app.rt.stores.documents.insert(scope, stuck);
    const res = await app.request('/api/v1/documents/recover-stuck', { method: 'POST' });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ recovered: 1 });
    expect(body.task_ids).toHaveLength(1);
    expect((await waitForTask(app, body.task_ids[0])).status).toBe('completed');
    expect((await json(await app.request(`/api/v1/documents/${stuck.id}`))).status).toBe('completed');
    const again = await json(await app.request('/api/v1/documents/recover-stuck', { method: 'POST' }));
    expect(again).toMatchObject({ recovered: 0, task_ids: [] });
  });

  it('leaves a document to its admission while the admission has not written its task yet', async () => {
    const scope = { workspaceId: app.workspace };
    const store = app.rt.stores.tasks;
    const insert = store.insert.bind(store);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    // The admission stores the document, then its task: that task's write waits here until released.
    store.insert = async (...args) => {
      store.insert = insert;
      holding();
      await released;
      return insert(...args);
    };
    try {
      const created = create({ content: prose('admission-window') });
      await held;
      const [doc] = (await app.rt.stores.documents.list(scope, { status: 'processing', limit: 10, offset: 0 })).items;
      expect(await app.rt.stores.tasks.get(scope, doc.task_id!)).toBeNull();
      const recovery = await json(await app.request('/api/v1/documents/recover-stuck', { method: 'POST' }));
      expect(recovery).toMatchObject({ recovered: 0, task_ids: [] });
      release();
      const res = await created;
      expect(res.status).toBe(201);
      expect(await json(res)).toMatchObject({ id: doc.id, status: 'completed' });
      const tasks = await json(await app.request('/api/v1/tasks?limit=100'));
      expect(tasks.tasks.filter((t: { document_id: string }) => t.document_id === doc.id)).toHaveLength(1);
    } finally {
      release();
      store.insert = insert;
    }
  });

  it('queues a document whose task was never written once it is older than a task lease', async () => {
    const scope = { workspaceId: app.workspace };
    const longAgo = new Date(Date.now() - app.config.taskLeaseMs - 1000).toISOString();
    const orphan = processingDocument('orphan', { at: longAgo, taskId: newId() });
    await app.rt.stores.documents.insert(scope, orphan);
    const body = await json(await app.request('/api/v1/documents/recover-stuck', { method: 'POST' }));
    expect(body).toMatchObject({ recovered: 1 });
    expect((await waitForTask(app, body.task_ids[0])).status).toBe('completed');
    expect((await json(await app.request(`/api/v1/documents/${orphan.id}`))).status).toBe('completed');
  });
});

describe('failed chunks, retry-chunks and reprocess', () => {
  const MARKER = 'Zyxwvutsrq';
  let app: TestApp;
  let failing: ReturnType<typeof markerFailingProviders>;

  beforeAll(async () => {
    app = await startTestApp(
      { SERVICE_LLM_RETRIES: '0', SERVICE_CHUNK_TOKENS: '60', SERVICE_CHUNK_OVERLAP_TOKENS: '0' },
      { providers: (built) => (failing = markerFailingProviders(built, MARKER)).registry },
    );
  });
  afterAll(async () => {
    await app.close();
  });

  /** Several small chunks; only the last one names the marker. */
  const content = `${prose('retry-a', 5)}\n\n${prose('retry-b', 5)}\n\n${prose('retry-c', 4)} ${MARKER} Corporation hired Ada Lovelace.`;

  it('fails the document when one chunk fails, lists the failed chunk, and retries only that chunk', async () => {
    failing.state.failing = true;
    const res = await app.request('/api/v1/documents', { method: 'POST', json: { content } });
    expect(res.status).toBe(201);
    const created = await json(res);
    expect(created.status).toBe('failed');
    expect(created.error).toEqual(expect.any(String));
    const doc = await json(await app.request(`/api/v1/documents/${created.id}`));
    expect(doc.status).toBe('failed');

    const failedRes = await json(await app.request(`/api/v1/documents/${created.id}/failed-chunks`));
    expect(failedRes.total).toBe(1);
    expect(failedRes.failed_chunks[0].chunk_id).toBe(`${created.id}-chunk-${failedRes.failed_chunks[0].index}`);
    expect(failedRes.failed_chunks[0].error).toMatch(/provider unavailable/);
    const chunks = await app.rt.stores.chunks.listByDocument({ workspaceId: app.workspace }, created.id);
    expect(chunks.length).toBeGreaterThan(1);

    failing.state.failing = false;
    failing.state.calls = [];
    const retry = await app.request(`/api/v1/documents/${created.id}/retry-chunks`, { method: 'POST' });
    expect(retry.status).toBe(200);
    const queued = await json(retry);
    expect(queued).toMatchObject({ document_id: created.id, failed_chunks: 1 });
    const task = await waitForTask(app, queued.task_id);
    expect(task).toMatchObject({ status: 'completed', mode: 'retry_chunks', progress: 100 });

    const extraction = failing.state.calls.filter((c) => c.task === 'extract' || c.task === 'glean');
    expect(extraction.length).toBeGreaterThan(0);
    expect(extraction.every((c) => c.prompt.includes(MARKER))).toBe(true);
    const after = await json(await app.request(`/api/v1/documents/${created.id}`));
    expect(after).toMatchObject({ status: 'completed', error: null });
    expect((await json(await app.request(`/api/v1/documents/${created.id}/failed-chunks`))).total).toBe(0);
  });

  it('refuses retry-chunks with 409 for a document that is not failed, and 404 when absent', async () => {
    const ok = await json(await app.request('/api/v1/documents', { method: 'POST', json: { content: prose('fine') } }));
    const res = await app.request(`/api/v1/documents/${ok.id}/retry-chunks`, { method: 'POST' });
    expect(res.status).toBe(409);
    expect((await json(res)).detail).toMatch(/is completed/);
    expect((await app.request('/api/v1/documents/absent/retry-chunks', { method: 'POST' })).status).toBe(404);
    expect((await app.request('/api/v1/documents/absent/failed-chunks')).status).toBe(404);
  });

  it('reprocesses every failed document with a new full run', async () => {
    failing.state.failing = true;
    const created = await json(
      await app.request('/api/v1/documents', { method: 'POST', json: { content: `${content} Reprocessing edition.` } }),
    );
    expect(created.status).toBe('failed');
    failing.state.failing = false;
    const res = await app.request('/api/v1/documents/reprocess', { method: 'POST' });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ queued: 1 });
    const task = await waitForTask(app, body.task_ids[0]);
    expect(task).toMatchObject({ status: 'completed', mode: 'full', document_id: created.id });
    expect((await json(await app.request(`/api/v1/documents/${created.id}`))).status).toBe('completed');
    expect(await json(await app.request('/api/v1/documents/reprocess', { method: 'POST' }))).toMatchObject({ queued: 0 });
  });
});
