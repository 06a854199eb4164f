import { startTestApp, type TestApp } from '../helpers/app';

/**
 * Pinned and archived conversations over HTTP: flags set by PATCH and in bulk, lists filtered by them, bulk
 * deletion, all-or-none bulk calls, and EdgeQuake's conversation operations this service does not offer (501).
 */

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app.close();
});

interface Conversation {
  id: string;
  title: string;
  folder_id: string | null;
  is_pinned: boolean;
  is_archived: boolean;
}

async function call<T>(path: string, init: Parameters<TestApp['request']>[1], status: number): Promise<T> {
  const res = await app.request(path, init);
  const body = res.status === 204 ? undefined : await res.json();
  expect({ path, status: res.status, body: res.status === status ? undefined : body }).toEqual({ path, status, body: undefined });
  return body as T;
}

const create = (title: string, workspace: string) =>
  call<Conversation>('/api/v1/conversations', { method: 'POST', json: { title }, workspace }, 201);
const patch = (id: string, json: Record<string, unknown>, workspace: string) =>
  call<Conversation>(`/api/v1/conversations/${id}`, { method: 'PATCH', json, workspace }, 200);
const titles = async (query: string, workspace: string) =>
  (await call<{ conversations: Conversation[] }>(`/api/v1/conversations${query}`, { workspace }, 200)).conversations
    .map((c) => c.title)
    .sort();

describe('pinned and archived conversations', () => {
  it('pins and archives by PATCH, shows both flags everywhere, and lists by flag', async () => {
    const workspace = await app.workspaceNamed('flags');
    const first = await create('first', workspace);
    expect(first).toMatchObject({ is_pinned: false, is_archived: false });
    const second = await create('second', workspace);
    await create('third', workspace);
    expect(await patch(first.id, { is_pinned: true }, workspace)).toMatchObject({
      id: first.id,
      title: 'first',
      is_pinned: true,
      is_archived: false,
    });
    expect(await patch(second.id, { is_archived: true, title: 'Second' }, workspace)).toMatchObject({ title: 'Second', is_archived: true });
    const detail = await call<Conversation>(`/api/v1/conversations/${first.id}`, { workspace }, 200);
    expect(detail).toMatchObject({ is_pinned: true, is_archived: false });

    expect(await titles('?filter[pinned]=true', workspace)).toEqual(['first']);
    expect(await titles('?filter[pinned]=false', workspace)).toEqual(['Second', 'third']);
    expect(await titles('?filter[archived]=true', workspace)).toEqual(['Second']);
    expect(await titles('?filter[archived]=false', workspace)).toEqual(['first', 'third']);
    expect(await titles('?filter[archived]=0&filter[pinned]=0', workspace)).toEqual(['third']);
    expect(await titles('', workspace)).toEqual(['Second', 'first', 'third']);

    const folder = await call<{ id: string }>('/api/v1/folders', { method: 'POST', json: { name: 'Work' }, workspace }, 201);
    await patch(first.id, { folder_id: folder.id, is_pinned: false }, workspace);
    expect(await titles('?filter[unfiled]=true', workspace)).toEqual(['Second', 'third']);
    expect(await titles('?filter[unfiled]=false', workspace)).toEqual(['first']);
    expect(await titles(`?filter[folder_id]=${folder.id}&filter[pinned]=true`, workspace)).toEqual([]);

    const bad = await app.request('/api/v1/conversations?filter[pinned]=yes', { workspace });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { errors: Array<{ field: string }> }).errors[0].field).toBe('filter[pinned]');
    await call(`/api/v1/conversations/${first.id}`, { method: 'PATCH', json: { is_pinned: 'yes' }, workspace }, 422);
    await call('/api/v1/conversations/nope', { method: 'PATCH', json: { is_pinned: true }, workspace }, 404);
  });

  it('lists by words of the title and by mode, sorted by the field and order asked for', async () => {
    const workspace = await app.workspaceNamed('search-sort');
    const made: Conversation[] = [];
    for (const [title, mode] of [
      ['Budget notes', 'local'],
      ['alpha NOTES', 'global'],
      ['Zeta', 'local'],
    ])
      made.push(await call<Conversation>('/api/v1/conversations', { method: 'POST', json: { title, mode }, workspace }, 201));
    // The first made is the most recently updated.
    await patch(made[0].id, { title: 'Budget notes' }, workspace);
    const order = async (query: string) =>
      (await call<{ conversations: Conversation[] }>(`/api/v1/conversations${query}`, { workspace }, 200)).conversations.map(
        (c) => c.title,
      );
    expect(await order('')).toEqual(['Budget notes', 'Zeta', 'alpha NOTES']);
    expect(await order('?sort=created_at')).toEqual(['Zeta', 'alpha NOTES', 'Budget notes']);
    expect(await order('?sort=created_at&order=asc')).toEqual(['Budget notes', 'alpha NOTES', 'Zeta']);
    expect(await order('?sort=title&order=asc')).toEqual(['Budget notes', 'Zeta', 'alpha NOTES']);
    expect(await order('?filter[search]=notes&sort=title&order=asc')).toEqual(['Budget notes', 'alpha NOTES']);
    expect(await order('?filter[search]=%20NoTeS%20')).toEqual(['Budget notes', 'alpha NOTES']);
    expect(await order('?filter[mode]=local')).toEqual(['Budget notes', 'Zeta']);
    expect(await order('?filter[mode]=global,local&filter[search]=zeta')).toEqual(['Zeta']);
    for (const query of ['?filter[mode]=local,psychic', '?sort=mode', '?order=up', '?filter[search]=']) {
      const res = await app.request(`/api/v1/conversations${query}`, { workspace });
      expect({ query, status: res.status }).toEqual({ query, status: 422 });
    }
  });

  it('archives and unarchives in bulk, all or none', async () => {
    const workspace = await app.workspaceNamed('bulk-archive');
    const [a, b] = [await create('a', workspace), await create('b', workspace)];
    const archive = (json: Record<string, unknown>, status: number) =>
      call<{ affected: number }>('/api/v1/conversations/bulk/archive', { method: 'POST', json, workspace }, status);
    expect(await archive({ conversation_ids: [a.id, b.id, a.id] }, 200)).toEqual({ affected: 2 });
    expect(await titles('?filter[archived]=true', workspace)).toEqual(['a', 'b']);
    expect(await archive({ conversation_ids: [a.id], archive: false }, 200)).toEqual({ affected: 1 });
    expect(await titles('?filter[archived]=true', workspace)).toEqual(['b']);

    const missing = await archive({ conversation_ids: [a.id, 'nope'] }, 404);
    expect(missing).toMatchObject({ status: 404, detail: expect.stringContaining("'nope'") });
    expect(await titles('?filter[archived]=true', workspace)).toEqual(['b']);
    await archive({ conversation_ids: [] }, 422);
    await archive({ conversation_ids: [a.id], archive: 'yes' }, 422);
    // Another workspace's conversation is absent here.
    const other = await app.workspaceNamed('bulk-archive-other');
    await call('/api/v1/conversations/bulk/archive', { method: 'POST', json: { conversation_ids: [a.id] }, workspace: other }, 404);
  });

  it('deletes in bulk with the messages, all or none', async () => {
    const workspace = await app.workspaceNamed('bulk-delete');
    const chat = await call<{ conversation_id: string }>(
      '/api/v1/chat/completions',
      { method: 'POST', json: { message: 'Who works at Acme?' }, workspace },
      200,
    );
    const a = await create('a', workspace);
    await create('b', workspace);
    const remove = (ids: string[], status: number) =>
      call<{ affected: number }>(
        '/api/v1/conversations/bulk/delete',
        { method: 'POST', json: { conversation_ids: ids }, workspace },
        status,
      );
    await remove([a.id, 'nope'], 404);
    expect(await titles('', workspace)).toHaveLength(3);
    expect(await remove([a.id, chat.conversation_id], 200)).toEqual({ affected: 2 });
    expect(await titles('', workspace)).toEqual(['b']);
    await call(`/api/v1/conversations/${chat.conversation_id}/messages`, { workspace }, 404);
    await remove([a.id], 404);
  });

  it('keeps flags and bulk calls to editors; viewers read the flags', async () => {
    const workspace = await app.workspaceNamed('flag-roles');
    const conversation = await create('mine', workspace);
    const viewer = { 'X-API-Key': await app.createApiKey({ role: 'viewer' }) };
    await call(`/api/v1/conversations/${conversation.id}`, { method: 'PATCH', json: { is_pinned: true }, workspace, headers: viewer }, 403);
    await call(
      '/api/v1/conversations/bulk/archive',
      { method: 'POST', json: { conversation_ids: [conversation.id] }, workspace, headers: viewer },
      403,
    );
    await call('/api/v1/conversations?filter[archived]=false', { workspace, headers: viewer }, 200);
  });
});

