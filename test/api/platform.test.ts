import { json } from '../fixtures/documents';
import { startTestApp, type TestApp } from '../helpers/app';

/** Health probes, API docs, request ids and problem details: what every client relies on. */
describe('platform', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => app.close());

  it('reports health with live component checks, the storage mode and the schema state', async () => {
    const res = await app.request('/health');
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({
      status: 'healthy',
      storage_mode: app.config.storage.mode,
      workspace_id: app.workspace,
      components: { kv_storage: true, vector_storage: true, graph_storage: true, llm_provider: true },
      llm_provider_name: 'mock',
    });
    expect(typeof body.schema.latest_version).toBe('number');
    expect(typeof body.schema.migrations_applied).toBe('number');
  });

  it('turns health degraded and readiness 503 when a store check fails, and recovers', async () => {
    const original = app.rt.stores.health.bind(app.rt.stores);
    app.rt.stores.health = async () => ({ kv_storage: true, vector_storage: true, graph_storage: false });
    try {
      const health = await json(await app.request('/health'));
      expect(health.status).toBe('degraded');
      expect(health.components.graph_storage).toBe(false);
      for (const path of ['/ready', '/health/ready']) {
        const res = await app.request(path);
        expect(res.status).toBe(503);
        expect(await json(res)).toEqual({ status: 'not_ready', checks: { database: 'error', llm_provider: 'ok' } });
      }
    } finally {
      app.rt.stores.health = original;
    }
    const ready = await app.request('/health/ready');
    expect(ready.status).toBe(200);
    expect(await json(ready)).toEqual({ status: 'ready', checks: { database: 'ok', llm_provider: 'ok' } });
  });

  it('answers liveness on both probe paths', async () => {
    for (const path of ['/live', '/health/live']) {
      const res = await app.request(path);
      expect(res.status).toBe(200);
      expect((await json(res)).status).toBe('alive');
    }
  });

  it('serves the OpenAPI document with the same version as /health and every route with its schemas', async () => {
    const doc = await json(await app.request('/api-docs/openapi.json'));
    const health = await json(await app.request('/health'));
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe(health.version);
    const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ path, method, op })),
    );
    expect(operations.length).toBeGreaterThan(40);
    for (const { path, method, op } of operations) {
      const described = Object.entries(op.responses).filter(([status]) => status !== 'default');
      expect({ path, method, hasResponseSchema: described.some(([status, r]: [string, any]) => r.content || status === '204') }).toEqual({
        path,
        method,
        hasResponseSchema: true,
      });
      if (method === 'post' && !path.endsWith('/cancel') && !path.endsWith('/retry')) {
        expect({
          path,
          // A route that is not offered (501: docs/api.md §10) reads no body.
          requestBody:
            Boolean(op.requestBody) || '501' in op.responses || /reprocess|recover-stuck|retry-chunks|metrics-snapshot/.test(path),
        }).toEqual({
          path,
          requestBody: true,
        });
      }
    }
    const text = JSON.stringify(doc);
    for (const [, ref] of text.matchAll(/"\$ref":"([^"]*)"/g)) {
      expect({ ref, resolves: ref.startsWith('#/components/schemas/') && ref.slice(21) in doc.components.schemas }).toEqual({
        ref,
        resolves: true,
      });
    }
    const ingest = doc.paths['/api/v1/documents'].post.requestBody.content['application/json'].schema;
    expect(ingest.required).toContain('content');
  });

  it('serves the interactive documentation page', async () => {
    const res = await fetch(`${app.url}/swagger-ui/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toContain('/api-docs/openapi.json');
  });

  it('puts a request id on every response and keeps a well-formed caller id', async () => {
    const own = await app.request('/health', { headers: { 'X-Request-ID': 'trace-123' } });
    expect(own.headers.get('x-request-id')).toBe('trace-123');
    const fresh = await app.request('/api/v1/documents');
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers unknown routes with a 404 problem', async () => {
    const res = await app.request('/api/v1/no-such-thing');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await json(res)).toEqual({
      type: `${app.config.errorTypeBase}/not-found`,
      title: 'Resource Not Found',
      status: 404,
      detail: 'no route for GET /api/v1/no-such-thing',
      instance: '/api/v1/no-such-thing',
      // The same text under the name EdgeQuake's clients read.
      message: 'no route for GET /api/v1/no-such-thing',
    });
  });

  it('answers a known path with the wrong method with a 405 problem and an Allow header', async () => {
    const res = await app.request('/api/v1/graph/stats', { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('GET');
    expect((await json(res)).type).toBe(`${app.config.errorTypeBase}/method-not-allowed`);
  });

  it('masks an unexpected failure as a 500 problem quoting the request id', async () => {
    const documents = app.rt.stores.documents;
    const original = documents.list.bind(documents);
    documents.list = async () => {
      throw new Error('secret internal detail');
    };
    try {
      const res = await app.request('/api/v1/documents');
      expect(res.status).toBe(500);
      const body = await json(res);
      const requestId = res.headers.get('x-request-id');
      expect(body).toMatchObject({ type: `${app.config.errorTypeBase}/internal-error`, status: 500, request_id: requestId });
      expect(body.detail).toContain(requestId);
      expect(JSON.stringify(body)).not.toContain('secret internal detail');
    } finally {
      documents.list = original;
    }
  });

  it('refuses a malformed workspace header with a 400 problem', async () => {
    const res = await app.request('/api/v1/documents', { workspace: 'bad workspace!' });
    expect(res.status).toBe(400);
    expect((await json(res)).detail).toMatch(/X-Workspace-ID/);
  });
});

describe('platform with an unreachable Redis', () => {
  let app: TestApp;
  beforeAll(async () => {
    // Nothing listens on port 1: Redis is configured but down.
    app = await startTestApp({ REDIS_URL: 'redis://127.0.0.1:1', SERVICE_RATE_LIMIT_QUERY: '5' });
  });
  afterAll(async () => app.close());

  it('reports the rate-limit store down in /health and turns readiness to 503', async () => {
    const health = await json(await app.request('/health'));
    expect(health.status).toBe('degraded');
    expect(health.components.rate_limit_store).toBe(false);
    const ready = await app.request('/health/ready');
    expect(ready.status).toBe(503);
    expect((await json(ready)).checks.database).toBe('error');
  });

  it('answers a rate-limited request with a 503 service-unavailable problem, and an unlimited one normally', async () => {
    const res = await app.request('/api/v1/query', { method: 'POST', json: { query: 'anything' } });
    expect(res.status).toBe(503);
    const body = await json(res);
    expect(body.type).toBe(`${app.config.errorTypeBase}/service-unavailable`);
    expect(body.detail).toMatch(/Redis/);
    expect((await app.request('/api/v1/documents')).status).toBe(200);
  });
});
