import { startTestApp, type TestApp } from '../helpers/app';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app.close();
});

const create = async (json: Record<string, unknown>, workspace?: string) => {
  const res = await app.request('/api/v1/conversations', { method: 'POST', json, workspace });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; title: string; mode: string; message_count: number };
};

describe('conversations', () => {
  it('creates a conversation with a title and mode, and shows it with no messages', async () => {
    const created = await create({ title: 'Planning', mode: 'local' });
    expect(created).toEqual({
      id: expect.any(String),
      title: 'Planning',
      mode: 'local',
      message_count: 0,
      folder_id: null,
      is_pinned: false,
      is_archived: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const res = await app.request(`/api/v1/conversations/${created.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ...created, messages: [] });
  });

  it('defaults to hybrid mode and takes its title from the first chat message', async () => {
    const created = await create({});
    expect(created).toMatchObject({ title: '', mode: 'hybrid' });
    await app.request('/api/v1/chat/completions', {
      method: 'POST',
      json: { message: 'First question here', conversation_id: created.id },
    });
    const shown = (await (await app.request(`/api/v1/conversations/${created.id}`)).json()) as {
      title: string;
      message_count: number;
      messages: Array<{ role: string; status: string; created_at: string }>;
    };
    expect(shown.title).toBe('First question here');
    expect(shown.message_count).toBe(2);
    expect(shown.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('lists conversations with total, limit and offset, most recently active first', async () => {
    const workspace = `${app.workspace}-list`;
    const ids: string[] = [];
    for (const title of ['a', 'b', 'c']) {
      ids.push((await create({ title }, workspace)).id);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const page = (await (await app.request('/api/v1/conversations?limit=2&offset=1', { workspace })).json()) as {
      conversations: Array<{ id: string }>;
      total: number;
      limit: number;
      offset: number;
    };
    expect(page.total).toBe(3);
    expect(page.limit).toBe(2);
    expect(page.offset).toBe(1);
    expect(page.conversations.map((c) => c.id)).toEqual([ids[1], ids[0]]);
  });

  it('pages the messages of a conversation, oldest first', async () => {
    const created = await create({});
    for (const message of ['one', 'two']) {
      await app.request('/api/v1/chat/completions', { method: 'POST', json: { message, conversation_id: created.id } });
    }
    const res = await app.request(`/api/v1/conversations/${created.id}/messages?limit=2&offset=1`);
    const page = (await res.json()) as { messages: Array<Record<string, unknown>>; total: number; limit: number; offset: number };
    expect(page.total).toBe(4);
    expect(page.messages.map((m) => m.role)).toEqual(['assistant', 'user']);
    expect(page.messages[1]).toEqual({
      id: expect.any(String),
      conversation_id: created.id,
      role: 'user',
      content: 'two',
      sources: [],
      status: 'complete',
      created_at: expect.any(String),
    });
  });

  it('deletes a conversation with its messages (204), after which it is 404', async () => {
    const created = await create({ title: 'doomed' });
    await app.request('/api/v1/chat/completions', { method: 'POST', json: { message: 'hello', conversation_id: created.id } });
    const res = await app.request(`/api/v1/conversations/${created.id}`, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect((await app.request(`/api/v1/conversations/${created.id}`)).status).toBe(404);
    expect((await app.request(`/api/v1/conversations/${created.id}/messages`)).status).toBe(404);
    expect((await app.request(`/api/v1/conversations/${created.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it("answers 404 for another workspace's conversation on every path", async () => {
    const created = await create({ title: 'private' });
    const other = `${app.workspace}-other`;
    for (const [method, path] of [
      ['GET', `/api/v1/conversations/${created.id}`],
      ['GET', `/api/v1/conversations/${created.id}/messages`],
      ['DELETE', `/api/v1/conversations/${created.id}`],
    ]) {
      const res = await app.request(path, { method, workspace: other });
      expect(res.status).toBe(404);
    }
    expect((await app.request(`/api/v1/conversations/${created.id}`)).status).toBe(200);
    const list = (await (await app.request('/api/v1/conversations', { workspace: other })).json()) as { total: number };
    expect(list.total).toBe(0);
  });

  it('refuses a bad mode, an overlong title and bad paging with 422 naming the field', async () => {
    for (const [init, path, detail] of [
      [{ method: 'POST', json: { mode: 'fancy' } }, '/api/v1/conversations', 'mode: must be one of'],
      [{ method: 'POST', json: { title: 'x'.repeat(201) } }, '/api/v1/conversations', 'title: must be at most 200 characters'],
      [{}, '/api/v1/conversations?limit=0', 'limit'],
      [{}, '/api/v1/conversations?offset=-1', 'offset'],
    ] as const) {
      const res = await app.request(path, init);
      expect(res.status).toBe(422);
      expect(((await res.json()) as { detail: string }).detail).toContain(detail);
    }
  });
});
