import { type TestApp, startTestApp } from '../helpers/app';

/** POST /graph/cypher outside its one working setup (persistent mode with the switch on; see neo4j-cypher.test.ts). */
describe('graph cypher API', () => {
  let off: TestApp;

  beforeAll(async () => {
    off = await startTestApp();
  });
  afterAll(() => off.close());

  const ask = (app: TestApp, headers: Record<string, string> = {}) =>
    app.request('/api/v1/graph/cypher', { method: 'POST', json: { query: 'RETURN 1 AS one' }, headers });

  it('answers 501 problem details while raw Cypher is not enabled', async () => {
    const res = await ask(off);
    expect(res.status).toBe(501);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const detail = ((await res.json()) as { detail: string }).detail;
    expect(detail).toContain(off.config.storage.mode === 'memory' ? 'embedded' : 'SERVICE_CYPHER_ENABLED');
  });

  it('answers 501 in embedded mode even when enabled, and runs the query in persistent mode', async () => {
    const on = await startTestApp({ SERVICE_CYPHER_ENABLED: 'true' });
    try {
      const res = await ask(on);
      if (on.config.storage.mode === 'memory') {
        expect(res.status).toBe(501);
        expect(((await res.json()) as { detail: string }).detail).toContain('persistent mode (Neo4j)');
      } else {
        expect(res.status).toBe(200);
        expect(((await res.json()) as { rows: unknown[] }).rows).toEqual([{ one: 1 }]);
      }
    } finally {
      await on.close();
    }
  });

  it('refuses a credential below operator with 403 and an empty query with 422, before anything runs', async () => {
    const editor = await off.createApiKey({ role: 'editor' });
    const refused = await ask(off, { 'X-API-Key': editor });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { detail: string }).detail).toContain('master key');
    const empty = await off.request('/api/v1/graph/cypher', { method: 'POST', json: { query: '  ' } });
    expect(empty.status).toBe(422);
    expect(((await empty.json()) as { errors: Array<{ field: string }> }).errors.map((e) => e.field)).toEqual(['query']);
  });
});
