import { OllamaEmbeddings } from '@langchain/ollama';
import { Ollama } from 'ollama';
import type { TestApp } from '../helpers/app';
import { startSeededApp } from '../helpers/seeded-app';
import { recordLlmCalls, ScriptedLlm } from '../unit/retrieval-fixtures';

/**
 * The local-runtime API (docs/api.md §4.12) driven by the official `ollama` client against the real server:
 * models, chat and generate (streamed and not), every mode, embeddings, errors through the client's own error.
 */

let app: TestApp;
let ollama: Ollama;

beforeAll(async () => {
  // No local runtime answers here (a closed port), whatever runs on this machine.
  app = await startSeededApp({ OLLAMA_HOST: 'http://127.0.0.1:9' });
  ollama = new Ollama({ host: app.url, headers: app.headers });
});

afterAll(async () => {
  await app.close();
});

const QUESTION = 'Where is Acme Corporation headquartered?';
const MODES = ['naive', 'local', 'global', 'hybrid', 'mix', 'bypass'] as const;

/** What POST /api/v1/query answers for the same question and mode. */
async function queryAnswer(mode: string, extra: Record<string, unknown> = {}): Promise<{ answer: string; context?: string }> {
  const res = await app.request('/api/v1/query', { method: 'POST', json: { query: QUESTION, mode, ...extra } });
  expect(res.status).toBe(200);
  return (await res.json()) as { answer: string; context?: string };
}

function expectFinalFields(reply: Record<string, unknown>): void {
  for (const field of ['total_duration', 'load_duration', 'prompt_eval_count', 'prompt_eval_duration', 'eval_count', 'eval_duration']) {
    expect(Number.isInteger(reply[field])).toBe(true);
    expect(reply[field] as number).toBeGreaterThanOrEqual(0);
  }
  const total = reply.total_duration as number;
  for (const part of ['load_duration', 'prompt_eval_duration', 'eval_duration']) expect(reply[part] as number).toBeLessThanOrEqual(total);
  expect(reply.prompt_eval_count as number).toBeGreaterThan(0);
  expect(reply.eval_count as number).toBeGreaterThan(0);
  expect(reply.done).toBe(true);
  expect(reply.done_reason).toBe('stop');
}

