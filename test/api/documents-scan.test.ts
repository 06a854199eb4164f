import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app';
import { json, prose, storedCounts, waitForTask } from '../fixtures/documents';

describe('directory scan (POST /documents/scan)', () => {
  let app: TestApp;
  let base: string;
  let root: string;
  let outside: string;

  beforeAll(async () => {
    base = mkdtempSync(path.join(tmpdir(), 'kgrag-scan-'));
    root = path.join(base, 'root');
    outside = path.join(base, 'outside');
    mkdirSync(path.join(root, 'docs', 'nested'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(path.join(root, 'docs', 'a.txt'), prose('scan-a'));
    writeFileSync(path.join(root, 'docs', 'b.md'), `# B\n\n${prose('scan-b')}`);
    writeFileSync(path.join(root, 'docs', 'image.png'), 'not a document');
    writeFileSync(path.join(root, 'docs', 'nested', 'c.txt'), prose('scan-c'));
    writeFileSync(path.join(root, 'docs', 'nested', 'empty.txt'), '');
    writeFileSync(path.join(outside, 'secret.txt'), prose('scan-secret'));
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'docs', 'leak.txt'));
    symlinkSync(outside, path.join(root, 'escape'));
    app = await startTestApp({ SERVICE_SCAN_ROOTS: root });
  });
  afterAll(async () => {
    await app.close();
    rmSync(base, { recursive: true, force: true });
  });

  const scan = (body: unknown) => app.request('/api/v1/documents/scan', { method: 'POST', json: body });

  it('queues every supported file under the path and reports the rest as skipped or failed', async () => {
    const res = await scan({ path: path.join(root, 'docs') });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ path: path.join(root, 'docs'), files_found: 6, processed: 3, duplicates: 0, failed: 1, skipped: 2 });
    const byName = Object.fromEntries(body.results.map((r: { filename: string }) => [r.filename, r]));
    expect(Object.keys(byName).sort()).toEqual(['a.txt', 'b.md', 'nested/c.txt', 'nested/empty.txt']);
    expect(byName['nested/empty.txt'].error).toMatch(/empty/);
    for (const name of ['a.txt', 'b.md', 'nested/c.txt']) {
      expect(byName[name]).toMatchObject({ status: 'success', chunk_count: null });
      const task = await waitForTask(app, byName[name].task_id);
      expect(task.status).toBe('completed');
    }
    const detail = await json(await app.request(`/api/v1/documents/${byName['a.txt'].document_id}`));
    expect(detail).toMatchObject({ status: 'completed', file_path: path.join(root, 'docs', 'a.txt'), title: 'a.txt' });
  });

  it('reports files scanned again as duplicates', async () => {
    const body = await json(await scan({ path: path.join(root, 'docs'), recursive: false, extensions: ['txt'] }));
    expect(body.results).toEqual([expect.objectContaining({ filename: 'a.txt', status: 'duplicate' })]);
    expect(body).toMatchObject({ processed: 0, duplicates: 1, failed: 0 });
  });

  it('stops at max_files', async () => {
    const body = await json(await scan({ path: path.join(root, 'docs'), max_files: 1 }));
    expect(body.results).toHaveLength(1);
    expect(body.skipped).toBe(body.files_found - 1);
  });

  it.each([
    ['a path outside the roots', () => outside, 403, /outside the configured scan roots/],
    ['a .. escape', () => `${root}/docs/../../outside`, 403, /outside the configured scan roots/],
    ['a symbolic link leading outside', () => path.join(root, 'escape'), 403, /resolves outside the configured scan roots/],
    ['a missing directory', () => path.join(root, 'missing'), 404, /does not exist/],
    ['a file instead of a directory', () => path.join(root, 'docs', 'a.txt'), 422, /path: must be a directory/],
    ['a relative path', () => 'docs', 422, /path: must be an absolute path/],
  ])('refuses %s', async (_name, target, status, detail) => {
    const before = await storedCounts(app);
    const res = await scan({ path: target() });
    expect(res.status).toBe(status);
    expect((await json(res)).detail).toMatch(detail);
    expect(await storedCounts(app)).toEqual(before);
  });

  it.each([
    [{ path: '/srv/docs', max_files: 0 }, /max_files/],
    [{ path: '/srv/docs', max_files: 10_001 }, /max_files/],
    [{ recursive: true }, /^path: required$/],
  ])('validates the body %j with 422', async (body, detail) => {
    const res = await scan(body);
    expect(res.status).toBe(422);
    expect((await json(res)).detail).toMatch(detail);
  });
});

describe('directory scan without configured roots', () => {
  it('refuses with 403 saying scanning is disabled and naming SERVICE_SCAN_ROOTS', async () => {
    const app = await startTestApp();
    try {
      const res = await app.request('/api/v1/documents/scan', { method: 'POST', json: { path: tmpdir() } });
      expect(res.status).toBe(403);
      const problem = await json(res);
      expect(problem.type).toMatch(/\/forbidden$/);
      expect(problem.detail).toMatch(/scanning is disabled.*SERVICE_SCAN_ROOTS/);
    } finally {
      await app.close();
    }
  });
});
