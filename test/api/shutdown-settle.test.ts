import { json, prose } from '../fixtures/documents';
import { startTestApp } from '../helpers/app';

/**
 * Shutdown (src/services/tasks/queue.ts close): the queue stops claiming, a running task stops at its next safe
 * point, its run is undone and the task goes back to the queue, and only then does close resolve, so the stores
 * close after it. Here the undo is slowed past the few seconds a shutdown used to wait.
 */
jest.setTimeout(60_000);

test('shutdown waits for a running task to be undone and put back in the queue before it lets the stores close', async () => {
  const app = await startTestApp({ WORKER_THREADS: '1', SERVICE_MOCK_LATENCY_MS: '300' });
  try {
    const scope = { workspaceId: app.workspace };
    const { chunks, tasks, documents } = app.rt.stores;
    const deleteByDocument = chunks.deleteByDocument.bind(chunks);
    let slowUndo = false;
    chunks.deleteByDocument = async (...args) => {
      if (slowUndo) await new Promise((resolve) => setTimeout(resolve, 7_000));
      return deleteByDocument(...args);
    };
    const res = await app.request('/api/v1/documents', {
      method: 'POST',
      json: { content: prose('shutdown-settle', 6), async_processing: true },
    });
    expect(res.status).toBe(202);
    const { task_id, document_id } = await json(res);
    for (;;) {
      const task = await tasks.get(scope, task_id);
      if (task?.stages.extraction === 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    slowUndo = true;
    await app.rt.tasks.close();

    expect(await tasks.get(scope, task_id)).toMatchObject({ status: 'pending', lease_owner: null, lease_expires_at: null });
    expect(await documents.get(scope, document_id)).toMatchObject({ status: 'processing', task_id, error: null });
    expect(await chunks.listByDocument(scope, document_id)).toEqual([]);
  } finally {
    await app.close();
  }
});
