import type { UsageEvent } from '../../src/llm/usage';
import { startTestApp, type TestApp } from '../helpers/app';

/** GET/PATCH /settings (docs/api.md §4.11): operators only, validated, applied without restart, kept in Neo4j. */

jest.setTimeout(90_000);

let app: TestApp;
const events: UsageEvent[] = [];

const ENV_SETTINGS = {
  query: { default_mode: 'hybrid', enable_rerank: true, rerank_top_k: 5 },
  ingest: {
    chunk_tokens: 1200,
    chunk_overlap_tokens: 100,
    max_gleaning: 1,
    summary_entity_fragments: 7,
    summary_entity_tokens: 1200,
    summary_relationship_fragments: 30,
    summary_relationship_tokens: 600,
  },
  rate_limits: { window_ms: 60000, upload: 0, query: 0, graph: 0 },
};

/** The settings are one record for the whole service: a run starts and ends without one. */
const forgetStored = async (a: TestApp) => void (await a.rt.stores.accounts.settings.delete('service'));

beforeAll(async () => {
  app = await startTestApp({}, { recorder: { record: (e) => events.push(e) } });
  await forgetStored(app);
  await app.rt.settings.load();
});

afterAll(async () => {
  if (app) await forgetStored(app);
  await app?.close();
});

async function patch(body: unknown, status = 200): Promise<Record<string, unknown>> {
  const res = await app.request('/api/v1/settings', { method: 'PATCH', json: body });
  expect(res.status).toBe(status);
  return (await res.json()) as Record<string, unknown>;
}

const settings = async () => (await (await app.request('/api/v1/settings')).json()) as typeof ENV_SETTINGS;

describe('GET /settings', () => {
  it('shows the settings in force, taken from the environment, and nothing secret', async () => {
    const res = await app.request('/api/v1/settings');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual(ENV_SETTINGS);
    expect(text).not.toContain(app.masterKey);
  });

  it('is refused to callers that do not operate the service', async () => {
    const editor = await app.createApiKey({ role: 'editor' });
    for (const method of ['GET', 'PATCH']) {
      const res = await app.request('/api/v1/settings', {
        method,
        headers: { 'X-API-Key': editor },
        ...(method === 'PATCH' ? { json: { query: { rerank_top_k: 3 } } } : {}),
      });
      expect(res.status).toBe(403);
    }
    expect(await settings()).toEqual(ENV_SETTINGS);
  });
});

