import { startTestApp, type TestApp } from '../helpers/app';

/**
 * Bounded ingestion queue (src/services/documents/backlog.ts): documents waiting for processing (open tasks) are
 * capped per workspace (429) and in all (503), both with Retry-After and a problem; a refused upload stores nothing,
 * and room frees as tasks finish or are cancelled.
 */
jest.setTimeout(60_000);

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({
    // Every task stays open for the length of the test: one worker, and a slow mock model.
    WORKER_THREADS: '1',
    SERVICE_MOCK_LATENCY_MS: '20000',
    SERVICE_MAX_QUEUED_DOCUMENTS: '3',
    SERVICE_MAX_QUEUED_DOCUMENTS_PER_WORKSPACE: '2',
  });
});

afterAll(async () => {
  await app?.close();
});

let n = 0;
const upload = (workspace?: string) =>
  app.request('/api/v1/documents', {
    method: 'POST',
    json: { content: `Note ${n++}: Ada Lovelace wrote about the Analytical Engine.`, async_processing: true },
    ...(workspace ? { workspace } : {}),
  });

async function expectRefused(res: Response, status: number): Promise<string> {
  expect(res.status).toBe(status);
  expect(res.headers.get('retry-after')).toBe('5');
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  return ((await res.json()) as { detail: string }).detail;
}

const documentCount = async (workspace?: string) =>
  ((await (await app.request('/api/v1/documents', workspace ? { workspace } : {})).json()) as { total: number }).total;

describe('bounded ingestion queue', () => {
  it('refuses uploads past the workspace cap with 429 and past the instance cap with 503, and admits again once room frees', async () => {
    const first = await upload();
    expect(first.status).toBe(202);
    expect((await upload()).status).toBe(202);
    expect(await expectRefused(await upload(), 429)).toMatch(
      /this workspace has 2 documents waiting for processing and may queue at most 2/,
    );

    expect((await upload('second')).status).toBe(202);
    expect(await expectRefused(await upload('third'), 503)).toMatch(
      /the service has 3 documents waiting for processing and queues at most 3/,
    );

    // Files and batches count too; a batch is refused whole when the queue has no room for all of its files.
    const form = new FormData();
    form.append('files', new Blob(['Grace Hopper worked on COBOL.']), 'a.txt');
    form.append('files', new Blob(['Alan Turing worked at Bletchley Park.']), 'b.txt');
    await expectRefused(await app.request('/api/v1/documents/upload/batch', { method: 'POST', body: form, workspace: 'third' }), 503);
    const file = new FormData();
    file.append('file', new Blob(['Grace Hopper worked on COBOL.']), 'c.txt');
    await expectRefused(await app.request('/api/v1/documents/upload', { method: 'POST', body: file }), 503);

    // Refusals store nothing.
    expect(await documentCount()).toBe(2);
    expect(await documentCount('third')).toBe(0);

    // Cancelling the workspace's queued work makes room again.
    expect((await app.request('/api/v1/pipeline/cancel', { method: 'POST' })).status).toBeLessThan(300);
    const { task_id } = (await first.json()) as { task_id: string };
    await app.request(`/api/v1/tasks/${task_id}/cancel`, { method: 'POST' });
    expect((await upload()).status).toBe(202);
  });
});
