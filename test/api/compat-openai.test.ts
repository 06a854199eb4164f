import OpenAI from 'openai';
import { tokenEncoder } from '../../src/llm/tokens';
import type { TestApp } from '../helpers/app';
import { startSeededApp } from '../helpers/seeded-app';
import { recordLlmCalls, ScriptedLlm } from '../unit/retrieval-fixtures';

/**
 * The OpenAI-compatible API (docs/api.md §4.12) driven by the official `openai` client against the real server:
 * chat completions streamed and not, usage, finish reasons, embeddings in both encodings, models, and errors
 * through the client's own error classes.
 */

let app: TestApp;
let client: OpenAI;

beforeAll(async () => {
  // No local runtime answers here (a closed port), whatever runs on this machine.
  app = await startSeededApp({ OLLAMA_HOST: 'http://127.0.0.1:9' });
  // No retries: a refused request must reach the test as the error it is.
  client = new OpenAI({ baseURL: `${app.url}/v1`, apiKey: 'unused', defaultHeaders: app.headers, maxRetries: 0 });
});

afterAll(async () => {
  await app.close();
});

const QUESTION = 'Where is Acme Corporation headquartered?';

async function queryAnswer(mode: string): Promise<string> {
  const res = await app.request('/api/v1/query', { method: 'POST', json: { query: QUESTION, mode } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { answer: string }).answer;
}

describe('chat completions through the openai client', () => {
  it('answers the last user message by retrieval with the completion fields and token usage', async () => {
    const completion = await client.chat.completions.create({ model: 'kgrag:hybrid', messages: [{ role: 'user', content: QUESTION }] });
    expect(completion).toMatchObject({
      id: expect.stringMatching(/^chatcmpl-/),
      object: 'chat.completion',
      model: 'kgrag:hybrid',
      created: expect.any(Number),
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: await queryAnswer('hybrid'), refusal: null },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
    });
    const usage = completion.usage!;
    expect(usage.prompt_tokens).toBeGreaterThan(0);
    expect(usage.completion_tokens).toBeGreaterThan(0);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expect(Math.abs(completion.created - Date.now() / 1000)).toBeLessThan(120);
  });

  it('streams the same answer as chunks of one completion, with usage last when asked for', async () => {
    const stream = await client.chat.completions.create({
      model: 'kgrag:hybrid',
      messages: [{ role: 'user', content: QUESTION }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'kgrag:hybrid')).toBe(true);
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    const usageChunk = chunks[chunks.length - 1];
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) });
    const finish = chunks[chunks.length - 2];
    expect(finish.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(await queryAnswer('hybrid'));
    expect(usageChunk.usage!.completion_tokens).toBeGreaterThan(1);
  });

  it('streams without a usage chunk unless asked for', async () => {
    const stream = await client.chat.completions.create({
      model: 'kgrag:naive',
      messages: [{ role: 'user', content: QUESTION }],
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((c) => c.choices.length === 1 && !('usage' in c))).toBe(true);
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('stop');
  });

  it.each(['naive', 'local', 'global', 'hybrid', 'mix', 'bypass'].map((m) => [m, m]))(
    'answers /%s and kgrag:%s in that mode',
    async (mode) => {
      const expected = await queryAnswer(mode);
      const byPrefix = await client.chat.completions.create({
        model: 'kgrag:hybrid',
        messages: [{ role: 'user', content: `/${mode} ${QUESTION}` }],
      });
      const byName = await client.chat.completions.create({ model: `kgrag:${mode}`, messages: [{ role: 'user', content: QUESTION }] });
      expect(byPrefix.choices[0].message.content).toBe(expected);
      expect(byName.choices[0].message.content).toBe(expected);
    },
  );

  it('passes sampling settings, a developer message and text parts through, and stops at max_tokens with length', async () => {
    const rec = recordLlmCalls(app.rt);
    try {
      const completion = await client.chat.completions.create({
        model: 'kgrag:hybrid',
        messages: [
          { role: 'developer', content: 'Cite sources.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Where is ' },
              { type: 'text', text: 'Acme Corporation headquartered?' },
            ],
          },
        ],
        temperature: 0.2,
        top_p: 0.9,
        seed: 42,
        stop: ['###'],
        max_tokens: 5,
      });
      expect(completion.choices[0].finish_reason).toBe('length');
      expect(completion.usage!.completion_tokens).toBe(5);
      const answer = rec.calls.find((c) => c.task === 'chat')!;
      expect(answer.options).toMatchObject({ temperature: 0.2, topP: 0.9, seed: 42, stop: ['###'], maxTokens: 5 });
      expect(answer.messages[0].content.startsWith('Cite sources.')).toBe(true);
      expect(answer.messages[answer.messages.length - 1]).toEqual({ role: 'user', content: QUESTION });
    } finally {
      rec.restore();
    }
  });

  it('hands a provider model the messages as they are; response_format json_object is JSON mode', async () => {
    const rec = recordLlmCalls(app.rt);
    try {
      const completion = await client.chat.completions.create({
        model: 'mock/mock-llm',
        messages: [{ role: 'user', content: 'Keywords of: graph databases in Berlin' }],
        response_format: { type: 'json_object' },
      });
      expect(rec.calls).toHaveLength(1);
      expect(rec.calls[0]).toMatchObject({
        task: undefined,
        messages: [{ role: 'user', content: 'Keywords of: graph databases in Berlin' }],
      });
      expect(rec.calls[0].options.json).toBe(true);
      expect(JSON.parse(completion.choices[0].message.content!)).toHaveProperty('low_level_keywords');
    } finally {
      rec.restore();
    }
  });

  it('stops the model when the client aborts the stream', async () => {
    const fragments = Array.from({ length: 200 }, (_, i) => `t${i} `);
    const model = new ScriptedLlm(fragments, { delayMs: 10 });
    const rec = recordLlmCalls(app.rt, () => model);
    try {
      const controller = new AbortController();
      const stream = await client.chat.completions.create(
        { model: 'kgrag:naive', messages: [{ role: 'user', content: QUESTION }], stream: true },
        { signal: controller.signal },
      );
      // The client ends its iteration quietly on its own abort.
      let seen = 0;
      for await (const chunk of stream) if (chunk.choices[0]?.delta.content && ++seen === 2) controller.abort();
      expect(seen).toBe(2);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const producedAfterLeaving = model.produced;
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(model.produced).toBe(producedAfterLeaving);
      expect(model.produced).toBeLessThan(fragments.length / 2);
    } finally {
      rec.restore();
    }
  });
});

