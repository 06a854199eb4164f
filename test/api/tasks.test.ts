import { newId } from '../../src/domain/ids';
import { createEntityLocks } from '../../src/records/locks';
import type { EmbeddingProvider, ProviderRegistry } from '../../src/llm/ports';
import { TaskQueue } from '../../src/services/tasks/queue';
import { startTestApp, type TestApp } from '../helpers/app';
import { json, processingDocument, prose, waitForTask, waitForTaskWhere } from '../fixtures/documents';

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

  it('cancels a running task: once the cancel answers, the task is cancelled and the document failed without graph data', async () => {
    const { id, task_id } = await queue('cancel-me');
    const scope = { workspaceId: app.workspace };
    // Cancel once the merge has written to the graph, so the cancellation has something to undo.
    await waitForTaskWhere(app, task_id, (t) => t.stages.embedding === 'running', 'the embedding stage');
    expect((await app.rt.stores.graph.entitiesOfDocument(scope, id)).length).toBeGreaterThan(0);
    const res = await post(`/api/v1/tasks/${task_id}/cancel`);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ id: task_id, status: 'cancelled', message: 'cancellation requested', track_id: task_id });

    // No polling: the cancel answers after the run has rolled back, in either storage mode.
    const task = await json(await app.request(`/api/v1/tasks/${task_id}`));
    expect(task).toMatchObject({ status: 'cancelled', error: 'cancelled by request' });
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
    for (const res of [
      await app.request('/api/v1/tasks/unknown'),
      await post('/api/v1/tasks/unknown/cancel'),
      await post('/api/v1/tasks/unknown/retry'),
    ]) {
      expect(res.status).toBe(404);
      expect((await json(res)).detail).toContain("task 'unknown' not found");
    }
    expect((await app.request('/api/v1/documents/track/unknown')).status).toBe(404);
  });

  it('lists tasks newest first with status filter and pagination', async () => {
    const all = await json(await app.request('/api/v1/tasks'));
    expect(all.total).toBeGreaterThanOrEqual(4);
    // The spec's fields, and EdgeQuake's names beside them.
    expect(Object.keys(all.tasks[0]).sort()).toEqual([
      'created_at',
      'document_id',
      'error_message',
      'id',
      'progress',
      'started_at',
      'status',
      'task_type',
      'track_id',
      'type',
      'updated_at',
    ]);
    expect(all.tasks[0]).toMatchObject({ track_id: all.tasks[0].id, task_type: all.tasks[0].type });
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
      await app.rt.stores.tasks.update(scope, running.task_id, {
        status: 'running',
        lease_owner: app.config.instanceId,
        lease_expires_at: far,
      });
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

describe('start-up recovery beside a worker', () => {
  it('leaves a document that its run finishes while the recovery looks at it', async () => {
    const app = await startTestApp({}, { start: false });
    try {
      const scope = { workspaceId: app.workspace };
      const { id, task_id } = await json(
        await app.request('/api/v1/documents', { method: 'POST', json: { content: prose('finished-meanwhile'), async_processing: true } }),
      );
      // The recovery lists the documents in processing; right after, the run ends as a worker ends it: the
      // document's outcome first, then its task's.
      const documents = app.rt.stores.documents;
      const list = documents.list.bind(documents);
      documents.list = async (at, query) => {
        const page = await list(at, query);
        if (query.status === 'processing' && page.items.some((d) => d.id === id)) {
          const now = new Date().toISOString();
          await documents.update(scope, id, { status: 'completed', processed_at: now, updated_at: now });
          await app.rt.stores.tasks.update(scope, task_id, { status: 'completed', finished_at: now, updated_at: now });
        }
        return page;
      };
      try {
        expect(await app.rt.documents.recoverStuckEverywhere()).toMatchObject({ recovered: 0 });
      } finally {
        documents.list = list;
      }
      expect(await app.rt.stores.documents.get(scope, id)).toMatchObject({ status: 'completed', task_id });
      expect((await app.rt.stores.tasks.list(scope, { limit: 10, offset: 0 })).total).toBe(1);
    } finally {
      await app.close();
    }
  });
});

describe('start-up recovery beside an admission', () => {
  it('leaves a document whose task is not written yet, and queues it once a lease has passed without it', async () => {
    const app = await startTestApp({ SERVICE_TASK_LEASE_MS: '1000' }, { start: false });
    try {
      const scope = { workspaceId: app.workspace };
      // Recovery looks at the workspaces that have tasks: this one has the task of an earlier document.
      const earlier = await app.request('/api/v1/documents', { method: 'POST', json: { content: prose('earlier') } });
      expect(earlier.status).toBe(201);
      // As an admission leaves it between its two writes: the document names a task that is not stored yet.
      const unwritten = newId();
      const doc = processingDocument('admitting', { taskId: unwritten });
      await app.rt.stores.documents.insert(scope, doc);
      await app.rt.start();
      expect(await app.rt.stores.documents.get(scope, doc.id)).toMatchObject({ status: 'processing', task_id: unwritten });
      // No task came: the second look, a lease later, queues the document.
      await until('the document is queued again', async () => (await app.rt.stores.documents.get(scope, doc.id))?.task_id !== unwritten);
      const queued = await app.rt.stores.documents.get(scope, doc.id);
      expect((await waitForTask(app, queued!.task_id!)).status).toBe('completed');
    } finally {
      await app.close();
    }
  });
});

describe('tasks left by an instance that died', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ SERVICE_TASK_LEASE_MS: '1000' });
  });
  afterAll(async () => {
    await app.close();
  });

  const scope = () => ({ workspaceId: app.workspace });
  /** A document processed into the graph; its task is then made to look like another instance's run. */
  const processed = async (seed: string) => {
    const res = await app.request('/api/v1/documents', { method: 'POST', json: { content: prose(seed) } });
    expect(res.status).toBe(201);
    const doc = (await app.rt.stores.documents.get(scope(), (await json(res)).id))!;
    expect((await app.rt.stores.graph.entitiesOfDocument(scope(), doc.id)).length).toBeGreaterThan(0);
    return { id: doc.id, taskId: doc.task_id!, processedAt: doc.processed_at };
  };
  const runningElsewhere = (leaseMs: number) => ({
    status: 'running' as const,
    lease_owner: 'gone-instance',
    lease_expires_at: new Date(Date.now() + leaseMs).toISOString(),
    finished_at: null,
  });

  it('rolls back a cancelled run of a dead instance once its lease ends, and refuses a retry until then', async () => {
    const { id, taskId } = await processed('dead-owner-cancel');
    await app.rt.stores.documents.update(scope(), id, { status: 'processing' });
    await app.rt.stores.tasks.update(scope(), taskId, runningElsewhere(1500));

    const res = await app.request(`/api/v1/tasks/${taskId}/cancel`, { method: 'POST' });
    expect(await json(res)).toEqual({ id: taskId, status: 'cancelled', message: 'cancellation requested', track_id: taskId });
    // The owner may still be rolling back: a retry now could be undone by that rollback.
    const early = await app.request(`/api/v1/tasks/${taskId}/retry`, { method: 'POST' });
    expect(early.status).toBe(409);
    expect((await json(early)).detail).toContain('still rolling back');

    const deadline = Date.now() + 20_000;
    while ((await app.rt.stores.documents.get(scope(), id))?.status === 'processing') {
      if (Date.now() > deadline) throw new Error('the cancelled run was never rolled back');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await json(await app.request(`/api/v1/documents/${id}`))).toMatchObject({
      status: 'failed',
      error: 'cancelled by request',
      chunk_count: 0,
      entity_count: 0,
    });
    expect(await app.rt.stores.chunks.listByDocument(scope(), id)).toEqual([]);
    expect(await app.rt.stores.graph.entitiesOfDocument(scope(), id)).toEqual([]);
    const retry = await app.request(`/api/v1/tasks/${taskId}/retry`, { method: 'POST' });
    expect(retry.status).toBe(200);
    expect((await waitForTask(app, (await json(retry)).id)).status).toBe('completed');
  });

  it('records as completed, without running it again, a taken-over task whose document the dead instance had finished', async () => {
    const { id, taskId, processedAt } = await processed('dead-owner-finished');
    await app.rt.stores.tasks.update(scope(), taskId, runningElsewhere(-1000));
    const task = await waitForTask(app, taskId);
    expect(task).toMatchObject({ status: 'completed', progress: 100 });
    expect(await app.rt.stores.documents.get(scope(), id)).toMatchObject({ status: 'completed', processed_at: processedAt });
  });
});

