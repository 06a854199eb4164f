import { startTestApp, type TestApp } from '../helpers/app';

/**
 * Bounded queues (src/http/middleware/admission.ts): queries and uploads held at once are capped per workspace
 * (429) and in all (503), both with Retry-After; a slot frees when its response is written out.
 */
jest.setTimeout(60_000);

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({
    SERVICE_MOCK_LATENCY_MS: '1500',
    SERVICE_MAX_QUERIES_IN_FLIGHT: '3',
    SERVICE_MAX_QUERIES_IN_FLIGHT_PER_WORKSPACE: '2',
    SERVICE_MAX_UPLOADS_IN_FLIGHT: '2',
    SERVICE_MAX_UPLOADS_IN_FLIGHT_PER_WORKSPACE: '1',
  });
});

afterAll(async () => {
  await app.close();
});

const query = (workspace?: string) =>
  app.request('/api/v1/query', {
    method: 'POST',
    json: { query: 'Which queue is this?', mode: 'bypass' },
    ...(workspace ? { workspace } : {}),
  });

/** Sent, then given time to reach the service, where the mock model holds them. */
async function holding<T>(requests: Array<Promise<T>>): Promise<Array<Promise<T>>> {
  await new Promise((resolve) => setTimeout(resolve, 400));
  return requests;
}

async function expectRefused(res: Response, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get('retry-after')).toBe('1');
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  return (await res.json()) as { detail: string };
}

describe('bounded queues', () => {
  it('refuses a query past the workspace cap with 429 and past the global cap with 503, then admits again', async () => {
    const held = await holding([query(), query()]);
    expect((await expectRefused(await query(), 429)).detail).toMatch(/this workspace has 2 queries in progress/);
    const other = await holding([query('other')]);
    expect((await expectRefused(await query('third'), 503)).detail).toMatch(/holds 3 queries at once/);
    for (const res of await Promise.all([...held, ...other])) expect(res.status).toBe(200);
    expect((await query()).status).toBe(200);
  });

  it('counts a query stream until it ends', async () => {
    const stream = await app.request('/api/v1/query/stream', {
      method: 'POST',
      json: { query: 'stream it', mode: 'bypass' },
      headers: { Accept: 'text/event-stream' },
    });
    const second = await holding([query()]);
    await expectRefused(await query(), 429);
    await stream.text();
    await Promise.all(second);
    expect((await query()).status).toBe(200);
  });

  it('caps uploads in flight and leaves no document behind a refusal', async () => {
    const content = 'Alice Johnson works with Bob Smith at Acme Corporation in Berlin.';
    const first = await holding([app.request('/api/v1/documents', { method: 'POST', json: { content } })]);
    await expectRefused(await app.request('/api/v1/documents', { method: 'POST', json: { content: `${content} Again.` } }), 429);
    expect((await first[0]).status).toBe(201);
    const list = (await (await app.request('/api/v1/documents')).json()) as { total?: number; documents?: unknown[] };
    expect(list.total ?? list.documents?.length).toBe(1);
  });
});
