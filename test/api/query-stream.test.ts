import Ajv from 'ajv';
import type { TestApp } from '../helpers/app';
import { startSeededApp } from '../helpers/seeded-app';
import { jsonEvents, parseSse, readSse, recordLlmCalls, ScriptedLlm } from '../unit/retrieval-fixtures';

let app: TestApp;

beforeAll(async () => {
  app = await startSeededApp();
});

afterAll(async () => {
  await app.close();
});

const stream = (json: Record<string, unknown>, init: { signal?: AbortSignal } = {}) =>
  app.request('/api/v1/query/stream', { method: 'POST', json, headers: { Accept: 'text/event-stream' }, ...init });

const question = { query: 'Where is Acme Corporation headquartered in Berlin?', mode: 'hybrid' };

describe('POST /query/stream (v2)', () => {
  it('sends context first, then tokens that make up the answer, then done with stats', async () => {
    const res = await stream(question);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = jsonEvents(await readSse(res));
    expect(events[0]).toEqual({
      type: 'context',
      sources: expect.any(Array),
      query_mode: 'hybrid',
      retrieval_time_ms: expect.any(Number),
      no_context: false,
    });
    const sources = events[0].sources as Array<Record<string, unknown>>;
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.find((s) => s.source_type === 'entity')).toMatchObject({ entity_type: expect.any(String), degree: expect.any(Number) });
    const tokens = events.slice(1, -1);
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.every((e) => e.type === 'token' && typeof e.content === 'string')).toBe(true);
    // EdgeQuake's stream readers take the text from `chunk`.
    expect(tokens.every((e) => e.chunk === e.content)).toBe(true);
    const done = events[events.length - 1];
    expect(done).toEqual({
      type: 'done',
      stats: {
        retrieval_time_ms: expect.any(Number),
        generation_time_ms: expect.any(Number),
        total_time_ms: expect.any(Number),
        sources_retrieved: sources.length,
        tokens_used: expect.any(Number),
        tokens_per_second: expect.any(Number),
        query_mode: 'hybrid',
      },
      llm_provider: 'mock',
      llm_model: 'mock-llm',
      no_context: false,
      prompt_version: 1,
      done: true,
    });
    const streamed = tokens.map((e) => e.content).join('');
    const plain = (await (await app.request('/api/v1/query', { method: 'POST', json: question })).json()) as { answer: string };
    expect(streamed).toBe(plain.answer);
  });

  it('context_only streams the context and done without an answer call', async () => {
    const rec = recordLlmCalls(app.rt);
    try {
      // A question of its own: a repeated one would take its keywords from the response cache.
      const events = jsonEvents(await readSse(await stream({ ...question, query: 'Who is in charge of Globex?', context_only: true })));
      expect(events.map((e) => e.type)).toEqual(['context', 'done']);
      expect(rec.calls.map((c) => c.task)).toEqual(['keywords']);
    } finally {
      rec.restore();
    }
  });

  it('refuses invalid requests with problem details before the stream opens', async () => {
    for (const [json, detail] of [
      [{ query: '  ' }, 'query: must not be empty'],
      [{ query: 'q', stream_format: 'v3' }, 'stream_format: must be v1 or v2'],
      [{ query: 'q', llm_provider: 'nope' }, 'llm_provider'],
      [{ query: 'q', document_filter: { date_from: 'soon' } }, 'document_filter.date_from'],
    ] as const) {
      const res = await stream(json);
      expect(res.status).toBe(422);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(((await res.json()) as { detail: string }).detail).toContain(detail);
    }
  });

  it('sends an error event and ends the stream when the model fails mid-answer', async () => {
    const rec = recordLlmCalls(app.rt, () => new ScriptedLlm(['one ', 'two ', 'three '], { failAfter: 2 }));
    try {
      const events = jsonEvents(await readSse(await stream(question)));
      expect(events.map((e) => e.type)).toEqual(['context', 'token', 'token', 'error']);
      expect(events[3]).toEqual({
        type: 'error',
        error: {
          type: expect.stringMatching(/\/service-unavailable$/),
          title: 'Service Unavailable',
          status: 503,
          detail: expect.stringContaining('model exploded'),
        },
      });
    } finally {
      rec.restore();
    }
  });

  it('stops generating when the client disconnects', async () => {
    const fragments = Array.from({ length: 200 }, (_, i) => `t${i} `);
    const model = new ScriptedLlm(fragments, { delayMs: 10 });
    const rec = recordLlmCalls(app.rt, () => model);
    try {
      const controller = new AbortController();
      const res = await stream(question, { signal: controller.signal });
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      let text = '';
      while (!text.includes('"type":"token"')) text += new TextDecoder().decode((await reader.read()).value);
      controller.abort();
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

describe('POST /query/stream (v1)', () => {
  it('sends the answer as raw text in data lines, nothing else', async () => {
    const res = await stream({ ...question, stream_format: 'v1' });
    expect(res.status).toBe(200);
    const raw = await res.text();
    const events = parseSse(raw);
    expect(events.length).toBeGreaterThan(1);
    for (const e of events) expect(e.data.startsWith('{')).toBe(false);
    const plain = (await (await app.request('/api/v1/query', { method: 'POST', json: question })).json()) as { answer: string };
    expect(events.map((e) => e.data).join('')).toBe(plain.answer);
    expect(raw).not.toContain('[DONE]');
  });

  it('keeps newlines of the answer as multi-line data', async () => {
    const rec = recordLlmCalls(app.rt, () => new ScriptedLlm(['first line\nsecond', ' line']));
    try {
      const events = await readSse(await stream({ ...question, stream_format: 'v1' }));
      expect(events.map((e) => e.data).join('')).toBe('first line\nsecond line');
    } finally {
      rec.restore();
    }
  });
});

describe('POST /query/stream as the API document describes it', () => {
  it('documents every frame of both formats: v2 frames as JSON events of the schema, v1 frames as raw text', async () => {
    const doc = (await (await app.request('/api-docs/openapi.json')).json()) as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content: Record<string, { schema: { properties: { data: DataSchema } } }> }> }>
      >;
      components: unknown;
    };
    type DataSchema = {
      anyOf: [{ contentMediaType: string; contentSchema: object }, { contentMediaType: string; not: { pattern: string } }];
    };
    const { data } = doc.paths['/api/v1/query/stream'].post.responses['200'].content['text/event-stream'].schema.properties;
    const [json, raw] = data.anyOf;
    expect([json.contentMediaType, raw.contentMediaType]).toEqual(['application/json', 'text/plain']);
    const isJsonEvent = (frame: string) => new RegExp(raw.not.pattern, 'u').test(frame);
    const valid = new Ajv({ strict: false }).compile({ ...json.contentSchema, components: doc.components });

    const v2 = await readSse(await stream(question));
    for (const { data: frame } of v2) {
      expect(isJsonEvent(frame)).toBe(true);
      expect([frame.slice(0, 40), valid(JSON.parse(frame)), valid.errors ?? null]).toEqual([frame.slice(0, 40), true, null]);
    }
    const v1 = await readSse(await stream({ ...question, stream_format: 'v1' }));
    expect(v1.length).toBeGreaterThan(1);
    for (const { data: frame } of v1) expect([frame, isJsonEvent(frame)]).toEqual([frame, false]);
  });
});