describe('two tasks for one document', () => {
  it('fails the task the document no longer names while the other is live, leaving the document to that one', async () => {
    const app = await startTestApp({}, { start: false });
    try {
      const { id, task_id } = await json(
        await app.request('/api/v1/documents', { method: 'POST', json: { content: prose('two-tasks'), async_processing: true } }),
      );
      // A recovery that raced the admission queued the document again: the document now names the second task.
      const second = await app.rt.tasks.enqueue({ workspaceId: app.workspace }, id, 'full');
      await app.rt.start();
      const [first, next] = [await waitForTask(app, task_id), await waitForTask(app, second.id)];
      expect(first).toMatchObject({ status: 'failed', error: `document '${id}' is processed by task '${second.id}'` });
      expect(next.status).toBe('completed');
      expect(await json(await app.request(`/api/v1/documents/${id}`))).toMatchObject({ status: 'completed', task_id: second.id });
    } finally {
      await app.close();
    }
  });
});

/**
 * While `holding` is on, embedding calls wait until released, then fail with their run's abort reason: a run held
 * mid-way.
 */
function holdEmbeddings(base: ProviderRegistry) {
  const state = { holding: false };
  const signals: AbortSignal[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held = (embedder: EmbeddingProvider): EmbeddingProvider => ({
    provider: embedder.provider,
    model: embedder.model,
    dimension: embedder.dimension,
    embed: async (_texts, signal) => {
      if (signal) signals.push(signal);
      await released;
      throw signal?.reason ?? new Error('released without an abort');
    },
  });
  const registry: ProviderRegistry = {
    llm: (provider, model) => base.llm(provider, model),
    embedding: (provider, model) => (state.holding ? held(base.embedding(provider, model)) : base.embedding(provider, model)),
    hasProvider: (name) => base.hasProvider(name),
    defaultLlmProviderName: () => base.defaultLlmProviderName(),
    check: () => base.check(),
  };
  return { registry, state, signals, release };
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a run that lost its task lease', () => {
  it('aborts without rolling back or writing the document, leaving the result of the run that took the task over', async () => {
    let hold!: ReturnType<typeof holdEmbeddings>;
    const app = await startTestApp({ SERVICE_TASK_LEASE_MS: '1000' }, { providers: (built) => (hold = holdEmbeddings(built)).registry });
    try {
      const scope = { workspaceId: app.workspace };
      hold.state.holding = true;
      const { id, task_id } = await json(
        await app.request('/api/v1/documents', { method: 'POST', json: { content: prose('lease-lost'), async_processing: true } }),
      );
      await waitForTaskWhere(app, task_id, (t) => t.stages.embedding === 'running', 'the embedding stage');
      await until('the first run to embed', () => hold.signals.length > 0);
      hold.state.holding = false;

      // The first run's lease ran out unnoticed (a long pause): another instance claimed the task and runs it.
      const taken = await app.rt.stores.tasks.update(scope, task_id, {
        lease_owner: 'other-instance#takeover',
        lease_expires_at: new Date(Date.now() + 60_000).toISOString(),
      });
      const other = new TaskQueue({
        ...app.rt,
        providers: app.rt.providers,
        entityLocks: createEntityLocks(app.rt.stores.locks, app.rt.config.taskLeaseMs),
        config: { ...app.rt.config, instanceId: 'other-instance' },
      });
      expect((await other.runClaimed(scope, taken!)).status).toBe('completed');
      const done = (await app.rt.stores.documents.get(scope, id))!;
      expect(done).toMatchObject({ status: 'completed', task_id });
      const entities = (await app.rt.stores.graph.entitiesOfDocument(scope, id)).length;
      expect(entities).toBeGreaterThan(0);

      // The first run sees the lost lease at its next renewal, aborts, and only then gets its embeddings answered.
      await until('the first run to abort', () => hold.signals.every((signal) => signal.aborted));
      hold.release();
      await until('the first run to settle', async () => (await app.rt.tasks.pipelineStatus(scope)).workers.busy === 0);

      expect(await app.rt.stores.documents.get(scope, id)).toMatchObject({
        status: 'completed',
        error: null,
        chunk_count: done.chunk_count,
        entity_count: done.entity_count,
        processed_at: done.processed_at,
      });
      expect(await app.rt.stores.chunks.listByDocument(scope, id)).toHaveLength(done.chunk_count);
      expect((await app.rt.stores.graph.entitiesOfDocument(scope, id)).length).toBe(entities);
      expect(await app.rt.stores.tasks.get(scope, task_id)).toMatchObject({ status: 'completed', lease_owner: null });
    } finally {
      hold.state.holding = false;
      await app.close();
    }
  });
});
