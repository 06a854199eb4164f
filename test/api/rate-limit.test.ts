import { type TestApp, startTestApp } from '../helpers/app';

/**
 * Rate limits (docs/api.md §8.2) over real HTTP: per category, per API key or address, with the X-RateLimit-* headers
 * and a 429 `rate-limited` problem carrying Retry-After. Small limits keep the suite quick; every test uses
 * API keys of its own, so counters never carry over between tests or runs.
 */

const LIMIT = 3;
const WINDOW_MS = 60_000;
const limits = {
  SERVICE_RATE_LIMIT_UPLOAD: String(LIMIT),
  SERVICE_RATE_LIMIT_QUERY: String(LIMIT),
  SERVICE_RATE_LIMIT_GRAPH: String(LIMIT),
  SERVICE_RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
};

type Category = 'upload' | 'query' | 'graph';

/** One cheap request per category: the limiter counts it before the body is read or validated. */
function hit(app: TestApp, category: Category, headers: Record<string, string> = {}): Promise<Response> {
  if (category === 'graph') return app.request('/api/v1/graph/stats', { headers });
  const path = category === 'upload' ? '/api/v1/documents' : '/api/v1/query';
  return app.request(path, { method: 'POST', json: {}, headers });
}

/** A real API key of its own per test, so counters never carry over between tests or runs. */
const apiKey = async (app: TestApp) => ({ 'X-API-Key': await app.createApiKey() });

function rateHeaders(res: Response) {
  return {
    limit: res.headers.get('X-RateLimit-Limit'),
    remaining: res.headers.get('X-RateLimit-Remaining'),
    reset: res.headers.get('X-RateLimit-Reset'),
  };
}

/** The refusal every limited category answers with once its allowance is spent. */
async function expectRateLimited(res: Response, windowMs = WINDOW_MS): Promise<void> {
  expect(res.status).toBe(429);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ status: 429, title: 'Too Many Requests' });
  expect(body.type).toMatch(/\/rate-limited$/);
  expect(body.detail).toMatch(/rate limit of \d+ \w+ requests per \d+ s exceeded/);
  const retryAfter = Number(res.headers.get('Retry-After'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(0);
  expect(retryAfter).toBeLessThanOrEqual(windowMs / 1000);
  expect(rateHeaders(res)).toMatchObject({ limit: String(LIMIT), remaining: '0' });
}

/** Spends the whole allowance; returns the responses, which must all have reached the handler. */
async function spend(app: TestApp, category: Category, headers: Record<string, string>, count = LIMIT): Promise<Response[]> {
  const responses: Response[] = [];
  for (let i = 0; i < count; i++) {
    const res = await hit(app, category, headers);
    expect(res.status).not.toBe(429);
    await res.arrayBuffer();
    responses.push(res);
  }
  return responses;
}

describe('rate limits (one instance, counters in process memory)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp(limits);
  });
  afterAll(async () => {
    await app.close();
  });

  it.each(['upload', 'query', 'graph'] as const)(
    'counts %s requests down in X-RateLimit-Remaining with the limit and an epoch reset time in the window',
    async (category) => {
      const key = await apiKey(app);
      const before = Date.now() / 1000;
      const responses = await spend(app, category, key);
      expect(responses.map((r) => rateHeaders(r).limit)).toEqual([String(LIMIT), String(LIMIT), String(LIMIT)]);
      expect(responses.map((r) => rateHeaders(r).remaining)).toEqual(['2', '1', '0']);
      for (const res of responses) {
        const reset = Number(rateHeaders(res).reset);
        expect(Number.isInteger(reset)).toBe(true);
        expect(reset).toBeGreaterThan(before);
        expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + WINDOW_MS / 1000 + 1);
      }
    },
  );

  it.each(['upload', 'query', 'graph'] as const)(
    'refuses the %s request after the limit with a 429 rate-limited problem and Retry-After',
    async (category) => {
      const key = await apiKey(app);
      await spend(app, category, key);
      await expectRateLimited(await hit(app, category, key));
      await expectRateLimited(await hit(app, category, key));
    },
  );

  it('lets the first requests through to the handler: the limited request is the one past the allowance', async () => {
    const key = await apiKey(app);
    const responses = await spend(app, 'query', key);
    expect(responses.map((r) => r.status)).toEqual([422, 422, 422]);
  });

  it('keeps a separate allowance per API key: one exhausted key does not limit another', async () => {
    const [spent, fresh] = [await apiKey(app), await apiKey(app)];
    await spend(app, 'graph', spent);
    await expectRateLimited(await hit(app, 'graph', spent));
    const other = await hit(app, 'graph', fresh);
    expect(other.status).toBe(200);
    expect(rateHeaders(other)).toMatchObject({ limit: String(LIMIT), remaining: '2' });
  });

  it('counts Authorization: Bearer <key> and X-API-Key: <key> as the same API key', async () => {
    const key = await app.createApiKey();
    await spend(app, 'graph', { 'X-API-Key': key }, LIMIT - 1);
    const bearer = await hit(app, 'graph', { Authorization: `Bearer ${key}` });
    expect(rateHeaders(bearer).remaining).toBe('0');
    await expectRateLimited(await hit(app, 'graph', { Authorization: `Bearer ${key}` }));
  });

  it('keeps the categories apart: an exhausted upload allowance leaves query and graph requests untouched', async () => {
    const key = await apiKey(app);
    await spend(app, 'upload', key);
    await expectRateLimited(await hit(app, 'upload', key));
    for (const category of ['query', 'graph'] as const) {
      const res = await hit(app, category, key);
      expect(res.status).not.toBe(429);
      expect(rateHeaders(res).remaining).toBe('2');
    }
  });

  it('counts JSON, file, batch and scan uploads against the one upload allowance', async () => {
    const key = await apiKey(app);
    const paths = ['/api/v1/documents', '/api/v1/documents/upload', '/api/v1/documents/upload/batch'];
    const remaining = [];
    for (const path of paths) {
      const res = await app.request(path, { method: 'POST', json: {}, headers: key });
      expect(res.status).not.toBe(429);
      remaining.push(rateHeaders(res).remaining);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    await expectRateLimited(await app.request('/api/v1/documents/scan', { method: 'POST', json: {}, headers: key }));
  });

  it('counts /query and /chat/completions against the one query allowance', async () => {
    const key = await apiKey(app);
    await spend(app, 'query', key, LIMIT - 1);
    const chat = await app.request('/api/v1/chat/completions', { method: 'POST', json: {}, headers: key });
    expect(chat.status).toBe(422);
    expect(rateHeaders(chat).remaining).toBe('0');
    await expectRateLimited(await app.request('/api/v1/chat/completions', { method: 'POST', json: {}, headers: key }));
  });

  it('never limits health checks and sends them no rate-limit headers', async () => {
    const key = await apiKey(app);
    for (const path of ['/health', '/live', '/ready', '/health/live', '/health/ready']) {
      for (let i = 0; i < LIMIT + 2; i++) {
        const res = await fetch(app.url + path, { headers: key });
        await res.arrayBuffer();
        expect(res.status).not.toBe(429);
        expect(res.headers.get('X-RateLimit-Limit')).toBeNull();
      }
    }
  });
});

