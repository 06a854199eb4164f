import { startTestApp, type TestApp } from '../helpers/app';

/** CORS: off by default; an allow-list of origins when SERVICE_CORS_ORIGINS is set (docs/api.md §7). */

const ORIGIN = 'https://app.example.com';
let open: TestApp;
let listed: TestApp;

beforeAll(async () => {
  open = await startTestApp();
  listed = await startTestApp({ SERVICE_CORS_ORIGINS: `${ORIGIN}, https://other.example.com/` });
});

afterAll(async () => {
  await open?.close();
  await listed?.close();
});

describe('CORS', () => {
  it('is off by default: no CORS headers, whatever the origin', async () => {
    const res = await open.request('/api/v1/documents', { headers: { Origin: ORIGIN } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('allows a listed origin, with the headers a browser client reads exposed', async () => {
    const res = await listed.request('/api/v1/documents', { headers: { Origin: ORIGIN } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('access-control-expose-headers')).toMatch(/X-Request-ID/);
  });

  it('answers a preflight of a listed origin', async () => {
    const res = await listed.request('/api/v1/query', {
      method: 'OPTIONS',
      headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type, x-api-key' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('access-control-allow-methods')).toMatch(/POST/);
    expect(res.headers.get('access-control-allow-headers')).toMatch(/X-API-Key/);
  });

  it('lets a browser MCP client send and read the session headers of /mcp', async () => {
    const preflight = await listed.request('/mcp', {
      method: 'OPTIONS',
      headers: {
        Origin: ORIGIN,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'mcp-session-id, mcp-protocol-version',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Mcp-Session-Id.*Mcp-Protocol-Version/);
    const refused = await listed.request('/mcp', { method: 'POST', headers: { Origin: ORIGIN, 'X-API-Key': '' } });
    expect(refused.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(refused.headers.get('access-control-expose-headers')).toMatch(/Mcp-Session-Id/);
  });

  it('gives an origin that is not listed no CORS headers, also on problems', async () => {
    const res = await listed.request('/api/v1/documents', { headers: { Origin: 'https://evil.example.com' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const problem = await listed.request('/api/v1/documents/nope', { headers: { Origin: ORIGIN } });
    expect(problem.status).toBeGreaterThanOrEqual(400);
    expect(problem.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  });
});
