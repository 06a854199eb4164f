import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/load';
import type { ProviderRegistry } from '../../src/llm/ports';
import { createProviderRegistry } from '../../src/llm/registry';

/**
 * The openai and ollama adapters against a local HTTP stub that speaks the OpenAI chat-completions and
 * embeddings APIs (JSON and SSE) and the Ollama /api/chat (NDJSON or JSON), /api/embed and /api/tags APIs.
 */

interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

const REPLY = ['Hello', ' from', ' the', ' stub'];
const JSON_REPLY = '{"ok": true}';
const OPENAI_KEY = 'sk-stub-key';

const seen: SeenRequest[] = [];
let server: http.Server;
let base: string;
let dir: string;

/** Deterministic 3-dimension vector of a text. */
const vectorOf = (text: string) => [text.length, 1, -0.5];

/** Failures still to answer for model `gpt-flaky`. */
let flakyFailures = 0;

function openaiChat(req: SeenRequest, res: http.ServerResponse): void {
  const body = req.body as { model: string; stream?: boolean; response_format?: { type: string } };
  const failWith = body.model === 'gpt-bad-request' ? 400 : body.model === 'gpt-flaky' && flakyFailures-- > 0 ? 503 : 0;
  if (failWith) {
    res.writeHead(failWith, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'stub refuses', type: 'invalid_request_error', code: null } }));
    return;
  }
  const parts = body.response_format?.type === 'json_object' ? [JSON_REPLY] : REPLY;
  const base = { id: 'chatcmpl-1', created: 1_700_000_000, model: body.model };
  if (!body.stream) {
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: parts.join('') }, finish_reason: 'stop', logprobs: null }],
        usage: { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 },
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
  const chunk = (delta: object, finish: string | null) => ({
    ...base,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  send(chunk({ role: 'assistant', content: '' }, null));
  for (const p of parts) send(chunk({ content: p }, null));
  send(chunk({}, 'stop'));
  send({ ...base, object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 } });
  res.end('data: [DONE]\n\n');
}

function openaiEmbeddings(req: SeenRequest, res: http.ServerResponse): void {
  const body = req.body as { model: string; input: string | string[]; encoding_format?: string };
  const inputs = Array.isArray(body.input) ? body.input : [body.input];
  const data = inputs.map((text, index) => {
    const v = vectorOf(text);
    // The openai client asks for base64 unless told otherwise: little-endian float32.
    const embedding = body.encoding_format === 'base64' ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v;
    return { object: 'embedding', index, embedding };
  });
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ object: 'list', model: body.model, data, usage: { prompt_tokens: 5, total_tokens: 5 } }));
}

function ollamaChat(req: SeenRequest, res: http.ServerResponse): void {
  const body = req.body as { model: string; stream?: boolean; format?: string };
  const parts = body.format === 'json' ? [JSON_REPLY] : REPLY;
  const at = '2024-01-01T00:00:00Z';
  const final = {
    model: body.model,
    created_at: at,
    done: true,
    done_reason: 'stop',
    prompt_eval_count: 9,
    eval_count: 4,
    total_duration: 1,
  };
  if (body.stream === false) {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ ...final, message: { role: 'assistant', content: parts.join('') } }));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  for (const p of parts)
    res.write(`${JSON.stringify({ model: body.model, created_at: at, message: { role: 'assistant', content: p }, done: false })}\n`);
  res.end(`${JSON.stringify({ ...final, message: { role: 'assistant', content: '' } })}\n`);
}

function ollamaEmbed(req: SeenRequest, res: http.ServerResponse): void {
  const body = req.body as { model: string; input: string | string[] };
  const inputs = Array.isArray(body.input) ? body.input : [body.input];
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ model: body.model, embeddings: inputs.map(vectorOf) }));
}