describe('rate limits: window, disabled categories and separate instances', () => {
  it('gives a fresh allowance once the window has passed', async () => {
    const app = await startTestApp({ ...limits, SERVICE_RATE_LIMIT_WINDOW_MS: '1000' });
    try {
      const key = await apiKey(app);
      await spend(app, 'graph', key);
      const refused = await hit(app, 'graph', key);
      await expectRateLimited(refused, 1000);
      const resetMs = Number(rateHeaders(refused).reset) * 1000;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, resetMs - Date.now()) + 100));
      const again = await hit(app, 'graph', key);
      expect(again.status).toBe(200);
      expect(rateHeaders(again).remaining).toBe('2');
    } finally {
      await app.close();
    }
  });

  it('does not limit a category whose limit is 0 and sends it no rate-limit headers', async () => {
    const app = await startTestApp({ ...limits, SERVICE_RATE_LIMIT_QUERY: '0' });
    try {
      const key = await apiKey(app);
      for (let i = 0; i < LIMIT + 2; i++) {
        const res = await hit(app, 'query', key);
        expect(res.status).toBe(422);
        expect(res.headers.get('X-RateLimit-Limit')).toBeNull();
      }
      expect((await hit(app, 'graph', key)).headers.get('X-RateLimit-Limit')).toBe(String(LIMIT));
    } finally {
      await app.close();
    }
  });

  it('counts per instance without REDIS_URL: each instance grants its own allowance', async () => {
    const [a, b] = [await startTestApp(limits), await startTestApp(limits)];
    try {
      // The master key: one identity both embedded instances know.
      const key = { 'X-API-Key': a.masterKey };
      await spend(a, 'graph', key);
      await expectRateLimited(await hit(a, 'graph', key));
      const res = await hit(b, 'graph', key);
      expect(res.status).toBe(200);
      expect(rateHeaders(res).remaining).toBe('2');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

// Shared counters need a Redis server: the persistent pass of `npm test` provides one in TEST_REDIS_URL.
const redisUrl = process.env.TEST_REDIS_URL;
if (redisUrl) {
  describe('rate limits shared through Redis (REDIS_URL) by two instances', () => {
    let a: TestApp;
    let b: TestApp;

    beforeAll(async () => {
      a = await startTestApp({ ...limits, REDIS_URL: redisUrl });
      b = await startTestApp({ ...limits, REDIS_URL: redisUrl });
    });
    afterAll(async () => {
      await Promise.all([a.close(), b.close()]);
    });

    it('reaches the limit across both instances: requests to either count against one allowance', async () => {
      const key = await apiKey(a);
      const remaining = [];
      for (const app of [a, b, a]) {
        const res = await hit(app, 'query', key);
        expect(res.status).toBe(422);
        remaining.push(rateHeaders(res).remaining);
      }
      expect(remaining).toEqual(['2', '1', '0']);
      await expectRateLimited(await hit(b, 'query', key));
      await expectRateLimited(await hit(a, 'query', key));
    });

    it('keeps API keys and categories apart in the shared counters', async () => {
      const [spent, fresh] = [await apiKey(a), await apiKey(a)];
      await spend(a, 'graph', spent);
      await expectRateLimited(await hit(b, 'graph', spent));
      const other = await hit(b, 'graph', fresh);
      expect(other.status).toBe(200);
      expect(rateHeaders(other).remaining).toBe('2');
      const upload = await hit(b, 'upload', spent);
      expect(upload.status).toBe(422);
      expect(rateHeaders(upload).remaining).toBe('2');
    });
  });
}
