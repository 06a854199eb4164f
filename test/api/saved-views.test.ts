import { startTestApp, type TestApp } from '../helpers/app';

/**
 * Saved views of the graph explorer over HTTP: each caller keeps named views per workspace, saving a name again
 * replaces its view, other callers and other workspaces see none of them, and bad input is refused whole.
 */

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app.close();
});

interface Saved {
  id: string;
  name: string;
  view: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

const VIEW = {
  start_node: 'ALICE_JOHNSON',
  depth: 2,
  max_nodes: 500,
  hidden_types: ['LOCATION'],
  layout: 'radial',
  camera: { x: 0.4, y: 0.6, ratio: 0.5, angle: 0 },
};

async function call<T>(path: string, init: Parameters<TestApp['request']>[1], status: number): Promise<T> {
  const res = await app.request(path, init);
  const body: unknown = res.status === 204 ? undefined : await res.json();
  expect({ path, status: res.status, body: res.status === status ? undefined : body }).toEqual({ path, status, body: undefined });
  return body as T;
}

const as = (key: string) => ({ 'X-API-Key': key });
const list = (key: string, workspace?: string) => call<{ views: Saved[] }>('/api/v1/graph/views', { headers: as(key), workspace }, 200);
const save = (key: string, json: unknown, status: number, workspace?: string) =>
  call<Saved>('/api/v1/graph/views', { method: 'POST', json, headers: as(key), workspace }, status);

describe('saved views', () => {
  it('saves, lists by name, replaces by name and deletes the views of the caller', async () => {
    const key = await app.createApiKey({ role: 'viewer' });
    expect(await list(key)).toEqual({ views: [] });
    const berlin = await save(key, { name: '  Berlin team ', view: VIEW }, 201);
    expect(berlin).toEqual({
      id: expect.any(String),
      name: 'Berlin team',
      view: VIEW,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const whole = await save(key, { name: 'All', view: { ...VIEW, start_node: '', layout: 'force', camera: null } }, 201);
    expect((await list(key)).views.map((v) => v.name)).toEqual(['All', 'Berlin team']);

    const replaced = await save(key, { name: 'Berlin team', view: { ...VIEW, depth: 3, layout: 'circular' } }, 200);
    expect(replaced).toMatchObject({ id: berlin.id, created_at: berlin.created_at, view: { depth: 3, layout: 'circular' } });
    expect((await list(key)).views).toHaveLength(2);

    await call(`/api/v1/graph/views/${whole.id}`, { method: 'DELETE', headers: as(key) }, 204);
    await call(`/api/v1/graph/views/${whole.id}`, { method: 'DELETE', headers: as(key) }, 404);
    expect((await list(key)).views.map((v) => v.id)).toEqual([berlin.id]);
  });

  it('keeps each caller’s views apart, and each workspace’s', async () => {
    const mine = await app.createApiKey({ role: 'editor' });
    const theirs = await app.createApiKey({ role: 'editor' });
    const view = await save(mine, { name: 'Mine', view: VIEW }, 201);
    expect(await list(theirs)).toEqual({ views: [] });
    await call(`/api/v1/graph/views/${view.id}`, { method: 'DELETE', headers: as(theirs) }, 404);
    // The same name is free for another caller.
    await save(theirs, { name: 'Mine', view: VIEW }, 201);
    const other = await app.workspaceNamed('elsewhere');
    expect(await list(mine, other)).toEqual({ views: [] });
    await call(`/api/v1/graph/views/${view.id}`, { method: 'DELETE', headers: as(mine), workspace: other }, 404);
    expect((await list(mine)).views.map((v) => v.id)).toEqual([view.id]);
  });

  it('refuses bad views with a problem naming the field, and stores nothing', async () => {
    const key = await app.createApiKey({ role: 'viewer' });
    const cases: Array<[unknown, string]> = [
      [{ name: '', view: VIEW }, 'name'],
      [{ name: 'x'.repeat(101), view: VIEW }, 'name'],
      [{ name: 'Bad', view: { ...VIEW, layout: 'spiral' } }, 'view.layout'],
      [{ name: 'Bad', view: { ...VIEW, depth: 9 } }, 'view.depth'],
      [{ name: 'Bad', view: { ...VIEW, max_nodes: 0 } }, 'view.max_nodes'],
      [{ name: 'Bad', view: { ...VIEW, camera: { x: 0, y: 0, ratio: -1, angle: 0 } } }, 'view.camera.ratio'],
      [{ name: 'Bad' }, 'view'],
    ];
    for (const [json, field] of cases) {
      const problem = await save(key, json, 422);
      expect(JSON.stringify(problem)).toContain(field);
    }
    const res = await app.request('/api/v1/graph/views', {
      method: 'POST',
      body: 'not json',
      headers: { ...as(key), 'Content-Type': 'text/plain' },
    });
    expect(res.status).toBe(400);
    expect(await list(key)).toEqual({ views: [] });
  });

  it('keeps at most 100 views per caller and workspace', async () => {
    const key = await app.createApiKey({ role: 'viewer' });
    for (let i = 0; i < 100; i++) await save(key, { name: `View ${i}`, view: VIEW }, 201);
    await save(key, { name: 'One more', view: VIEW }, 422);
    // Replacing one still works.
    await save(key, { name: 'View 7', view: { ...VIEW, depth: 1 } }, 200);
    expect((await list(key)).views).toHaveLength(100);
  });
});