describe("EdgeQuake's conversation operations this service does not offer", () => {
  it.each([
    ['POST', '/conversations/{id}/share', 'sharing conversations is not offered'],
    ['DELETE', '/conversations/{id}/share', 'sharing conversations is not offered'],
    ['GET', '/shared/abc123', 'sharing conversations is not offered'],
    ['POST', '/conversations/import', 'importing conversations is not offered'],
    ['POST', '/conversations/{id}/messages', 'messages are written by the chat'],
    ['PATCH', '/messages/m-1', 'messages are written by the chat'],
    ['DELETE', '/messages/m-1', 'messages are written by the chat'],
  ])('%s %s answers 501 and changes nothing', async (method, route, detail) => {
    const workspace = await app.workspaceNamed('not-offered');
    const conversation = await create('kept', workspace);
    const body = method === 'GET' || method === 'DELETE' ? undefined : { conversations: [], content: 'hi', role: 'user' };
    const res = await app.request(`/api/v1${route.replace('{id}', conversation.id)}`, { method, json: body, workspace });
    expect(res.status).toBe(501);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(await res.json()).toMatchObject({ status: 501, detail: expect.stringContaining(detail) });
    const kept = await call<{ message_count: number; title: string }>(`/api/v1/conversations/${conversation.id}`, { workspace }, 200);
    expect(kept).toMatchObject({ title: 'kept', message_count: 0 });
  });

  it('asks for a credential first', async () => {
    const res = await fetch(`${app.url}/api/v1/conversations/import`, { method: 'POST' });
    expect([res.status, app.config.auth.enabled]).toEqual(app.config.auth.enabled ? [401, true] : [501, false]);
  });
});
