import { json, prose } from '../fixtures/documents';
import { startTestApp } from '../helpers/app';

/**
 * A claim whose answer comes back while the task queue is closing (the store round trip was under way when the
 * shutdown began) puts the task back in the queue instead of running it past the shutdown.
 */
test('a task claimed while the queue closes goes back to the queue, not run', async () => {
  const app = await startTestApp({ WORKER_THREADS: '1', SERVICE_MOCK_LATENCY_MS: '20' });
  try {
    const tasks = app.rt.stores.tasks;
    const claimNext = tasks.claimNext.bind(tasks);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let claimedOne!: () => void;
    const claimed = new Promise<void>((resolve) => (claimedOne = resolve));
    let first = true;
    tasks.claimNext = async (...args) => {
      const claim = await claimNext(...args);
      if (claim && first) {
        first = false;
        claimedOne();
        await gate;
      }
      return claim;
    };
    const res = await app.request('/api/v1/documents', {
      method: 'POST',
      json: { content: prose('closing-claim', 6), async_processing: true },
    });
    expect(res.status).toBe(202);
    const { task_id } = await json(res);
    await claimed;
    const closing = app.rt.tasks.close();
    release();
    await closing;
    const task = await tasks.get({ workspaceId: app.workspace }, task_id);
    expect(task).toMatchObject({ status: 'pending', lease_owner: null, lease_expires_at: null });
  } finally {
    await app.close();
  }
});
