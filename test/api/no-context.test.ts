import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { startTestApp, type TestApp } from '../helpers/app';
import { jsonEvents, readSse, recordLlmCalls } from '../unit/retrieval-fixtures';

/**
 * No context, no invented answer: a question whose retrieval finds nothing is answered with the configured
 * "no context" response, marked as such, without an answer call to the model, in every retrieving mode and every
 * API; bypass mode still asks the model.
 */

const RESPONSE = 'Nothing in these documents answers that.';
const QUESTION = 'What did the dragon of Atlantis eat for breakfast?';
const MODES = ['naive', 'local', 'global', 'hybrid', 'mix'] as const;

let app: TestApp;
let rec: ReturnType<typeof recordLlmCalls>;

beforeAll(async () => {
  app = await startTestApp({ SERVICE_NO_CONTEXT_RESPONSE: RESPONSE });
});
afterAll(async () => {
  await app.close();
});
beforeEach(() => {
  rec = recordLlmCalls(app.rt);
});
afterEach(() => rec.restore());

/** Calls that would write an answer (keyword calls belong to retrieval). */
const answerCalls = () => rec.calls.filter((c) => c.task !== 'keywords');

const post = async (path: string, json: Record<string, unknown>) => {
  const res = await app.request(path, { method: 'POST', json });
  expect(res.status).toBe(200);
  return res;
};

test('REST: every retrieving mode answers the configured response, marked, without an answer call', async () => {
  for (const mode of MODES) {
    const body = (await (await post('/api/v1/query', { query: QUESTION, mode })).json()) as Record<string, unknown>;
    expect([mode, body]).toMatchObject([mode, { answer: RESPONSE, sources: [], no_context: true, prompt_version: 1 }]);
  }
  expect(answerCalls()).toEqual([]);
});

test('bypass asks the model', async () => {
  const body = (await (await post('/api/v1/query', { query: QUESTION, mode: 'bypass' })).json()) as Record<string, unknown>;
  expect(body.no_context).toBe(false);
  expect(body.answer).not.toBe(RESPONSE);
  expect(answerCalls()).toHaveLength(1);
});

test('SSE: the context event and done say so, the one token is the response', async () => {
  const events = jsonEvents(await readSse(await post('/api/v1/query/stream', { query: QUESTION, mode: 'hybrid' })));
  expect(events[0]).toMatchObject({ type: 'context', sources: [], no_context: true });
  expect(events.filter((e) => e.type === 'token').map((e) => e.content)).toEqual([RESPONSE]);
  expect(events[events.length - 1]).toMatchObject({ type: 'done', no_context: true });
  expect(answerCalls()).toEqual([]);
});

test('chat, whole and streamed: the response is stored as the answer, marked', async () => {
  const reply = (await (await post('/api/v1/chat/completions', { message: QUESTION })).json()) as Record<string, unknown>;
  expect(reply).toMatchObject({ content: RESPONSE, no_context: true, sources: [] });
  const res = await app.request('/api/v1/chat/completions', {
    method: 'POST',
    json: { message: QUESTION, stream: true },
    headers: { Accept: 'text/event-stream' },
  });
  const events = jsonEvents(await readSse(res));
  expect(events.find((e) => e.type === 'context')).toMatchObject({ no_context: true });
  expect(events[events.length - 1]).toMatchObject({ type: 'done', no_context: true });
  expect(answerCalls()).toEqual([]);
});

test('Ollama and OpenAI layers: the response, marked `no_context`, without an answer call', async () => {
  const ollama = new Ollama({ host: app.url, headers: app.headers });
  const chat = await ollama.chat({ model: 'kgrag:hybrid', messages: [{ role: 'user', content: QUESTION }], stream: false });
  expect(chat.message.content).toBe(RESPONSE);
  expect((chat as unknown as { no_context?: boolean }).no_context).toBe(true);

  const openai = new OpenAI({ baseURL: `${app.url}/v1`, apiKey: 'unused', defaultHeaders: app.headers, maxRetries: 0 });
  const completion = await openai.chat.completions.create({ model: 'kgrag:mix', messages: [{ role: 'user', content: QUESTION }] });
  expect(completion.choices[0].message.content).toBe(RESPONSE);
  expect((completion as unknown as { no_context?: boolean }).no_context).toBe(true);
  let streamed = '';
  let marked = false;
  const stream = await openai.chat.completions.create({
    model: 'kgrag:local',
    messages: [{ role: 'user', content: QUESTION }],
    stream: true,
  });
  for await (const chunk of stream) {
    streamed += chunk.choices[0]?.delta.content ?? '';
    marked ||= (chunk as unknown as { no_context?: boolean }).no_context === true;
  }
  expect(streamed).toBe(RESPONSE);
  expect(marked).toBe(true);
  expect(answerCalls()).toEqual([]);
});