describe('embeddings through the openai client', () => {
  const texts = ['Acme Corporation builds graph databases.', 'Paris museums open late.'];

  it('decodes the base64 vectors the client asks for by default to the model vectors', async () => {
    const reply = await client.embeddings.create({ model: 'kgrag:hybrid', input: texts });
    const expected = await app.rt.providers.embedding().embed(texts);
    expect(reply.object).toBe('list');
    expect(reply.data.map((d) => d.index)).toEqual([0, 1]);
    for (const [i, d] of reply.data.entries()) {
      expect(d.embedding).toHaveLength(256);
      // base64 carries float32: equal to float32 precision.
      d.embedding.forEach((v, k) => expect(v).toBeCloseTo(expected[i][k], 6));
    }
    expect(reply.usage.prompt_tokens).toBeGreaterThan(5);
    expect(reply.usage.total_tokens).toBe(reply.usage.prompt_tokens);
  });

  it('returns float arrays as they are with encoding_format float, for a string or token ids', async () => {
    const expected = (await app.rt.providers.embedding().embed([texts[0]]))[0];
    const single = await client.embeddings.create({ model: 'mock/mock-embedding', input: texts[0], encoding_format: 'float' });
    expect(single.data[0].embedding).toEqual(expected);
    const tokens = tokenEncoder().encode(texts[0]);
    const fromTokens = await client.embeddings.create({ model: 'mock/mock-embedding', input: [tokens], encoding_format: 'float' });
    expect(fromTokens.data[0].embedding).toEqual(expected);
  });

  it('refuses a chat model for embeddings with BadRequestError naming the parameter', async () => {
    const err = (await client.embeddings.create({ model: 'mock/mock-llm', input: 'x' }).catch((e: unknown) => e)) as InstanceType<
      typeof OpenAI.BadRequestError
    >;
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.status).toBe(400);
    expect(err.error).toMatchObject({
      type: 'invalid_request_error',
      param: 'model',
      message: expect.stringContaining('does not support embeddings'),
    });
  });
});

