import { startTestApp, type TestApp } from '../helpers/app';
import { startSeededApp } from '../helpers/seeded-app';

/**
 * What the official clients hide (docs/api.md §4.12), over raw HTTP: NDJSON line framing, SSE `data:` frames
 * with `[DONE]` and no `event:` lines, content types, bodies sent without a JSON content type, error shapes of
 * refusals made before the handler, and the query rate limit on the compatibility paths.
 */

let app: TestApp;

beforeAll(async () => {
  app = await startSeededApp();
});

afterAll(async () => {
  await app.close();
});

const QUESTION = 'Where is Acme Corporation headquartered?';
const post = (path: string, json: unknown, init: RequestInit = {}) => app.request(path, { method: 'POST', json, ...init });

describe('NDJSON streams of the local-runtime API', () => {
  it.each([
    ['/api/chat', { model: 'kgrag:hybrid', messages: [{ role: 'user', content: QUESTION }] }, 'message'],
    ['/api/generate', { model: 'kgrag:hybrid', prompt: QUESTION }, 'response'],
  ])('%s streams by default: one JSON object per line, each ended by a newline, done only on the last', async (path, body, field) => {
    const res = await post(path, body);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const raw = await res.text();
    expect(raw.endsWith('\n')).toBe(true);
    const lines = raw.slice(0, -1).split('\n');
    expect(lines.length).toBeGreaterThan(2);
    const objects = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(objects.slice(0, -1).every((o) => o.done === false && field in o)).toBe(true);
    expect(objects[objects.length - 1]).toMatchObject({ done: true, done_reason: 'stop' });
  });

  it('answers stream false with one JSON object', async () => {
    const res = await post('/api/chat', { model: 'kgrag:hybrid', messages: [{ role: 'user', content: QUESTION }], stream: false });
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const text = await res.text();
    expect(text.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(text)).toMatchObject({ done: true, message: { role: 'assistant' } });
  });

  it('reads a body sent without a JSON content type, as curl -d sends it', async () => {
    const res = await app.request('/api/chat', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: JSON.stringify({ model: 'kgrag:hybrid', messages: [{ role: 'user', content: QUESTION }], stream: false }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { message: { content: string } }).message.content).toContain('Berlin');
  });

  it('answers unparsable JSON, an unknown path and a wrong method in the runtime error shape', async () => {
    const bad = await app.request('/api/chat', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"model": ' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await bad.json()).toEqual({ error: 'failed to parse the request body as JSON' });
    const unknown = await app.request('/api/pull', { method: 'POST', json: { model: 'kgrag:hybrid' } });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: 'no route for POST /api/pull' });
    const wrong = await app.request('/api/chat');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toContain('POST');
    expect(await wrong.json()).toEqual({ error: 'method GET is not allowed on /api/chat; allowed: POST' });
  });

  it('leaves the rest of the API on problem details', async () => {
    const res = await app.request('/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
  });
});

describe('SSE streams of the OpenAI-compatible API', () => {
  it('sends data: frames only, each a JSON chunk, ending with data: [DONE]', async () => {
    const res = await post('/v1/chat/completions', {
      model: 'kgrag:hybrid',
      messages: [{ role: 'user', content: QUESTION }],
      stream: true,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toContain('no-cache');
    const raw = await res.text();
    expect(raw).not.toMatch(/^event:/m);
    expect(raw.endsWith('data: [DONE]\n\n')).toBe(true);
    const frames = raw.split('\n\n').filter(Boolean);
    expect(frames.every((f) => /^data: [^\n]+$/.test(f))).toBe(true);
    const chunks = frames
      .slice(0, -1)
      .map((f) => JSON.parse(f.slice(6)) as { object: string; choices: Array<{ finish_reason: string | null }> });
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('stop');
    expect(chunks.slice(0, -1).every((c) => c.choices[0].finish_reason === null)).toBe(true);
  });

  it('sends stream false as one chat.completion JSON object', async () => {
    const res = await post('/v1/chat/completions', { model: 'kgrag:hybrid', messages: [{ role: 'user', content: QUESTION }] });
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toMatchObject({ object: 'chat.completion' });
  });

  it('answers base64 embeddings as little-endian float32', async () => {
    const res = await post('/v1/embeddings', { model: 'kgrag:hybrid', input: 'graph databases', encoding_format: 'base64' });
    const body = (await res.json()) as { data: Array<{ embedding: string }> };
    const bytes = Buffer.from(body.data[0].embedding, 'base64');
    expect(bytes.length).toBe(256 * 4);
    const expected = (await app.rt.providers.embedding().embed(['graph databases']))[0];
    for (let i = 0; i < 256; i++) expect(bytes.readFloatLE(i * 4)).toBeCloseTo(expected[i], 6);
  });

  it('answers refusals made before the handler in the OpenAI error shape', async () => {
    const bad = await app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: 'nope',
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: { message: 'failed to parse the request body as JSON', type: 'invalid_request_error', param: null, code: null },
    });
    const other = await app.request('/v1/models/kgrag:hybrid@someone-else');
    expect(other.status).toBe(400);
    expect(await other.json()).toMatchObject({
      error: { type: 'invalid_request_error', message: expect.stringContaining("names workspace 'someone-else'") },
    });
    const missing = await app.request('/v1/completions', { method: 'POST', json: {} });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'not_found' } });
  });
});

describe('query rate limit on the compatibility paths', () => {
  let limited: TestApp;

  beforeAll(async () => {
    limited = await startTestApp({ SERVICE_RATE_LIMIT_QUERY: '2', SERVICE_RATE_LIMIT_WINDOW_MS: '60000' });
  });

  afterAll(async () => {
    await limited.close();
  });

  it('counts /api/chat, /api/generate and /v1/chat/completions against the one query allowance, and refuses in each shape', async () => {
    const key = { Authorization: `Bearer ${await limited.createApiKey()}` };
    const chat = { model: 'kgrag:bypass', messages: [{ role: 'user', content: 'hi' }], stream: false };
    const first = await limited.request('/api/chat', { method: 'POST', json: chat, headers: key });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('2');
    const second = await limited.request('/api/v1/query', { method: 'POST', json: { query: 'hi', mode: 'bypass' }, headers: key });
    expect(second.status).toBe(200);
    const ollama = await limited.request('/api/generate', {
      method: 'POST',
      json: { model: 'kgrag:bypass', prompt: 'hi', stream: false },
      headers: key,
    });
    expect(ollama.status).toBe(429);
    expect(Number(ollama.headers.get('retry-after'))).toBeGreaterThanOrEqual(0);
    expect(await ollama.json()).toEqual({ error: expect.stringMatching(/rate limit of 2 query requests/) });
    const openai = await limited.request('/v1/chat/completions', { method: 'POST', json: chat, headers: key });
    expect(openai.status).toBe(429);
    expect(await openai.json()).toEqual({
      error: { message: expect.stringMatching(/rate limit/), type: 'requests', param: null, code: 'rate_limit_exceeded' },
    });
    // Listing models and embedding are not queries.
    expect((await limited.request('/api/tags', { headers: key })).status).toBe(200);
    expect(
      (await limited.request('/v1/embeddings', { method: 'POST', json: { model: 'kgrag:hybrid', input: 'x' }, headers: key })).status,
    ).toBe(200);
  });
});
