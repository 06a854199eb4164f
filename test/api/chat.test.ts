import type { TestApp } from '../helpers/app';
import { startSeededApp } from '../helpers/seeded-app';
import { jsonEvents, readSse, recordLlmCalls, ScriptedLlm } from '../unit/retrieval-fixtures';

let app: TestApp;

beforeAll(async () => {
  app = await startSeededApp();
});

afterAll(async () => {
  await app.close();
});

const chat = (json: Record<string, unknown>, workspace?: string) =>
  app.request('/api/v1/chat/completions', { method: 'POST', json, workspace });

interface Reply {
  id: string;
  conversation_id: string;
  role: string;
  content: string;
  sources: Array<Record<string, unknown>>;
  stats: Record<string, unknown>;
  created_at: string;
}

interface Message {
  id: string;
  role: string;
  content: string;
  status: string;
  sources: unknown[];
}

async function messagesOf(conversationId: string): Promise<Message[]> {
  const res = await app.request(`/api/v1/conversations/${conversationId}/messages`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: Message[] }).messages;
}

describe('POST /chat/completions', () => {
  it('starts a conversation, answers with sources and stores both messages', async () => {
    const res = await chat({ message: 'Who leads Globex?' });
    expect(res.status).toBe(200);
    const reply = (await res.json()) as Reply;
    expect(reply).toEqual({
      id: expect.any(String),
      conversation_id: expect.any(String),
      role: 'assistant',
      content: expect.stringContaining('Bob Jones'),
      sources: expect.any(Array),
      stats: expect.objectContaining({ llm_provider: 'mock', llm_model: 'mock-llm', tokens_used: expect.any(Number) }),
      created_at: expect.any(String),
      // EdgeQuake's names beside the spec's.
      assistant_message_id: reply.id,
      user_message_id: expect.any(String),
      mode: 'hybrid',
      no_context: false,
    });
    expect(reply.sources.length).toBeGreaterThan(0);
    const messages = await messagesOf(reply.conversation_id);
    expect(messages[0].id).toBe((reply as Reply & { user_message_id: string }).user_message_id);
    expect(messages.map((m) => [m.role, m.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'complete'],
    ]);
    expect(messages[0].content).toBe('Who leads Globex?');
    expect(messages[1]).toMatchObject({ id: reply.id, content: reply.content, sources: reply.sources });
    const conversation = (await (await app.request(`/api/v1/conversations/${reply.conversation_id}`)).json()) as Record<string, unknown>;
    expect(conversation).toMatchObject({ title: 'Who leads Globex?', mode: 'hybrid', message_count: 2 });
  });

  it('feeds earlier turns into keyword extraction and the prompt of the next turn', async () => {
    const first = (await (await chat({ message: 'Tell me about Bob Jones.' })).json()) as Reply;
    const rec = recordLlmCalls(app.rt);
    try {
      const res = await chat({ message: 'Where is the laboratory of his company?', conversation_id: first.conversation_id });
      expect(res.status).toBe(200);
      const [keywords, answer] = rec.calls;
      expect(keywords.task).toBe('keywords');
      expect(keywords.messages.map((m) => m.content).join('\n')).toContain('user: Tell me about Bob Jones.');
      expect(answer.task).toBe('chat');
      expect(answer.messages.map((m) => [m.role, m.content])).toEqual(
        expect.arrayContaining([
          ['user', 'Tell me about Bob Jones.'],
          ['assistant', first.content],
        ]),
      );
      expect(answer.messages[answer.messages.length - 1].content).toBe('Where is the laboratory of his company?');
    } finally {
      rec.restore();
    }
    expect((await messagesOf(first.conversation_id)).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('returns 404 for an unknown conversation without calling a model or storing anything', async () => {
    const rec = recordLlmCalls(app.rt);
    try {
      const res = await chat({ message: 'hello', conversation_id: 'no-such-conversation' });
      expect(res.status).toBe(404);
      expect(((await res.json()) as { detail: string }).detail).toContain("conversation 'no-such-conversation'");
      expect(rec.calls).toHaveLength(0);
    } finally {
      rec.restore();
    }
  });

  it("returns 404 for another workspace's conversation, and that workspace sees none of these sources", async () => {
    const mine = (await (await chat({ message: 'Who leads Globex?' })).json()) as Reply;
    const other = `${app.workspace}-b`;
    expect((await chat({ message: 'hello', conversation_id: mine.conversation_id }, other)).status).toBe(404);
    expect((await app.request(`/api/v1/conversations/${mine.conversation_id}`, { workspace: other })).status).toBe(404);
    const theirs = (await (await chat({ message: 'Who leads Globex?' }, other)).json()) as Reply;
    expect(theirs.sources).toEqual([]);
    expect(theirs.content).toMatch(/no information/i);
  });

  it('refuses an unknown llm_provider with 422 before creating a conversation', async () => {
    const before = ((await (await app.request('/api/v1/conversations')).json()) as { total: number }).total;
    const res = await chat({ message: 'hello', llm_provider: 'nope' });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: string }).detail).toContain('llm_provider');
    const after = ((await (await app.request('/api/v1/conversations')).json()) as { total: number }).total;
    expect(after).toBe(before);
  });

  it('refuses an empty message and an unknown mode with 422 naming the field', async () => {
    for (const [json, detail] of [
      [{ message: ' ' }, 'message: must not be empty'],
      [{}, 'message: required'],
      [{ message: 'q', mode: 'fancy' }, 'mode: must be one of'],
      [{ message: 'q', document_filter: { date_to: '2024-99-01' } }, 'document_filter.date_to'],
    ] as const) {
      const res = await chat(json);
      expect(res.status).toBe(422);
      expect(((await res.json()) as { detail: string }).detail).toContain(detail);
    }
  });

  it('keeps the user message and stores the answer as failed when the model fails', async () => {
    const rec = recordLlmCalls(app.rt, () => new ScriptedLlm(['x'], { failAfter: 0 }));
    let conversationId: string;
    try {
      const created = (await (await app.request('/api/v1/conversations', { method: 'POST', json: {} })).json()) as { id: string };
      conversationId = created.id;
      const res = await chat({ message: 'Who leads Globex?', conversation_id: conversationId });
      expect(res.status).toBe(503);
    } finally {
      rec.restore();
    }
    expect((await messagesOf(conversationId)).map((m) => [m.role, m.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'failed'],
    ]);
  });
});

