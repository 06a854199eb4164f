import { readEvents } from '../fixtures/streams';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * The HTTP side of a shutdown (src/http/drain.ts) on the real app: once draining, new requests get a 503 problem
 * with Retry-After and Connection: close, /ready says not ready while /live stays up, and open event streams end
 * with their final event. The process side (signals, exit codes) is test/integration/shutdown.test.ts.
 */
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app.close();
});

describe('draining', () => {
  it('ends open event streams with a final event, refuses new requests and reports not ready', async () => {
    const graph = readEvents(await app.request('/api/v1/graph/stream', { headers: { Accept: 'text/event-stream' } }));
    await graph.waitFor(() => true);
    expect(await app.request('/ready').then((r) => r.status)).toBe(200);
    expect(app.drain.pending).toBeGreaterThan(0);

    app.drain.begin();
    const events = await graph.ended;
    expect(events.at(-1)).toEqual({ type: 'error', message: expect.stringMatching(/^the service is shutting down/) });
    expect(await app.drain.idle(10_000)).toBe(true);

    const refused = await app.request('/api/v1/documents');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.headers.get('connection')).toBe('close');
    expect(await refused.json()).toMatchObject({ status: 503, detail: expect.stringMatching(/shutting down/) });

    const ready = await app.request('/ready');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'not_ready', shutting_down: true });
    const live = await app.request('/live');
    expect(live.status).toBe(200);
  });
});