describe('models through the openai client', () => {
  it('lists the RAG models and the provider models', async () => {
    const ids = [];
    for await (const model of client.models.list()) {
      expect(model).toEqual({ id: model.id, object: 'model', created: expect.any(Number), owned_by: expect.any(String) });
      ids.push(model.id);
    }
    expect(ids.slice(0, 7)).toEqual(['naive', 'local', 'global', 'hybrid', 'mix', 'bypass', 'context'].map((m) => `kgrag:${m}`));
    // The openai provider is disabled without OPENAI_API_KEY, and no local runtime answers: only what can be served.
    expect(ids).toEqual(expect.arrayContaining(['mock/mock-llm', 'mock/mock-embedding']));
    expect(ids.filter((id) => id.startsWith('openai/') || id.startsWith('ollama/'))).toEqual([]);
  });

  it('retrieves one model, an id with a slash included', async () => {
    expect(await client.models.retrieve('mock/mock-llm')).toMatchObject({ id: 'mock/mock-llm', owned_by: 'mock' });
    expect(await client.models.retrieve('kgrag:mix')).toMatchObject({ id: 'kgrag:mix', owned_by: 'kgrag' });
  });
});

describe('errors through the openai client', () => {
  it('answers an unknown model with NotFoundError and code model_not_found', async () => {
    for (const call of [
      () => client.models.retrieve('gpt-9'),
      () => client.chat.completions.create({ model: 'gpt-9', messages: [{ role: 'user', content: 'hi' }] }),
    ]) {
      const err = (await call().catch((e: unknown) => e)) as InstanceType<typeof OpenAI.NotFoundError>;
      expect(err).toBeInstanceOf(OpenAI.NotFoundError);
      expect(err.error).toEqual({
        message: expect.stringContaining('model "gpt-9" not found'),
        type: 'invalid_request_error',
        param: 'model',
        code: 'model_not_found',
      });
    }
  });

  it('answers invalid parameters with BadRequestError naming the parameter', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ model: 'kgrag:hybrid', messages: [] }, 'messages'],
      [{ model: 'kgrag:hybrid', messages: [{ role: 'user', content: 'hi' }], temperature: 3 }, 'temperature'],
      [{ model: 'kgrag:hybrid', messages: [{ role: 'user', content: 'hi' }], n: 2 }, 'n'],
      [{ model: 'kgrag:hybrid', messages: [{ role: 'system', content: 'only a system message' }] }, 'messages'],
      [
        { model: 'kgrag:hybrid', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }] },
        'messages.0.content.0',
      ],
    ];
    for (const [body, param] of cases) {
      const err = (await client.chat.completions.create(body as never).catch((e: unknown) => e)) as InstanceType<
        typeof OpenAI.BadRequestError
      >;
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect(err.error).toMatchObject({ type: 'invalid_request_error', param });
    }
  });

  it('ends a stream whose model fails with an error frame, which the client throws as APIError', async () => {
    const rec = recordLlmCalls(app.rt, () => new ScriptedLlm(['one ', 'two ', 'three '], { failAfter: 2 }));
    try {
      const stream = await client.chat.completions.create({
        model: 'kgrag:naive',
        messages: [{ role: 'user', content: QUESTION }],
        stream: true,
      });
      const seen: string[] = [];
      const err = await (async () => {
        for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? '');
      })().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect((err as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ type: 'server_error', code: 'service_unavailable' });
      expect((err as Error).message).toContain('model exploded');
      expect(seen.join('')).toBe('one two ');
    } finally {
      rec.restore();
    }
  });

  it('answers a model that fails before the answer with InternalServerError 503', async () => {
    const rec = recordLlmCalls(app.rt, () => new ScriptedLlm(['x'], { failAfter: 0 }));
    try {
      const err = (await client.chat.completions
        .create({ model: 'kgrag:naive', messages: [{ role: 'user', content: QUESTION }] })
        .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.InternalServerError>;
      expect(err).toBeInstanceOf(OpenAI.InternalServerError);
      expect(err.status).toBe(503);
    } finally {
      rec.restore();
    }
  });
});