describe('POST /chat/completions with stream true', () => {
  const streamChat = (json: Record<string, unknown>) =>
    app.request('/api/v1/chat/completions', { method: 'POST', json: { ...json, stream: true }, headers: { Accept: 'text/event-stream' } });

  it('sends conversation, context, tokens and done, and stores the streamed answer', async () => {
    const res = await streamChat({ message: 'Where is Acme Corporation headquartered?' });
    expect(res.status).toBe(200);
    const events = jsonEvents(await readSse(res));
    expect(events[0]).toEqual({ type: 'conversation', conversation_id: expect.any(String), user_message_id: expect.any(String) });
    expect(events[1]).toMatchObject({
      type: 'context',
      sources: expect.any(Array),
      query_mode: 'hybrid',
      retrieval_time_ms: expect.any(Number),
    });
    const tokens = events.slice(2, -1);
    expect(tokens.length).toBeGreaterThan(0);
    expect(tokens.every((e) => e.type === 'token')).toBe(true);
    const done = events[events.length - 1];
    expect(done).toEqual({
      type: 'done',
      assistant_message_id: expect.any(String),
      tokens_used: expect.any(Number),
      duration_ms: expect.any(Number),
      llm_provider: 'mock',
      llm_model: 'mock-llm',
      no_context: false,
      done: true,
    });
    expect(tokens.every((t) => t.chunk === t.content)).toBe(true);
    const messages = await messagesOf(events[0].conversation_id as string);
    expect(messages.map((m) => m.id)).toEqual([events[0].user_message_id, done.assistant_message_id]);
    expect(messages[1]).toMatchObject({ status: 'complete', content: tokens.map((t) => t.content).join('') });
    expect(messages[1].sources).toEqual(events[1].sources);
    const conversation = (await (await app.request(`/api/v1/conversations/${String(events[0].conversation_id)}`)).json()) as Record<
      string,
      unknown
    >;
    expect(conversation.message_count).toBe(2);
  });

  it('answers 404 before the stream opens for an unknown conversation', async () => {
    const res = await streamChat({ message: 'hi', conversation_id: 'missing' });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
  });

  it('sends an error event when the model fails mid-stream and marks the partial answer failed', async () => {
    const rec = recordLlmCalls(app.rt, () => new ScriptedLlm(['partial ', 'answer ', 'never'], { failAfter: 2 }));
    let events;
    try {
      events = jsonEvents(await readSse(await streamChat({ message: 'Who leads Globex?' })));
    } finally {
      rec.restore();
    }
    expect(events.map((e) => e.type)).toEqual(['conversation', 'context', 'token', 'token', 'error']);
    expect(events[4]).toMatchObject({ error: { status: 503, title: 'Service Unavailable' } });
    const messages = await messagesOf(events[0].conversation_id as string);
    expect(messages[1]).toMatchObject({ role: 'assistant', status: 'failed', content: 'partial answer ' });
    const conversation = (await (await app.request(`/api/v1/conversations/${String(events[0].conversation_id)}`)).json()) as {
      message_count: number;
    };
    expect(conversation.message_count).toBe(2);
  });

  it('leaves no empty answer behind when the client leaves before the first fragment', async () => {
    const model = new ScriptedLlm(['late '], { delayMs: 600 });
    const rec = recordLlmCalls(app.rt, () => model);
    let conversationId = '';
    try {
      const controller = new AbortController();
      const res = await app.request('/api/v1/chat/completions', {
        method: 'POST',
        json: { message: 'Who leads Globex?', stream: true },
        signal: controller.signal,
      });
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      let text = '';
      while (!text.includes('"type":"context"')) text += new TextDecoder().decode((await reader.read()).value);
      conversationId = /"conversation_id":"([^"]+)"/.exec(text)?.[1] ?? '';
      controller.abort();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(model.produced).toBe(0);
    } finally {
      rec.restore();
    }
    expect((await messagesOf(conversationId)).map((m) => [m.role, m.status])).toEqual([['user', 'complete']]);
  });

  it('stops generating when the client leaves and stores the partial answer as failed', async () => {
    const model = new ScriptedLlm(
      Array.from({ length: 200 }, (_, i) => `w${i} `),
      { delayMs: 10 },
    );
    const rec = recordLlmCalls(app.rt, () => model);
    let conversationId = '';
    try {
      const controller = new AbortController();
      const res = await app.request('/api/v1/chat/completions', {
        method: 'POST',
        json: { message: 'Who leads Globex?', stream: true },
        signal: controller.signal,
      });
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      let text = '';
      while (!text.includes('"type":"token"')) text += new TextDecoder().decode((await reader.read()).value);
      conversationId = /"conversation_id":"([^"]+)"/.exec(text)?.[1] ?? '';
      controller.abort();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const produced = model.produced;
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(model.produced).toBe(produced);
      expect(produced).toBeLessThan(100);
    } finally {
      rec.restore();
    }
    const messages = await messagesOf(conversationId);
    expect(messages[1]).toMatchObject({ role: 'assistant', status: 'failed' });
    expect(messages[1].content.startsWith('w0 ')).toBe(true);
  });
});
