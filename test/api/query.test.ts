import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestApp } from '../helpers/app';
import { startSeededApp } from '../helpers/seeded-app';
import { recordLlmCalls } from '../unit/retrieval-fixtures';

let app: TestApp;

beforeAll(async () => {
  app = await startSeededApp();
});

afterAll(async () => {
  await app.close();
});

const query = (json: Record<string, unknown>, workspace?: string) => app.request('/api/v1/query', { method: 'POST', json, workspace });

async function answer(json: Record<string, unknown>, workspace?: string) {
  const res = await query(json, workspace);
  expect(res.status).toBe(200);
  return (await res.json()) as {
    answer: string;
    mode: string;
    sources: Array<Record<string, unknown>>;
    stats: Record<string, unknown>;
    reranked: boolean;
    context?: string;
    prompt?: string;
    debug?: Record<string, unknown>;
  };
}

describe('POST /query', () => {
  it.each(['naive', 'local', 'global', 'hybrid', 'mix'])('answers in %s mode with cited sources and measured stats', async (mode) => {
    const body = await answer({ query: 'Where is Acme Corporation headquartered in Berlin?', mode });
    expect(body.mode).toBe(mode);
    expect(body.sources.length).toBeGreaterThan(0);
    const chunk = body.sources.find((s) => s.source_type === 'chunk');
    expect(chunk).toMatchObject({
      id: expect.stringMatching(/^doc-acme-chunk-\d$/),
      document_id: 'doc-acme',
      file_path: 'doc-acme.txt',
      start_line: expect.any(Number),
      end_line: expect.any(Number),
      chunk_index: expect.any(Number),
      snippet: expect.any(String),
      score: expect.any(Number),
      reference_id: expect.any(Number),
    });
    expect(body.answer).toMatch(/Berlin/);
    const cited = [...body.answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(cited.length).toBeGreaterThan(0);
    for (const n of cited) expect(body.sources.map((s) => s.reference_id)).toContain(n);
    expect(body.stats).toEqual({
      embedding_time_ms: expect.any(Number),
      retrieval_time_ms: expect.any(Number),
      rerank_time_ms: expect.any(Number),
      generation_time_ms: expect.any(Number),
      total_time_ms: expect.any(Number),
      sources_retrieved: body.sources.length,
      tokens_used: expect.any(Number),
      tokens_per_second: expect.any(Number),
      llm_provider: 'mock',
      llm_model: 'mock-llm',
      // EdgeQuake's names beside the spec's.
      provider: 'mock',
      model: 'mock-llm',
      total_tokens: body.stats.tokens_used,
      retrieval_count: body.sources.length,
      // No communities in this workspace: the global part (global, hybrid, mix) comes from relationship search.
      global_source: ['global', 'hybrid', 'mix'].includes(mode) ? 'relationships' : null,
      community_reports: 0,
    });
    expect(body.stats.tokens_used).toBeGreaterThan(0);
    for (const key of ['embedding_time_ms', 'retrieval_time_ms', 'generation_time_ms', 'total_time_ms']) {
      expect(Number.isInteger(body.stats[key])).toBe(true);
    }
  });

  it('uses hybrid mode when none is given', async () => {
    expect((await answer({ query: 'Who leads Globex?' })).mode).toBe('hybrid');
  });

  it('answers in bypass mode without sources or a keyword call', async () => {
    const rec = recordLlmCalls(app.rt);
    try {
      const body = await answer({ query: 'What is a graph?', mode: 'bypass' });
      expect(body.sources).toEqual([]);
      expect(body.reranked).toBe(false);
      expect(rec.calls.map((c) => c.task)).toEqual(['answer']);
    } finally {
      rec.restore();
    }
  });

  it('entity sources carry their type, degree and description', async () => {
    const body = await answer({ query: 'Acme Corporation', mode: 'local' });
    const acme = body.sources.find((s) => s.id === 'ACME_CORPORATION');
    expect(acme).toMatchObject({
      source_type: 'entity',
      name: 'Acme Corporation',
      entity_type: 'ORGANIZATION',
      degree: 3,
      snippet: 'Acme Corporation builds graph databases in Berlin.',
    });
  });

  it('context_only returns the sources and the context text without an answer call', async () => {
    const rec = recordLlmCalls(app.rt);
    try {
      // A question of its own: a repeated one would take its keywords from the response cache.
      const body = await answer({ query: 'Who is in charge of Globex?', context_only: true });
      expect(body.answer).toBe('');
      expect(body.context).toContain('Bob Jones leads Globex');
      expect(body.sources.length).toBeGreaterThan(0);
      expect(body.stats.generation_time_ms).toBe(0);
      expect(rec.calls.map((c) => c.task)).toEqual(['keywords']);
    } finally {
      rec.restore();
    }
  });

  it('sends the answer as JSON whose declared length is its UTF-8 length, the same bytes as serialising it whole', async () => {
    const res = await query({ query: 'Who leads Globex Laboratories and where is Acme?', context_only: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
    const body = JSON.parse(bytes.toString('utf8')) as { context: string };
    expect(body.context.length).toBeGreaterThan(0);
    expect(bytes.equals(Buffer.from(JSON.stringify(body)))).toBe(true);
  });

  it('prompt_only returns the formatted prompt, system prompt included, without an answer call', async () => {
    const rec = recordLlmCalls(app.rt);
    try {
      const body = await answer({ query: 'Who runs Globex?', prompt_only: true, system_prompt: 'Always answer in French.' });
      expect(body.answer).toBe('');
      expect(body.prompt).toContain('Always answer in French.');
      expect(body.prompt).toContain('Bob Jones leads Globex');
      expect(body.prompt).toMatch(/\[user\]\nWho runs Globex\?$/);
      expect(rec.calls.map((c) => c.task)).toEqual(['keywords']);
    } finally {
      rec.restore();
    }
  });

  it('a repeated question takes its keywords from the cache until the workspace graph changes', async () => {
    const workspace = 'keyword-cache';
    const ingest = (title: string, content: string) =>
      app.request('/api/v1/documents', { method: 'POST', json: { title, content }, workspace });
    expect((await ingest('Globex', 'Bob Jones leads Globex Laboratories in Boston.')).status).toBe(201);
    const rec = recordLlmCalls(app.rt);
    try {
      const ask = () => answer({ query: 'Who leads Globex Laboratories?', context_only: true }, workspace);
      const keywordCalls = () => rec.calls.filter((c) => c.task === 'keywords').length;
      await ask();
      await ask();
      expect(keywordCalls()).toBe(1);
      expect((await ingest('Initech', 'Carol White leads Initech Systems in Denver.')).status).toBe(201);
      const body = await ask();
      expect(body.context).toContain('Bob Jones');
      expect(keywordCalls()).toBe(2);
    } finally {
      rec.restore();
    }
  });

  it('reranks by default to rerank_top_k chunks, each with a rerank score', async () => {
    const base = { query: 'Acme Corporation Globex quantum computing Louvre Paris museums', mode: 'mix' };
    const on = await answer(base);
    const chunksOn = on.sources.filter((s) => s.source_type === 'chunk');
    expect(on.reranked).toBe(true);
    expect(chunksOn.length).toBeLessThanOrEqual(5);
    for (const c of chunksOn) expect(c.rerank_score).toEqual(expect.any(Number));
    const one = await answer({ ...base, rerank_top_k: 1 });
    expect(one.sources.filter((s) => s.source_type === 'chunk')).toHaveLength(1);
    const off = await answer({ ...base, enable_rerank: false });
    expect(off.reranked).toBe(false);
    expect(off.stats.rerank_time_ms).toBe(0);
    expect(off.sources.some((s) => 'rerank_score' in s)).toBe(false);
    expect(off.sources.filter((s) => s.source_type === 'chunk').length).toBeGreaterThan(1);
  });

  it('honours max_entities and max_chunks', async () => {
    const body = await answer({ query: 'Acme Corporation in Berlin', mode: 'local', max_entities: 1, max_chunks: 1, enable_rerank: false });
    expect(body.sources.filter((s) => s.source_type === 'entity')).toHaveLength(1);
    expect(body.sources.filter((s) => s.source_type === 'chunk')).toHaveLength(1);
  });

  it('feeds conversation_history into keyword extraction and the prompt', async () => {
    const rec = recordLlmCalls(app.rt);
    try {
      const history = [
        { role: 'user', content: 'Tell me about Bob Jones.' },
        { role: 'assistant', content: 'Bob Jones leads Globex.' },
      ];
      const body = await answer({ query: 'Where is its laboratory?', conversation_history: history, prompt_only: true });
      const keywordPrompt = rec.calls[0].messages.map((m) => m.content).join('\n');
      expect(keywordPrompt).toContain('user: Tell me about Bob Jones.');
      expect(body.prompt).toContain('[assistant]\nBob Jones leads Globex.');
    } finally {
      rec.restore();
    }
  });

  it('passes temperature and max_tokens to the model, with the documented defaults otherwise', async () => {
    const rec = recordLlmCalls(app.rt);
    try {
      await answer({ query: 'Who leads Globex?', temperature: 0.1, max_tokens: 77 });
      await answer({ query: 'Who leads Globex?' });
      const answers = rec.calls.filter((c) => c.task === 'answer');
      expect(answers.map((c) => [c.options.temperature, c.options.maxTokens])).toEqual([
        [0.1, 77],
        [0.7, 4096],
      ]);
    } finally {
      rec.restore();
    }
  });

  it('debug adds the keywords and candidate counts', async () => {
    const body = await answer({ query: 'Who leads Globex?', debug: true });
    expect(body.debug).toMatchObject({
      keywords: { high_level: expect.any(Array), low_level: expect.any(Array), origin: 'llm' },
      candidates: { entities: expect.any(Number), relationships: expect.any(Number), chunks: expect.any(Number) },
      reranker: 'builtin',
    });
  });

  it('restricts sources to documents in the date range', async () => {
    const body = await answer({
      query: 'Acme Corporation Globex Louvre',
      mode: 'mix',
      document_filter: { date_from: '2024-05-01', date_to: '2024-06-01' },
    });
    const documents = new Set(body.sources.filter((s) => s.source_type === 'chunk').map((s) => s.document_id));
    expect(documents).toEqual(new Set(['doc-globex']));
  });

  it('restricts sources to documents whose titles match a pattern term', async () => {
    const body = await answer({
      query: 'Acme Corporation and the Paris museums',
      mode: 'naive',
      document_filter: { document_pattern: 'DIARY' },
    });
    const documents = new Set(body.sources.map((s) => s.document_id));
    expect(documents).toEqual(new Set(['doc-travel']));
  });

  it('answers plainly that nothing was found when the filter excludes every document', async () => {
    const body = await answer({ query: 'Where is Acme Corporation?', document_filter: { document_pattern: 'no such title' } });
    expect(body.sources).toEqual([]);
    expect(body.answer).toMatch(/no information/i);
  });

  it('keeps workspaces apart: another workspace sees none of these sources', async () => {
    const body = await answer({ query: 'Where is Acme Corporation headquartered?', mode: 'mix' }, `${app.workspace}-other`);
    expect(body.sources).toEqual([]);
    expect(body.answer).toMatch(/no information/i);
  });

  it('answers with the requested provider and model, and reports them', async () => {
    const body = await answer({ query: 'Who leads Globex?', llm_provider: 'mock', llm_model: 'mock-llm' });
    expect(body.stats).toMatchObject({ llm_provider: 'mock', llm_model: 'mock-llm' });
  });
});

describe('POST /query refuses bad input before calling any model', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['a missing query', {}, 'query: required'],
    ['an empty query', { query: '' }, 'query: must not be empty'],
    ['a whitespace query', { query: '   \n ' }, 'query: must not be empty'],
    ['an overlong query', { query: 'x'.repeat(8001) }, 'query: must be at most 8000 characters'],
    ['an unknown mode', { query: 'q', mode: 'fancy' }, 'mode: must be one of'],
    ['a negative max_entities', { query: 'q', max_entities: -1 }, 'max_entities: must be between 1 and 200'],
    ['a huge max_chunks', { query: 'q', max_chunks: 100000 }, 'max_chunks: must be between 1 and 200'],
    ['a fractional max_relationships', { query: 'q', max_relationships: 1.5 }, 'max_relationships: must be an integer'],
    ['a zero rerank_top_k', { query: 'q', rerank_top_k: 0 }, 'rerank_top_k: must be between 1 and 100'],
    ['a temperature above 2', { query: 'q', temperature: 3 }, 'temperature: must be between 0 and 2'],
    ['a zero max_tokens', { query: 'q', max_tokens: 0 }, 'max_tokens: must be between 1 and 32768'],
    [
      'an impossible filter date',
      { query: 'q', document_filter: { date_from: '2024-02-30' } },
      'document_filter.date_from: must be an ISO 8601 date',
    ],
    [
      'a filter date that is not a date',
      { query: 'q', document_filter: { date_to: 'yesterday' } },
      'document_filter.date_to: must be an ISO 8601 date',
    ],
    [
      'a reversed date range',
      { query: 'q', document_filter: { date_from: '2024-06-02', date_to: '2024-06-01' } },
      'document_filter.date_to: must not be before date_from',
    ],
    ['an unknown filter field', { query: 'q', document_filter: { title: 'x' } }, 'document_filter: unknown field(s) title'],
    [
      'too much history',
      { query: 'q', conversation_history: Array.from({ length: 51 }, () => ({ role: 'user', content: 'x' })) },
      'conversation_history: must hold at most 50 messages',
    ],
    [
      'a history message with a bad role',
      { query: 'q', conversation_history: [{ role: 'robot', content: 'x' }] },
      'conversation_history.0.role: must be one of user, assistant, system',
    ],
    ['an unknown llm_provider', { query: 'q', llm_provider: 'nope' }, "llm_provider: unknown provider 'nope'"],
    ['an unknown llm_model', { query: 'q', llm_model: 'no-such-model' }, "llm_model: unknown model 'no-such-model'"],
  ];

  it.each(cases)('422 for %s, naming the field', async (_name, json, detail) => {
    const rec = recordLlmCalls(app.rt);
    try {
      const res = await query(json);
      expect(res.status).toBe(422);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      const problem = (await res.json()) as { detail: string; type: string };
      expect(problem.type).toMatch(/\/validation-error$/);
      expect(problem.detail).toContain(detail);
      expect(rec.calls).toHaveLength(0);
    } finally {
      rec.restore();
    }
  });

  it('400 for a body that is not JSON', async () => {
    const res = await app.request('/api/v1/query', { method: 'POST', body: 'query=q', headers: { 'Content-Type': 'text/plain' } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toBe('expects Content-Type: application/json');
  });
});

describe('POST /query on an empty knowledge base', () => {
  it('says plainly that nothing was found, in every retrieving mode', async () => {
    for (const mode of ['naive', 'local', 'global', 'hybrid', 'mix']) {
      const body = await answer({ query: 'What is the capital of Atlantis?', mode }, `${app.workspace}-empty`);
      expect(body.sources).toEqual([]);
      expect(body.reranked).toBe(false);
      expect(body.answer).toMatch(/no information/i);
    }
  });
});

describe('POST /query with a per-request model', () => {
  let second: TestApp;
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'query-models-'));
    const catalog = `${fs.readFileSync(path.join(__dirname, '../../models.toml'), 'utf8')}
[[providers]]
name = "mock-b"
display_name = "Second mock"
type = "mock"
enabled = true
priority = 200
description = "A second offline provider."

[[providers.models]]
name = "mock-llm-b"
display_name = "Second mock LLM"
model_type = "llm"
description = "Same answers, another name."
`;
    fs.writeFileSync(path.join(dir, 'models.toml'), catalog);
    second = await startSeededApp({ SERVICE_MODELS_CONFIG: path.join(dir, 'models.toml') });
  });

  afterAll(async () => {
    await second.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('uses the requested provider and model for keywords and the answer, and reports them', async () => {
    const rec = recordLlmCalls(second.rt);
    try {
      const res = await second.request('/api/v1/query', {
        method: 'POST',
        json: { query: 'Who leads Globex?', llm_provider: 'mock-b', llm_model: 'mock-llm-b' },
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { stats: Record<string, unknown> };
      expect(body.stats).toMatchObject({ llm_provider: 'mock-b', llm_model: 'mock-llm-b' });
      expect(rec.calls.map((c) => [c.task, c.provider, c.model])).toEqual([
        ['keywords', 'mock-b', 'mock-llm-b'],
        ['answer', 'mock-b', 'mock-llm-b'],
      ]);
    } finally {
      rec.restore();
    }
  });
});
