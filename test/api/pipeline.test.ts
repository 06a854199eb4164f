import { startTestApp, type TestApp } from '../helpers/app';
import { json, prose, waitForTask } from '../fixtures/documents';
import { waitFor } from '../helpers/wait';

describe('pipeline status, bulk cancel and queue metrics', () => {
  let app: TestApp;

  beforeAll(async () => {
    // Workers start later, so queued tasks stay pending for the first checks.
    app = await startTestApp({}, { start: false });
  });
  afterAll(async () => {
    await app.close();
  });

  const queue = async (seed: string) =>
    json(await app.request('/api/v1/documents', { method: 'POST', json: { content: prose(seed), async_processing: true } }));
  const status = async () => json(await app.request('/api/v1/pipeline/status'));
  const metrics = async () => json(await app.request('/api/v1/pipeline/queue-metrics'));

  it('is idle with zero rates and latencies before any work', async () => {
    expect(await status()).toEqual({
      status: 'idle',
      active_tasks: 0,
      queue_depth: 0,
      workers: { total: 2, busy: 0, idle: 2 },
      rates: { documents_per_minute: 0, chunks_per_minute: 0, embeddings_per_minute: 0 },
      is_busy: false,
      total_documents: 0,
      processed_documents: 0,
      pending_tasks: 0,
      processing_tasks: 0,
      completed_tasks: 0,
      failed_tasks: 0,
      queued_tasks: 0,
      worker_count: 2,
    });
    expect(await metrics()).toEqual({
      queue: { pending: 0, running: 0, failed: 0 },
      throughput: { last_minute: 0, last_hour: 0, last_day: 0 },
      latency: { p50_ms: 0, p95_ms: 0, p99_ms: 0 },
      queue_depth: 0,
      processing: 0,
      completed_last_hour: 0,
      failed_last_hour: 0,
      avg_processing_time_ms: 0,
      estimated_wait_time_ms: 0,
    });
  });

  it('reports waiting tasks as paused while no worker runs, and cancels every pending task', async () => {
    const queued = [await queue('p-1'), await queue('p-2'), await queue('p-3')];
    expect(await status()).toMatchObject({ status: 'paused', queue_depth: 3, active_tasks: 0 });
    expect((await metrics()).queue).toEqual({ pending: 3, running: 0, failed: 0 });

    const res = await app.request('/api/v1/pipeline/cancel', { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ cancelled: 3, message: 'cancelled 3 pending task(s)' });
    for (const { id, task_id } of queued) {
      expect((await json(await app.request(`/api/v1/tasks/${task_id}`))).status).toBe('cancelled');
      expect(await json(await app.request(`/api/v1/documents/${id}`))).toMatchObject({ status: 'failed', error: 'cancelled by request' });
    }
    expect(await status()).toMatchObject({ status: 'idle', queue_depth: 0 });
    expect(await json(await app.request('/api/v1/pipeline/cancel', { method: 'POST' }))).toMatchObject({ cancelled: 0 });
  });

  it('counts real completions in the rates and computes nearest-rank latencies from task durations', async () => {
    const queued = [await queue('m-1'), await queue('m-2')];
    await app.rt.start();
    const tasks = await Promise.all(queued.map(({ task_id }) => waitForTask(app, task_id)));
    expect(tasks.map((t) => t.status)).toEqual(['completed', 'completed']);
    const chunks = tasks.reduce((n, t) => n + t.stats.chunks_total, 0);

    // A worker is released just after its task is written completed; on a shared Neo4j the workers may also be
    // running another workspace's task (every instance serves the whole queue).
    const s = await waitFor('the workers to be idle', status, (now) => now.workers.busy === 0, 20_000);
    expect(s).toMatchObject({ status: 'idle', active_tasks: 0, queue_depth: 0, workers: { total: 2, busy: 0, idle: 2 } });
    expect(s.rates.documents_per_minute).toBe(2);
    expect(s.rates.chunks_per_minute).toBe(chunks);
    expect(s.rates.embeddings_per_minute).toBeGreaterThan(chunks);

    const durations = tasks.map((t) => Date.parse(t.finished_at) - Date.parse(t.created_at)).sort((a, b) => a - b);
    expect(await metrics()).toEqual({
      queue: { pending: 0, running: 0, failed: 0 },
      throughput: { last_minute: 2, last_hour: 2, last_day: 2 },
      latency: { p50_ms: durations[0], p95_ms: durations[1], p99_ms: durations[1] },
      queue_depth: 0,
      processing: 0,
      completed_last_hour: 2,
      failed_last_hour: 0,
      avg_processing_time_ms: Math.round((durations[0] + durations[1]) / 2),
      estimated_wait_time_ms: 0,
    });
    // The three documents cancelled earlier count as documents, not as processed ones.
    const documents = await json(await app.request('/api/v1/documents?limit=1'));
    expect(documents.total).toBe(5);
    expect(await status()).toMatchObject({ is_busy: false, completed_tasks: 2, processed_documents: 2, total_documents: 5 });
  });

  it('keeps the rates of each workspace apart', async () => {
    const other = await json(await app.request('/api/v1/pipeline/status', { workspace: `${app.workspace}-quiet` }));
    expect(other.rates).toEqual({ documents_per_minute: 0, chunks_per_minute: 0, embeddings_per_minute: 0 });
  });
});
