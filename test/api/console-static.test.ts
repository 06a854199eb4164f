import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type TestApp, startTestApp } from '../helpers/app';

const INDEX = '<!doctype html><title>console</title><script type="module" src="/assets/index-abc123.js"></script>';

describe('web console files', () => {
  let app: TestApp;
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgrag-console-'));
    fs.mkdirSync(path.join(dir, 'assets'));
    fs.writeFileSync(path.join(dir, 'index.html'), INDEX);
    fs.writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), 'console.log("console");');
    fs.writeFileSync(path.join(dir, 'assets', 'index-abc123.css'), 'body{}');
    fs.writeFileSync(path.join(dir, 'robots.txt'), 'User-agent: *');
    app = await startTestApp({ SERVICE_CONSOLE_DIR: dir });
  });
  afterAll(async () => {
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const page = (p: string) => app.request(p, { headers: { Accept: 'text/html,application/xhtml+xml' } });

  it('serves index.html at / for revalidation on every load', async () => {
    const res = await page('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(await res.text()).toBe(INDEX);
  });

  it('sends a Content-Security-Policy with the console page: own scripts only, no inline code, no framing', async () => {
    for (const p of ['/', '/graph']) {
      const csp = (await page(p)).headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
    }
  });

  it('serves hashed assets as immutable for a year, with their types', async () => {
    const js = await app.request('/assets/index-abc123.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const css = await app.request('/assets/index-abc123.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    // Files outside assets/ have no hash in their names.
    expect((await app.request('/robots.txt')).headers.get('cache-control')).toBe('no-cache');
  });

  it('answers 304 to a revalidation with the same ETag', async () => {
    const first = await page('/');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"/);
    const again = await app.request('/', { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
  });

  it.each(['/graph', '/documents/some-id', '/query?x=1'])('answers the console page %s with index.html (client-side routes)', async (p) => {
    const res = await page(p);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(await res.text()).toBe(INDEX);
  });

  it.each([
    ['/api/v1/nothing-here'],
    ['/api/v2'],
    ['/v1/anything'],
    ['/health/whatever'],
    ['/healthz'],
    ['/swagger-ui/nothing'],
    ['/api-docs/other.json'],
    ['/ready/x'],
    ['/live/x'],
    ['/API/V1/nothing-here'],
    // Paths are case-sensitive: an existing route in other letters is not served.
    ['/API/V1/documents'],
    ['/Api/v1/tasks'],
    ['//api/v1/documents'],
    ['/metrics'],
    ['/Health/x'],
  ])("never answers %s with the console, even for a browser: 404 problem details (or the compatibility API's error)", async (p) => {
    const res = await page(p);
    expect(res.status).toBe(404);
    // /api/* outside /api/v1 and /v1/* belong to the compatibility APIs, which answer errors in their own shape.
    const compat = /^\/(v1|api)\//i.test(`${p}/`) && !/^\/api\/v1/i.test(p);
    expect(res.headers.get('content-type')).toContain(compat ? 'application/json' : 'application/problem+json');
  });

  it('leaves the API, probes and docs to their routes', async () => {
    expect((await (await page('/health')).json()) as { status: string }).toMatchObject({ status: 'healthy' });
    expect((await page('/api/v1/documents')).headers.get('content-type')).toContain('application/json');
    expect((await page('/api-docs/openapi.json')).headers.get('content-type')).toContain('application/json');
  });

  it('answers 404 for a missing file with an extension, and for non-HTML requests of unknown paths', async () => {
    expect((await page('/assets/missing-123.js')).status).toBe(404);
    expect((await app.request('/graph', { headers: { Accept: 'application/json' } })).status).toBe(404);
  });

  it('refuses to read outside its folder', async () => {
    fs.writeFileSync(path.join(path.dirname(dir), 'kgrag-console-secret.txt'), 'TOP-SECRET-CONTENT');
    try {
      for (const p of ['/../kgrag-console-secret.txt', '/%2e%2e/kgrag-console-secret.txt', '/assets/..%2f..%2fkgrag-console-secret.txt']) {
        const res = await app.request(p);
        expect(res.status).toBe(404);
        expect(await res.text()).not.toContain('TOP-SECRET-CONTENT');
      }
    } finally {
      fs.rmSync(path.join(path.dirname(dir), 'kgrag-console-secret.txt'), { force: true });
    }
  });

  it('sends the headers of GET for HEAD, without a body', async () => {
    const res = await app.request('/assets/index-abc123.js', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String('console.log("console");'.length));
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await res.text()).toBe('');
  });

  it('publishes the OpenAPI document the console types are generated from (web/src/api/openapi.json is current)', async () => {
    const served = (await (await app.request('/api-docs/openapi.json')).json()) as unknown;
    const committed = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../web/src/api/openapi.json'), 'utf8')) as unknown;
    // When this fails, the API changed: run `npm run web:types` and commit the regenerated files.
    expect(committed).toEqual(served);
  });
});

describe('web console not built', () => {
  it('leaves every path to the API: / is a 404 problem', async () => {
    const app = await startTestApp({ SERVICE_CONSOLE_DIR: path.join(os.tmpdir(), 'kgrag-no-console-here') });
    try {
      const res = await app.request('/', { headers: { Accept: 'text/html' } });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    } finally {
      await app.close();
    }
  });
});
