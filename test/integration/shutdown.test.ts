import { readEvents } from '../fixtures/streams';
import { type LogLine, type ServiceProcess, startService } from '../fixtures/service-process';

/**
 * SIGTERM on the real service process (src/main.ts): requests in flight finish, event streams end with a final
 * event, new requests are refused, and the process exits 0; a second signal, or the grace period running out,
 * exits at once with 1. Runs on the embedded stores, and on Neo4j in the persistent pass.
 */
jest.setTimeout(120_000);

const run = Date.now().toString(36);
const services: ServiceProcess[] = [];

afterAll(async () => {
  for (const service of services) await service.kill('SIGKILL');
});

async function start(name: string, env: Record<string, string>): Promise<ServiceProcess> {
  const service = await startService(`shutdown-${name}-${run}`, null, env);
  services.push(service);
  return service;
}

async function logged(service: ServiceProcess, msg: string, timeoutMs = 30_000): Promise<LogLine> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = service.logs.find((l) => l.msg === msg);
    if (line) return line;
    if (Date.now() > deadline) throw new Error(`no log line '${msg}' within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Sent and on its way: the service holds it while the mock model waits. */
function slowQuery(service: ServiceProcess) {
  return service.request('/api/v1/query', { method: 'POST', json: { query: 'What is kept when the service stops?', mode: 'bypass' } });
}

describe('SIGTERM', () => {
  it('finishes the request in flight, ends event streams with a final event, refuses new requests and exits 0', async () => {
    const service = await start('graceful', { SERVICE_MOCK_LATENCY_MS: '2000', SERVICE_MOCK_TOKEN_DELAY_MS: '100' });
    const graph = readEvents(await service.request('/api/v1/graph/stream', { headers: { Accept: 'text/event-stream' } }));
    await graph.waitFor(() => true);
    const answer = readEvents(
      await service.request('/api/v1/query/stream', {
        method: 'POST',
        json: { query: 'Tell me a long story', mode: 'bypass' },
        headers: { Accept: 'text/event-stream' },
      }),
    );
    await answer.waitFor((e) => e.type === 'token');
    const inFlight = slowQuery(service);
    await new Promise((resolve) => setTimeout(resolve, 500));

    service.signal('SIGTERM');
    await logged(service, 'shutting down');
    const late = await service.request('/api/v1/documents').then(
      (res) => res.status,
      () => 'refused',
    );
    expect([503, 'refused']).toContain(late);

    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { answer: string }).answer.length).toBeGreaterThan(0);
    const answerEvents = await answer.ended;
    expect(answerEvents.some((e) => e.type === 'done')).toBe(false);
    expect(answerEvents.at(-1)).toMatchObject({ type: 'error', error: { status: 503, detail: expect.stringMatching(/shutting down/) } });
    const graphEvents = await graph.ended;
    expect(graphEvents.at(-1)).toEqual({ type: 'error', message: expect.stringMatching(/shutting down/) });

    expect(await service.exited).toEqual({ code: 0, signal: null });
    expect(service.logs.map((l) => l.msg)).toEqual(expect.arrayContaining(['requests and streams finished', 'stopped']));
    expect(service.logs.find((l) => l.msg === 'grace period over: exiting at once')).toBeUndefined();
  });

  it('exits at once with 1 when the grace period runs out', async () => {
    const service = await start('grace', { SERVICE_MOCK_LATENCY_MS: '20000', SERVICE_SHUTDOWN_GRACE_MS: '300' });
    const inFlight = slowQuery(service).catch((err: Error) => err);
    await new Promise((resolve) => setTimeout(resolve, 500));
    service.signal('SIGTERM');
    expect(await service.exited).toEqual({ code: 1, signal: null });
    expect(String(await inFlight)).toMatch(/fetch failed/);
    expect(service.logs.map((l) => l.msg)).toContain('grace period over: exiting at once');
    expect(service.logs.map((l) => l.msg)).not.toContain('stopped');
  });

  it('exits at once with 1 on a second SIGTERM', async () => {
    const service = await start('twice', { SERVICE_MOCK_LATENCY_MS: '20000' });
    const inFlight = slowQuery(service).catch((err: Error) => err);
    await new Promise((resolve) => setTimeout(resolve, 500));
    service.signal('SIGTERM');
    await logged(service, 'shutting down');
    service.signal('SIGTERM');
    expect(await service.exited).toEqual({ code: 1, signal: null });
    expect(String(await inFlight)).toMatch(/fetch failed/);
    expect(service.logs.map((l) => l.msg)).toContain('second signal: exiting at once');
    expect(service.logs.map((l) => l.msg)).not.toContain('grace period over: exiting at once');
  });
});
