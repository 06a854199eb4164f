import { startTestApp, type TestApp } from '../helpers/app';

/** Conversation folders over HTTP: create, list, rename, delete, and conversations filed in them. */

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app.close();
});

interface Folder {
  id: string;
  name: string;
  parent_id: null;
  conversation_count: number;
  created_at: string;
}

interface Conversation {
  id: string;
  folder_id: string | null;
}

async function call<T>(path: string, init: Parameters<TestApp['request']>[1], status: number): Promise<T> {
  const res = await app.request(path, init);
  expect({ path, status: res.status }).toEqual({ path, status });
  return (res.status === 204 ? undefined : await res.json()) as T;
}

const folder = (name: string, workspace?: string) => call<Folder>('/api/v1/folders', { method: 'POST', json: { name }, workspace }, 201);
const conversation = (json: Record<string, unknown>, workspace?: string) =>
  call<Conversation>('/api/v1/conversations', { method: 'POST', json, workspace }, 201);
const listed = (query: string, workspace?: string) =>
  call<{ conversations: Conversation[]; total: number }>(`/api/v1/conversations${query}`, { workspace }, 200);
const folders = (workspace?: string) => call<{ folders: Folder[] }>('/api/v1/folders', { workspace }, 200);

describe('conversation folders', () => {
  it('creates, lists by name, renames and deletes a folder', async () => {
    const workspace = await app.workspaceNamed('crud');
    const work = await folder('  Work  ', workspace);
    expect(work).toEqual({
      id: expect.any(String),
      name: 'Work',
      parent_id: null,
      conversation_count: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const archive = await folder('Archive', workspace);
    expect((await folders(workspace)).folders.map((f) => f.name)).toEqual(['Archive', 'Work']);
    const renamed = await call<Folder>(`/api/v1/folders/${work.id}`, { method: 'PATCH', json: { name: 'Projects' }, workspace }, 200);
    expect(renamed).toMatchObject({ id: work.id, name: 'Projects', created_at: work.created_at });
    await call(`/api/v1/folders/${archive.id}`, { method: 'DELETE', workspace }, 204);
    expect((await folders(workspace)).folders.map((f) => f.id)).toEqual([work.id]);
    await call(`/api/v1/folders/${archive.id}`, { method: 'DELETE', workspace }, 404);
    await call(`/api/v1/folders/${archive.id}`, { method: 'PATCH', json: { name: 'x' }, workspace }, 404);
  });

  it('files conversations on creation, by update and in bulk, and lists a folder with filter[folder_id]', async () => {
    const workspace = await app.workspaceNamed('filing');
    const work = await folder('Work', workspace);
    const first = await conversation({ title: 'first', folder_id: work.id }, workspace);
    expect(first.folder_id).toBe(work.id);
    const second = await conversation({ title: 'second' }, workspace);
    const third = await conversation({ title: 'third' }, workspace);
    const moved = await call<Conversation & { title: string }>(
      `/api/v1/conversations/${second.id}`,
      { method: 'PATCH', json: { folder_id: work.id, title: 'Second' }, workspace },
      200,
    );
    expect(moved).toMatchObject({ id: second.id, folder_id: work.id, title: 'Second' });
    const inFolder = await listed(`?filter[folder_id]=${work.id}`, workspace);
    expect([inFolder.total, inFolder.conversations.map((c) => c.id).sort()]).toEqual([2, [first.id, second.id].sort()]);
    expect((await listed(`?folder_id=${work.id}&limit=1`, workspace)).total).toBe(2);
    expect((await listed('', workspace)).total).toBe(3);
    expect((await folders(workspace)).folders[0].conversation_count).toBe(2);

    const bulk = await call<{ affected: number }>(
      '/api/v1/conversations/bulk/move',
      { method: 'POST', json: { conversation_ids: [third.id, third.id, first.id], folder_id: null }, workspace },
      200,
    );
    expect(bulk).toEqual({ affected: 2 });
    expect((await listed(`?filter[folder_id]=${work.id}`, workspace)).conversations.map((c) => c.id)).toEqual([second.id]);
    // Renaming alone leaves the folder as it was.
    await call(`/api/v1/conversations/${second.id}`, { method: 'PATCH', json: { title: 'again' }, workspace }, 200);
    expect((await listed(`?filter[folder_id]=${work.id}`, workspace)).total).toBe(1);
  });

  it('deleting a folder leaves its conversations, in no folder', async () => {
    const workspace = await app.workspaceNamed('deleting');
    const work = await folder('Work', workspace);
    const filed = await conversation({ folder_id: work.id }, workspace);
    await call(`/api/v1/folders/${work.id}`, { method: 'DELETE', workspace }, 204);
    expect(await call<Conversation>(`/api/v1/conversations/${filed.id}`, { workspace }, 200)).toMatchObject({ folder_id: null });
    expect((await listed(`?filter[folder_id]=${work.id}`, workspace)).total).toBe(0);
  });

  it('refuses a folder that is not in the workspace with 404, filing nothing', async () => {
    const workspace = await app.workspaceNamed('missing');
    const other = await app.workspaceNamed('missing-other');
    const elsewhere = await folder('Elsewhere', other);
    const kept = await conversation({ title: 'kept' }, workspace);
    for (const [path, init] of [
      ['/api/v1/conversations', { method: 'POST', json: { folder_id: elsewhere.id } }],
      [`/api/v1/conversations/${kept.id}`, { method: 'PATCH', json: { folder_id: elsewhere.id } }],
      ['/api/v1/conversations/bulk/move', { method: 'POST', json: { conversation_ids: [kept.id], folder_id: elsewhere.id } }],
      [`/api/v1/folders/${elsewhere.id}`, { method: 'PATCH', json: { name: 'hijacked' } }],
      [`/api/v1/folders/${elsewhere.id}`, { method: 'DELETE' }],
    ] as const) {
      const problem = await call<{ detail: string }>(path, { ...init, workspace }, 404);
      expect(problem.detail).toContain(`folder '${elsewhere.id}' does not exist`);
    }
    const work = await folder('Work', workspace);
    const partial = await call<{ detail: string }>(
      '/api/v1/conversations/bulk/move',
      { method: 'POST', json: { conversation_ids: [kept.id, 'missing'], folder_id: work.id }, workspace },
      404,
    );
    expect(partial.detail).toContain("conversation 'missing'");
    expect((await listed('', workspace)).conversations.map((c) => c.folder_id)).toEqual([null]);
    expect((await folders(other)).folders).toEqual([{ ...elsewhere, name: 'Elsewhere' }]);
  });

  it('refuses bad names, nesting and bad filing requests with 422 naming the field', async () => {
    for (const [path, init, detail] of [
      ['/api/v1/folders', { method: 'POST', json: { name: '  ' } }, 'name: must not be empty'],
      ['/api/v1/folders', { method: 'POST', json: {} }, 'name'],
      ['/api/v1/folders', { method: 'POST', json: { name: 'x'.repeat(201) } }, 'name: must be at most 200 characters'],
      ['/api/v1/folders', { method: 'POST', json: { name: 'Sub', parent_id: 'f1' } }, 'parent_id: folders do not nest'],
      ['/api/v1/conversations/bulk/move', { method: 'POST', json: { conversation_ids: [] } }, 'conversation_ids: must name at least one'],
      ['/api/v1/conversations?filter[folder_id]=', {}, 'filter[folder_id]: must not be empty'],
    ] as const) {
      const problem = await call<{ detail: string }>(path, init, 422);
      expect(problem.detail).toContain(detail);
    }
    expect((await folders()).folders).toEqual([]);
  });
});