describe('models through the ollama client', () => {
  it('reports the service version', async () => {
    const health = (await (await app.request('/health')).json()) as { version: string };
    expect(await ollama.version()).toEqual({ version: health.version });
  });

  it('lists one RAG model per mode, then the provider models, with every field of the runtime', async () => {
    const { models } = await ollama.list();
    const names = models.map((m) => m.name);
    expect(names.slice(0, 7)).toEqual(['naive', 'local', 'global', 'hybrid', 'mix', 'bypass', 'context'].map((m) => `kgrag:${m}`));
    // Every name carries a tag, as the runtime's do; no local runtime answers, so none of its models is offered.
    expect(names).toEqual(expect.arrayContaining(['mock/mock-llm:latest', 'mock/mock-embedding:latest']));
    expect(names.filter((n) => !n.includes(':') || n.startsWith('ollama/'))).toEqual([]);
    for (const m of models) {
      expect(m).toEqual({
        name: m.name,
        model: m.name,
        modified_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        size: expect.any(Number),
        digest: expect.stringMatching(/^[0-9a-f]{64}$/),
        details: {
          parent_model: expect.any(String),
          format: expect.any(String),
          family: expect.any(String),
          families: expect.any(Array),
          parameter_size: expect.any(String),
          quantization_level: expect.any(String),
        },
      });
    }
    const hybrid = models.find((m) => m.name === 'kgrag:hybrid')!;
    expect(hybrid.details).toMatchObject({ format: 'kgrag', family: 'kgrag', parent_model: 'mock/mock-llm' });
    // A RAG model's size is the workspace's vector index; the seeded workspace holds one.
    expect(hybrid.size).toBeGreaterThan(0);
    expect(new Set(models.map((m) => m.digest)).size).toBe(models.length);
  });

  it('shows a RAG model with the graph of its workspace and its generation defaults', async () => {
    const show = await ollama.show({ model: 'kgrag:mix' });
    expect(show.capabilities).toEqual(['completion']);
    expect(show.details).toMatchObject({ family: 'kgrag', format: 'kgrag' });
    const info = show.model_info as unknown as Record<string, unknown>;
    const stats = (await (await app.request('/api/v1/graph/stats')).json()) as { total_nodes: number; total_edges: number };
    expect(info).toMatchObject({
      'general.architecture': 'kgrag',
      'kgrag.mode': 'mix',
      'kgrag.workspace': app.workspace,
      'kgrag.entity_count': stats.total_nodes,
      'kgrag.relationship_count': stats.total_edges,
      'kgrag.document_count': 3,
      'kgrag.embedding_length': 256,
    });
    expect(show.parameters).toMatch(/^temperature\s+0\.7$/m);
    expect(show.modelfile).toContain('FROM mock/mock-llm');
    expect((await ollama.show({ model: 'mock/mock-embedding' })).capabilities).toEqual(['embedding']);
  });

  it('lists the models the workspace used within their keep-alive, and unloads one on keep_alive 0', async () => {
    await ollama.generate({ model: 'kgrag:naive', prompt: QUESTION, stream: false, keep_alive: '10m' });
    const before = Date.now();
    const { models } = await ollama.ps();
    const naive = models.find((m) => m.name === 'kgrag:naive');
    expect(naive).toMatchObject({ model: 'kgrag:naive', size_vram: 0, digest: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const expires = new Date(naive!.expires_at).getTime();
    expect(expires).toBeGreaterThan(before + 5 * 60_000);
    expect(expires).toBeLessThanOrEqual(before + 10 * 60_000);
    const unloaded = await ollama.generate({ model: 'kgrag:naive', prompt: '', keep_alive: 0 });
    expect(unloaded).toMatchObject({ done: true, done_reason: 'unload', response: '' });
    expect((await ollama.ps()).models.map((m) => m.name)).not.toContain('kgrag:naive');
  });
});

describe('chat through the ollama client', () => {
  it('answers the last user message by retrieval, as /query answers it, in one object when stream is false', async () => {
    const reply = await ollama.chat({ model: 'kgrag:hybrid', messages: [{ role: 'user', content: QUESTION }], stream: false });
    expect(reply.model).toBe('kgrag:hybrid');
    expect(reply.message).toEqual({ role: 'assistant', content: (await queryAnswer('hybrid')).answer });
    expect(reply.message.content).toContain('Berlin');
    expectFinalFields(reply as unknown as Record<string, unknown>);
  });

  it('streams the same answer in fragments, the last object carrying done and the counts', async () => {
    const parts = [];
    for await (const part of await ollama.chat({ model: 'kgrag:hybrid', messages: [{ role: 'user', content: QUESTION }], stream: true })) {
      parts.push(part);
    }
    expect(parts.length).toBeGreaterThan(2);
    const last = parts[parts.length - 1];
    expect(parts.slice(0, -1).every((p) => p.done === false && p.message.role === 'assistant')).toBe(true);
    expect(last.message.content).toBe('');
    expectFinalFields(last as unknown as Record<string, unknown>);
    expect(parts.map((p) => p.message.content).join('')).toBe((await queryAnswer('hybrid')).answer);
  });

  it.each(MODES.map((m) => [m, m]))('/%s as a prefix and kgrag:%s as the model both answer in that mode', async (mode) => {
    const expected = (await queryAnswer(mode)).answer;
    const byPrefix = await ollama.chat({
      model: 'kgrag:hybrid',
      messages: [{ role: 'user', content: `/${mode} ${QUESTION}` }] as never,
      stream: false,
    });
    const byName = await ollama.chat({ model: `kgrag:${mode}`, messages: [{ role: 'user', content: QUESTION }], stream: false });
    expect(byPrefix.message.content).toBe(expected);
    expect(byName.message.content).toBe(expected);
  });

  it('gives the modes their own retrieval: bypass asks no keywords, naive none either, local does', async () => {
    // Keywords are cached per question until the graph changes: local gets a question not asked before.
    const tasksOf = async (mode: string, question = QUESTION) => {
      const rec = recordLlmCalls(app.rt);
      try {
        await ollama.chat({ model: 'kgrag:hybrid', messages: [{ role: 'user', content: `/${mode} ${question}` }], stream: false });
        return rec.calls.map((c) => c.task);
      } finally {
        rec.restore();
      }
    };
    expect(await tasksOf('bypass')).toEqual(['chat']);
    expect(await tasksOf('naive')).toEqual(['chat']);
    expect(await tasksOf('local', `${QUESTION} Answer briefly.`)).toEqual(['keywords', 'chat']);
    const answers = new Set(await Promise.all(MODES.map(async (m) => (await queryAnswer(m)).answer)));
    expect(answers.size).toBeGreaterThan(2);
  });

  it('/context answers with the retrieved context and calls no model for an answer', async () => {
    const rec = recordLlmCalls(app.rt);
    try {
      const reply = await ollama.chat({
        model: 'kgrag:hybrid',
        messages: [{ role: 'user', content: `/context ${QUESTION}` }],
        stream: false,
      });
      expect(reply.message.content).toBe((await queryAnswer('hybrid', { context_only: true })).context);
      expect(reply.message.content).toContain('Acme Corporation');
      expect(rec.calls.filter((c) => c.task !== 'keywords')).toEqual([]);
    } finally {
      rec.restore();
    }
  });

  it('passes earlier messages as history, system messages as the system prompt, and options to the model', async () => {
    const rec = recordLlmCalls(app.rt);
    try {
      await ollama.chat({
        model: 'kgrag:naive',
        messages: [
          { role: 'system', content: 'Answer in one line.' },
          { role: 'user', content: '/local Who is Alice Smith?' },
          { role: 'assistant', content: 'Alice Smith is a chief scientist.' },
          { role: 'user', content: QUESTION },
        ],
        options: { temperature: 0.1, num_predict: 64, top_p: 0.5, seed: 7, stop: ['###'] },
        stream: false,
      });
      const answer = rec.calls.find((c) => c.task === 'chat')!;
      expect(answer.options).toMatchObject({ temperature: 0.1, maxTokens: 64, topP: 0.5, seed: 7, stop: ['###'] });
      const [system, ...turns] = answer.messages;
      expect(system.role).toBe('system');
      expect(system.content.startsWith('Answer in one line.')).toBe(true);
      expect(turns).toEqual([
        { role: 'user', content: 'Who is Alice Smith?' },
        { role: 'assistant', content: 'Alice Smith is a chief scientist.' },
        { role: 'user', content: QUESTION },
      ]);
    } finally {
      rec.restore();
    }
  });

  it('stops at num_predict tokens with done_reason length', async () => {
    const reply = await ollama.chat({
      model: 'kgrag:hybrid',
      messages: [{ role: 'user', content: QUESTION }],
      options: { num_predict: 4 },
      stream: false,
    });
    expect(reply.done_reason).toBe('length');
    expect(reply.eval_count).toBe(4);
  });

  it('hands a provider model the conversation as it is, with format json as JSON mode', async () => {
    const rec = recordLlmCalls(app.rt);
    try {
      const messages = [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Name a city.' },
      ];
      const reply = await ollama.chat({ model: 'mock/mock-llm', messages, format: 'json', stream: false });
      expect(rec.calls).toHaveLength(1);
      expect(rec.calls[0]).toMatchObject({ provider: 'mock', model: 'mock-llm', task: undefined, messages });
      expect(rec.calls[0].options.json).toBe(true);
      expect(() => JSON.parse(reply.message.content) as unknown).not.toThrow();
    } finally {
      rec.restore();
    }
  });

  it('loads the model and answers done_reason load when there are no messages', async () => {
    const reply = await ollama.chat({ model: 'kgrag:hybrid', messages: [] });
    expect(reply).toMatchObject({ model: 'kgrag:hybrid', done: true, done_reason: 'load', message: { role: 'assistant', content: '' } });
  });

  it('stops the model when the client aborts the stream', async () => {
    const fragments = Array.from({ length: 200 }, (_, i) => `t${i} `);
    const model = new ScriptedLlm(fragments, { delayMs: 10 });
    const rec = recordLlmCalls(app.rt, () => model);
    try {
      const stream = await ollama.chat({ model: 'kgrag:naive', messages: [{ role: 'user', content: QUESTION }], stream: true });
      let seen = 0;
      await expect(
        (async () => {
          for await (const part of stream) {
            if (part.message.content && ++seen === 2) stream.abort();
          }
        })(),
      ).rejects.toThrow(/abort/i);
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

describe('generate through the ollama client', () => {
  it('answers a prompt as /query does and returns a context that continues the conversation', async () => {
    const first = await ollama.generate({ model: 'kgrag:hybrid', prompt: QUESTION, stream: false });
    expect(first.response).toBe((await queryAnswer('hybrid')).answer);
    expectFinalFields(first as unknown as Record<string, unknown>);
    expect(first.context.length).toBeGreaterThan(10);
    expect(first.context.every((t) => Number.isInteger(t))).toBe(true);

    const rec = recordLlmCalls(app.rt);
    try {
      await ollama.generate({
        model: 'kgrag:hybrid',
        prompt: 'And what does it build?',
        context: first.context,
        system: 'Be brief.',
        stream: false,
      });
      const answer = rec.calls.find((c) => c.task === 'chat')!;
      expect(answer.messages[0].content.startsWith('Be brief.')).toBe(true);
      expect(answer.messages.slice(1)).toEqual([
        { role: 'user', content: QUESTION },
        { role: 'assistant', content: first.response },
        { role: 'user', content: 'And what does it build?' },
      ]);
    } finally {
      rec.restore();
    }
  });

  it('streams fragments and ends with done, the counts and the context', async () => {
    const parts = [];
    for await (const part of await ollama.generate({ model: 'kgrag:local', prompt: QUESTION, stream: true })) parts.push(part);
    const last = parts[parts.length - 1];
    expectFinalFields(last as unknown as Record<string, unknown>);
    expect(last.response).toBe('');
    expect(Array.isArray(last.context)).toBe(true);
    expect(parts.map((p) => p.response).join('')).toBe((await queryAnswer('local')).answer);
  });

  it('takes the mode from a prompt prefix', async () => {
    const reply = await ollama.generate({ model: 'kgrag:hybrid', prompt: `/global ${QUESTION}`, stream: false });
    expect(reply.response).toBe((await queryAnswer('global')).answer);
  });
});

describe('embeddings through the ollama client', () => {
  it("embeds a batch with the workspace's embedding model for a kgrag model", async () => {
    const texts = ['Acme Corporation builds graph databases.', 'Paris museums open late.'];
    const reply = await ollama.embed({ model: 'kgrag:hybrid', input: texts });
    expect(reply.model).toBe('kgrag:hybrid');
    expect(reply.embeddings).toEqual(await app.rt.providers.embedding().embed(texts));
    expect(reply.embeddings[0]).toHaveLength(256);
    expect(reply.prompt_eval_count).toBeGreaterThan(5);
    expect(Number.isInteger(reply.total_duration)).toBe(true);
  });

  it('embeds one prompt through the older /api/embeddings with a provider embedding model', async () => {
    const reply = await ollama.embeddings({ model: 'mock/mock-embedding', prompt: 'graph databases' });
    expect(reply.embedding).toEqual((await app.rt.providers.embedding().embed(['graph databases']))[0]);
  });

  it('refuses an LLM for embeddings and a dimension the model does not produce', async () => {
    await expect(ollama.embed({ model: 'mock/mock-llm', input: 'x' })).rejects.toMatchObject({
      name: 'ResponseError',
      status_code: 400,
      error: expect.stringContaining('does not support embeddings'),
    });
    await expect(ollama.embed({ model: 'kgrag:hybrid', input: 'x', dimensions: 3 })).rejects.toMatchObject({ status_code: 400 });
  });
});

describe('what other clients of the runtime send', () => {
  /** The body LangChain's Python OllamaEmbeddings sends by default: every option it does not set as null. */
  const langchainPythonEmbed = (input: string[]) => ({
    model: 'kgrag:hybrid',
    input,
    options: {
      mirostat: null,
      mirostat_eta: null,
      mirostat_tau: null,
      num_ctx: null,
      num_gpu: null,
      num_thread: null,
      repeat_last_n: null,
      repeat_penalty: null,
      temperature: null,
      stop: null,
      tfs_z: null,
      top_k: null,
      top_p: null,
    },
    keep_alive: null,
    truncate: null,
  });

  it('skips null options and a null truncate, as the runtime does, so LangChain embeds with its defaults', async () => {
    const texts = ['Acme Corporation builds graph databases.'];
    const res = await fetch(`${app.url}/api/embed`, {
      method: 'POST',
      headers: { ...app.headers, 'Content-Type': 'application/json' },
      body: JSON.stringify(langchainPythonEmbed(texts)),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { embeddings: number[][] }).embeddings).toEqual(await app.rt.providers.embedding().embed(texts));
    const chat = await ollama.chat({
      model: 'kgrag:bypass',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: false,
      options: { temperature: null, num_predict: null, top_p: null, seed: null, stop: null } as unknown as Record<string, number>,
    });
    expect(chat.done).toBe(true);
    const embeddings = new OllamaEmbeddings({ baseUrl: app.url, model: 'kgrag:hybrid', headers: app.headers });
    expect(await embeddings.embedQuery(texts[0])).toEqual((await app.rt.providers.embedding().embed(texts))[0]);
  });

  it('answers /api/version without credentials, as the runtime does', async () => {
    const res = await fetch(`${app.url}/api/version`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ version: expect.any(String) });
  });

  it("replays Open WebUI's backend: every model it lists, by the listed name, answers", async () => {
    const bearer = { Authorization: `Bearer ${app.masterKey}`, 'X-Workspace-ID': app.workspace };
    const post = (path: string, body: unknown) =>
      fetch(`${app.url}${path}`, {
        method: 'POST',
        headers: { ...bearer, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await fetch(`${app.url}/api/version`)).status).toBe(200);
    const { models } = (await (await fetch(`${app.url}/api/tags`, { headers: bearer })).json()) as { models: Array<{ model: string }> };
    expect(models.length).toBeGreaterThan(7);
    for (const { model } of models) {
      // Open WebUI adds :latest to a name without a tag and then looks the name up in the listing.
      expect(model.includes(':') ? model : `${model}:latest`).toBe(model);
      const shown = (await (await post('/api/show', { model })).json()) as { capabilities: string[] };
      const res = shown.capabilities.includes('embedding')
        ? await post('/api/embed', { model, input: ['Acme'] })
        : await post('/api/chat', { model, messages: [{ role: 'user', content: QUESTION }], stream: true });
      const body = await res.text();
      expect({ model, status: res.status, error: body.includes('"error"') }).toEqual({ model, status: 200, error: false });
    }
  });

  it('says in /models/health which provider does not answer, and lists none of its models', async () => {
    const health = (await (await app.request('/api/v1/models/health')).json()) as {
      providers: Array<{ name: string; status: string; error?: string }>;
    };
    expect(health.providers.find((p) => p.name === 'ollama')).toMatchObject({
      status: 'unhealthy',
      error: expect.stringMatching(/^unreachable: .*\/api\/tags/),
    });
    const listed = (await (await app.request('/api/v1/models')).json()) as { models: Array<{ provider: string }> };
    expect(listed.models.filter((m) => m.provider === 'ollama')).toEqual([]);
    const catalog = (await (await app.request('/api/v1/models?include_disabled=true')).json()) as { models: Array<{ provider: string }> };
    expect(catalog.models.some((m) => m.provider === 'ollama')).toBe(true);
  });
});

describe('errors through the ollama client', () => {
  it('answers an unknown model with 404 and the runtime error shape', async () => {
    await expect(ollama.chat({ model: 'llama9:70b', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
      name: 'ResponseError',
      status_code: 404,
      error: expect.stringContaining('model "llama9:70b" not found'),
    });
    await expect(ollama.show({ model: 'kgrag:nonsense' })).rejects.toMatchObject({ status_code: 404 });
  });

  it('answers a bad request with 400: no question, tools, thinking, a missing model', async () => {
    const cases: Array<[() => Promise<unknown>, RegExp]> = [
      [() => ollama.chat({ model: 'kgrag:hybrid', messages: [{ role: 'assistant', content: 'hello' }], stream: false }), /no user message/],
      [
        () => ollama.chat({ model: 'kgrag:hybrid', messages: [{ role: 'user', content: '/local   ' }], stream: false }),
        /holds no question/,
      ],
      [
        () =>
          ollama.chat({
            model: 'kgrag:hybrid',
            messages: [{ role: 'user', content: 'hi' }],
            tools: [{ type: 'function', function: { name: 'f' } }],
            stream: false,
          }),
        /does not support tools/,
      ],
      [() => ollama.generate({ model: 'kgrag:hybrid', prompt: 'hi', think: true, stream: false }), /does not support thinking/],
      [() => ollama.generate({ model: '', prompt: 'hi', stream: false }), /model: required/],
      [() => ollama.generate({ model: 'kgrag:hybrid', prompt: 'hi', keep_alive: 'soon', stream: false }), /keep_alive/],
    ];
    for (const [call, message] of cases) {
      await expect(call()).rejects.toMatchObject({ name: 'ResponseError', status_code: 400, error: expect.stringMatching(message) });
    }
  });

  it('ends a stream whose model fails with an error line, which the client throws', async () => {
    const rec = recordLlmCalls(app.rt, () => new ScriptedLlm(['one ', 'two ', 'three '], { failAfter: 2 }));
    try {
      const seen: string[] = [];
      const stream = await ollama.chat({ model: 'kgrag:naive', messages: [{ role: 'user', content: QUESTION }], stream: true });
      await expect(
        (async () => {
          for await (const part of stream) seen.push(part.message.content);
        })(),
      ).rejects.toThrow(/model exploded/);
      expect(seen).toEqual(['one ', 'two ']);
    } finally {
      rec.restore();
    }
  });
});

describe('workspace selection through the model name', () => {
  /** The test app's headers without the workspace header, as a client that cannot send custom headers. */
  const noWorkspaceHeader = () => Object.fromEntries(Object.entries(app.headers).filter(([k]) => k.toLowerCase() !== 'x-workspace-id'));

  it('kgrag:<mode>@<workspace> answers from that workspace', async () => {
    const client = new Ollama({ host: app.url, headers: noWorkspaceHeader() });
    const named = await client.chat({
      model: `kgrag:hybrid@${app.workspace}`,
      messages: [{ role: 'user', content: QUESTION }],
      stream: false,
    });
    expect(named.model).toBe(`kgrag:hybrid@${app.workspace}`);
    expect(named.message.content).toBe((await queryAnswer('hybrid')).answer);
    const show = await client.show({ model: `kgrag:hybrid@${app.workspace}` });
    expect((show.model_info as unknown as Record<string, unknown>)['kgrag.workspace']).toBe(app.workspace);
    // Another workspace named the same way knows nothing of Acme.
    const empty = await app.createWorkspace();
    const other = await client.chat({ model: `kgrag:hybrid@${empty}`, messages: [{ role: 'user', content: QUESTION }], stream: false });
    expect(other.message.content).toMatch(/no information/);
    expect((await client.show({ model: `kgrag:hybrid@${empty}` })).model_info).toMatchObject({
      'kgrag.workspace': empty,
      'kgrag.entity_count': 0,
    });
  });

  it('refuses a model suffix that contradicts X-Workspace-ID, and a malformed workspace id', async () => {
    await expect(
      ollama.chat({ model: 'kgrag:hybrid@someone-else', messages: [{ role: 'user', content: 'hi' }], stream: false }),
    ).rejects.toMatchObject({
      status_code: 400,
      error: expect.stringContaining("names workspace 'someone-else'"),
    });
    await expect(
      ollama.chat({ model: 'kgrag:hybrid@bad/ws', messages: [{ role: 'user', content: 'hi' }], stream: false }),
    ).rejects.toMatchObject({
      status_code: 400,
      error: expect.stringContaining('is not a workspace id'),
    });
  });
});
