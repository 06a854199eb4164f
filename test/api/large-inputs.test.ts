import { startTestApp, type TestApp } from '../helpers/app';
import { json, upload, waitForTask, waitForTaskWhere } from '../fixtures/documents';

const MB = 1024 * 1024;

/** About `bytes` of prose naming a few people, organisations and places over and over. */
function largeText(bytes: number): string {
  const names = ['Alice Johnson', 'Bob Smith', 'Carol White', 'Dana Lee'];
  const places = ['Berlin', 'Paris', 'Madrid'];
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const s = `${names[i % 4]} of Acme Corporation met ${names[(i * 3 + 1) % 4]} in ${places[i % 3]} about project ${i % 997}.${i % 8 === 7 ? '\n\n' : ' '}`;
    parts.push(s);
    size += s.length;
  }
  return parts.join('');
}

describe('large inputs and the event loop', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers /health while a 2.5 MB text upload is chunked, extracted and merged', async () => {
    const res = await upload(app, { name: 'large.txt', data: largeText(2.5 * MB), type: 'text/plain' }, { async_processing: 'true' });
    expect(res.status).toBe(202);
    const { task_id } = await json(res);
    await waitForTaskWhere(app, task_id, (task) => task.stages.chunking !== 'pending', 'chunking', 60_000);

    // Each probe is answered while the document is still being processed, not once it is done.
    for (let probe = 0; probe < 5; probe++) {
      const health = await app.request('/health');
      expect(health.status).toBe(200);
      const task = await json(await app.request(`/api/v1/tasks/${task_id}`));
      expect(task.status).toBe('running');
    }

    const done = await waitForTask(app, task_id, undefined, 180_000);
    expect(done.status).toBe('completed');
    const doc = await json(await app.request(`/api/v1/documents/${done.document_id}`));
    expect(doc.status).toBe('completed');
    expect(doc.chunk_count).toBeGreaterThan(400);
  }, 240_000);
});