describe('PATCH /settings validation', () => {
  it('refuses bad values with 422 naming each field, and changes nothing', async () => {
    const cases: Array<[unknown, string]> = [
      [{ query: { rerank_top_k: 0 } }, 'query.rerank_top_k'],
      [{ query: { default_mode: 'psychic' } }, 'query.default_mode'],
      [{ ingest: { max_gleaning: 11 } }, 'ingest.max_gleaning'],
      [{ rate_limits: { query: -1 } }, 'rate_limits.query'],
      [{ ingest: { chunk_tokens: 100, chunk_overlap_tokens: 100 } }, 'ingest.chunk_overlap_tokens'],
      [{ ingest: { chunk_overlap_tokens: 5000 } }, 'ingest.chunk_overlap_tokens'],
      [{ llm_api_key: 'sk-nope' }, '(body)'],
      [{ query: { rerank_top_k: 3, colour: 'blue' } }, 'query'],
    ];
    for (const [body, field] of cases) {
      const problem = await patch(body, 422);
      expect(problem.errors).toEqual([expect.objectContaining({ field })]);
    }
    const res = await app.request('/api/v1/settings', {
      method: 'PATCH',
      body: 'not json',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(await settings()).toEqual(ENV_SETTINGS);
  });
});

describe('PATCH /settings applies at once', () => {
  afterAll(async () => {
    await patch(ENV_SETTINGS);
  });

  it('returns the whole result and changes only what it names', async () => {
    const after = await patch({ query: { rerank_top_k: 7 } });
    expect(after).toEqual({ ...ENV_SETTINGS, query: { ...ENV_SETTINGS.query, rerank_top_k: 7 } });
    expect(await settings()).toEqual(after);
  });

  it('gives queries that leave them out the new default mode and rerank choice', async () => {
    const doc = await app.request('/api/v1/documents', {
      method: 'POST',
      json: { content: 'Marie Curie discovered polonium in Paris with Pierre Curie at the Sorbonne.' },
    });
    expect(doc.status).toBe(201);
    const ask = async () =>
      (await (await app.request('/api/v1/query', { method: 'POST', json: { query: 'What did Marie Curie discover?' } })).json()) as {
        mode: string;
        reranked: boolean;
      };
    expect(await ask()).toMatchObject({ mode: 'hybrid', reranked: true });
    await patch({ query: { default_mode: 'naive', enable_rerank: false } });
    expect(await ask()).toMatchObject({ mode: 'naive', reranked: false });
    const explicit = await app.request('/api/v1/query', {
      method: 'POST',
      json: { query: 'What did Marie Curie discover?', mode: 'local' },
    });
    expect(((await explicit.json()) as { mode: string }).mode).toBe('local');
  });

  it('chunks and extracts documents ingested afterwards with the new chunking and gleaning', async () => {
    const sentence = (i: number) =>
      `Observatory ${i} in Lisbon recorded the comet on night ${i}, and its staff wrote a long report about it.`;
    const content = (tag: string) => Array.from({ length: 12 }, (_, i) => `${sentence(i)} ${tag}`).join(' ');
    const ingest = async (tag: string) => {
      const from = events.length;
      const res = await app.request('/api/v1/documents', { method: 'POST', json: { content: content(tag) } });
      expect(res.status).toBe(201);
      const body = (await res.json()) as { chunk_count: number };
      return { chunks: body.chunk_count, gleans: events.slice(from).filter((e) => e.task === 'glean').length };
    };
    const before = await ingest('first');
    expect(before.chunks).toBe(1);
    expect(before.gleans).toBeGreaterThan(0);
    await patch({ ingest: { chunk_tokens: 60, chunk_overlap_tokens: 10, max_gleaning: 0 } });
    const after = await ingest('second');
    expect(after.chunks).toBeGreaterThan(3);
    expect(after.gleans).toBe(0);
  });

  it('changes the rate limits of the running service', async () => {
    await patch({ rate_limits: { query: 2 } });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await app.request('/api/v1/query', { method: 'POST', json: { query: `How many limits ${i}?`, mode: 'bypass' } });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    expect(statuses).toEqual([200, 200, 429]);
    await patch({ rate_limits: { query: 0 } });
    const res = await app.request('/api/v1/query', { method: 'POST', json: { query: 'And now?', mode: 'bypass' } });
    expect(res.status).toBe(200);
  });
});

describe('concurrent changes', () => {
  afterAll(async () => {
    await patch(ENV_SETTINGS);
  });

  it('all apply, one after the other, when none was stored before', async () => {
    await forgetStored(app);
    const changes = [
      { query: { rerank_top_k: 3 } },
      { ingest: { max_gleaning: 0 } },
      { rate_limits: { graph: 50 } },
      { query: { enable_rerank: false } },
    ];
    const answers = await Promise.all(changes.map((c) => app.request('/api/v1/settings', { method: 'PATCH', json: c })));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const expected = {
      query: { ...ENV_SETTINGS.query, rerank_top_k: 3, enable_rerank: false },
      ingest: { ...ENV_SETTINGS.ingest, max_gleaning: 0 },
      rate_limits: { ...ENV_SETTINGS.rate_limits, graph: 50 },
    };
    expect(await settings()).toEqual(expected);
    const record = await app.rt.stores.accounts.settings.get('service');
    expect(JSON.parse(record!.values_json)).toMatchObject({
      query: { rerank_top_k: 3, enable_rerank: false },
      ingest: { max_gleaning: 0 },
      rate_limits: { graph: 50 },
    });
  });
});

describe('stored settings', () => {
  it('outlive a restart in persistent mode; the embedded mode starts from the environment again', async () => {
    await patch({ query: { rerank_top_k: 11 }, ingest: { max_gleaning: 2 } });
    const restarted = await startTestApp();
    try {
      const res = await restarted.request('/api/v1/settings');
      const kept = (await res.json()) as typeof ENV_SETTINGS;
      if (app.config.storage.mode === 'neo4j') {
        expect(kept.query.rerank_top_k).toBe(11);
        expect(kept.ingest.max_gleaning).toBe(2);
        expect(restarted.config.ingest.maxGleaning).toBe(2);
      } else {
        expect(kept).toEqual(ENV_SETTINGS);
      }
    } finally {
      await restarted.close();
    }
  });
});
