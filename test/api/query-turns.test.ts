import { startTestApp, type TestApp } from '../helpers/app';

/**
 * Query turns (src/http/middleware/admission.ts): a workspace's queries run SERVICE_QUERIES_RUNNING_PER_WORKSPACE at
 * a time; the others wait their turn, and one that waited SERVICE_QUERY_WAIT_MS without it is refused with 429 and
 * Retry-After. The mock model holds each bypass query for SERVICE_MOCK_LATENCY_MS.
 */
jest.setTimeout(60_000);

const ask = (app: TestApp, workspace?: string) =>
  app.request('/api/v1/query', {
    method: 'POST',
    json: { query: 'Whose turn is it?', mode: 'bypass' },
    ...(workspace ? { workspace } : {}),
  });

/** Sent, then given time to reach the service, where the mock model holds it. */
async function held<T>(request: Promise<T>): Promise<{ answer: Promise<T> }> {
  await new Promise((resolve) => setTimeout(resolve, 400));
  return { answer: request };
}

describe('a query that waits longer than the wait allowed', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({
      SERVICE_MOCK_LATENCY_MS: '2000',
      SERVICE_QUERIES_RUNNING_PER_WORKSPACE: '1',
      SERVICE_QUERY_WAIT_MS: '200',
    });
  });
  afterAll(async () => {
    await app.close();
  });

  it('is refused with 429 and Retry-After while the workspace runs its one query; other workspaces run meanwhile', async () => {
    const first = await held(ask(app));
    const refused = await ask(app);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/run 1 at a time and this one waited 200 ms/);
    expect((await ask(app, 'other')).status).toBe(200);
    expect((await first.answer).status).toBe(200);
    expect((await ask(app)).status).toBe(200);
  });
});

describe('queries past the running cap', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({
      SERVICE_MOCK_LATENCY_MS: '600',
      SERVICE_QUERIES_RUNNING_PER_WORKSPACE: '1',
      SERVICE_QUERY_WAIT_MS: '30000',
    });
  });
  afterAll(async () => {
    await app.close();
  });

  it('wait for their turn and are all answered', async () => {
    const answers = await Promise.all([ask(app), ask(app), ask(app)]);
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
  });
});