function route(req: SeenRequest, res: http.ServerResponse): void {
  const key = `${req.method} ${req.path}`;
  if (key === 'GET /v1/models') {
    const ok = req.headers.authorization === `Bearer ${OPENAI_KEY}`;
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? { object: 'list', data: [{ id: 'gpt-stub', object: 'model' }] } : { error: { message: 'bad key' } }));
  } else if (key === 'POST /v1/chat/completions') openaiChat(req, res);
  else if (key === 'POST /v1/embeddings') openaiEmbeddings(req, res);
  else if (key === 'POST /api/chat') ollamaChat(req, res);
  else if (key === 'POST /api/embed') ollamaEmbed(req, res);
  else if (key === 'GET /api/tags') res.end(JSON.stringify({ models: [] }));
  else {
    res.writeHead(404);
    res.end();
  }
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const seenRequest: SeenRequest = {
        method: req.method ?? '',
        path: (req.url ?? '').split('?')[0],
        headers: req.headers,
        body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {},
      };
      seen.push(seenRequest);
      route(seenRequest, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgrag-providers-'));
  fs.writeFileSync(
    path.join(dir, 'models.toml'),
    `
[defaults]
llm_provider = "mock"
embedding_provider = "mock"

[[providers]]
name = "mock"
type = "mock"
models = [{ name = "mock-llm", model_type = "llm" }, { name = "mock-embedding", model_type = "embedding", capabilities = { embedding_dimension = 16 } }]

[[providers]]
name = "stub-openai"
type = "openai"
api_base = "${base}/v1"
api_key_env = "STUB_OPENAI_KEY"
models = [{ name = "gpt-stub", model_type = "llm" }, { name = "embed-stub", model_type = "embedding", capabilities = { embedding_dimension = 3 } }]

[[providers]]
name = "stub-ollama"
type = "ollama"
api_base = "${base}"
models = [{ name = "llama-stub", model_type = "llm" }, { name = "embed-stub", model_type = "embedding", capabilities = { embedding_dimension = 3 } }]
`,
  );
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  fs.rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  seen.length = 0;
});

function registryWith(key = OPENAI_KEY): ProviderRegistry {
  const config = loadConfig({ STUB_OPENAI_KEY: key, SERVICE_LLM_RETRIES: '0' }, { cwd: dir, homeDir: dir });
  return createProviderRegistry(config);
}

const MESSAGES = [
  { role: 'system' as const, content: 'Be brief.' },
  { role: 'user' as const, content: 'Say hello.' },
];

async function collect(gen: AsyncGenerator<string, unknown, void>): Promise<{ parts: string[]; result: unknown }> {
  const parts: string[] = [];
  for (;;) {
    const step = await gen.next();
    if (step.done) return { parts, result: step.value };
    parts.push(step.value);
  }
}

describe('openai adapter against a stub of the OpenAI API', () => {
  test('complete sends the model, the messages and the API key, and returns the text with the reported usage', async () => {
    const reply = await registryWith().llm('stub-openai', 'gpt-stub').complete(MESSAGES, { temperature: 0 });
    expect(reply).toEqual({ text: 'Hello from the stub', usage: { input_tokens: 11, output_tokens: 4 }, finish_reason: 'stop' });
    const [req] = seen;
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(req.body).toMatchObject({
      model: 'gpt-stub',
      temperature: 0,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello.' },
      ],
    });
    expect(req.body.response_format).toBeUndefined();
  });

  test('json mode asks for response_format json_object', async () => {
    const reply = await registryWith().llm('stub-openai', 'gpt-stub').complete(MESSAGES, { json: true, task: 'keywords' });
    expect(JSON.parse(reply.text)).toEqual({ ok: true });
    expect(seen[0].body.response_format).toEqual({ type: 'json_object' });
  });

  test('stream yields the SSE fragments in order and returns the usage of the last chunk', async () => {
    const { parts, result } = await collect(registryWith().llm('stub-openai', 'gpt-stub').stream(MESSAGES));
    expect(parts.join('')).toBe('Hello from the stub');
    expect(parts.length).toBe(4);
    expect(result).toEqual({ input_tokens: 11, output_tokens: 4, finish_reason: 'stop' });
    expect(seen[0].body).toMatchObject({ model: 'gpt-stub', stream: true });
  });

  test('any model name is passed through, even one the catalog does not list', async () => {
    await registryWith().llm('stub-openai', 'gpt-unlisted').complete(MESSAGES);
    expect(seen[0].body.model).toBe('gpt-unlisted');
  });

  test('embed sends the model and key and decodes the vectors', async () => {
    const embeddings = registryWith().embedding('stub-openai', 'embed-stub');
    expect(embeddings.dimension).toBe(3);
    expect(await embeddings.embed(['graph', 'knowledge'])).toEqual([vectorOf('graph'), vectorOf('knowledge')]);
    expect(seen[0]).toMatchObject({ path: '/v1/embeddings', body: { model: 'embed-stub', input: ['graph', 'knowledge'] } });
    expect(seen[0].headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(seen[0].body.dimensions).toBeUndefined();
  });

  test('a 400 answer fails at once with its status; a 503 is retried and then succeeds', async () => {
    const registry = createProviderRegistry(
      loadConfig({ STUB_OPENAI_KEY: OPENAI_KEY, SERVICE_LLM_RETRIES: '2' }, { cwd: dir, homeDir: dir }),
    );
    await expect(registry.llm('stub-openai', 'gpt-bad-request').complete(MESSAGES)).rejects.toMatchObject({ status: 400 });
    expect(seen).toHaveLength(1);
    seen.length = 0;
    flakyFailures = 1;
    await expect(registry.llm('stub-openai', 'gpt-flaky').complete(MESSAGES)).resolves.toMatchObject({ text: 'Hello from the stub' });
    expect(seen).toHaveLength(2);
  });
});

describe('ollama adapter against a stub of the Ollama API', () => {
  test('complete sends the model and messages to /api/chat and returns the text with the reported usage', async () => {
    const reply = await registryWith().llm('stub-ollama', 'llama-stub').complete(MESSAGES);
    expect(reply).toEqual({ text: 'Hello from the stub', usage: { input_tokens: 9, output_tokens: 4 }, finish_reason: 'stop' });
    expect(seen[0]).toMatchObject({ path: '/api/chat', body: { model: 'llama-stub', messages: [{ role: 'system' }, { role: 'user' }] } });
    expect(seen[0].body.format).toBeUndefined();
  });

  test("json mode asks for format 'json'", async () => {
    const reply = await registryWith().llm('stub-ollama', 'llama-stub').complete(MESSAGES, { json: true });
    expect(JSON.parse(reply.text)).toEqual({ ok: true });
    expect(seen[0].body.format).toBe('json');
  });

  test('stream yields the NDJSON fragments in order', async () => {
    const { parts, result } = await collect(registryWith().llm('stub-ollama', 'llama-stub').stream(MESSAGES));
    expect(parts).toEqual(REPLY);
    expect(result).toEqual({ input_tokens: 9, output_tokens: 4, finish_reason: 'stop' });
    expect(seen[0].body.stream).toBe(true);
  });

  test('the stub also answers a non-streaming /api/chat with one JSON object', async () => {
    const res = await fetch(`${base}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: 'llama-stub', stream: false, messages: [] }),
    });
    expect(await res.json()).toMatchObject({ done: true, message: { content: 'Hello from the stub' } });
  });

  test('embed calls /api/embed with the model and all inputs', async () => {
    const vectors = await registryWith().embedding('stub-ollama', 'embed-stub').embed(['a', 'bb']);
    expect(vectors).toEqual([vectorOf('a'), vectorOf('bb')]);
    expect(seen[0]).toMatchObject({ path: '/api/embed', body: { model: 'embed-stub', input: ['a', 'bb'] } });
  });
});

describe('provider health checks against the stub', () => {
  test('check reports every enabled provider healthy when the stub answers', async () => {
    const results = await registryWith().check();
    expect(results.map((r) => [r.name, r.status])).toEqual([
      ['mock', 'healthy'],
      ['stub-openai', 'healthy'],
      ['stub-ollama', 'healthy'],
    ]);
    expect(results.every((r) => r.latency_ms >= 0)).toBe(true);
    expect(seen.map((r) => `${r.method} ${r.path}`).sort()).toEqual(['GET /api/tags', 'GET /v1/models']);
  });

  test('a rejected API key makes the openai provider unhealthy with the HTTP status', async () => {
    const results = await registryWith('sk-wrong').check();
    expect(results.find((r) => r.name === 'stub-openai')).toMatchObject({
      status: 'unhealthy',
      error: expect.stringContaining('HTTP 401'),
    });
  });
});
