import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBuiltinReranker, createHttpReranker, createReranker } from '../../src/retrieval';
import { bm25Scores, minMax, termStats } from '../../src/retrieval/rerank/bm25';
import { proximityScorer } from '../../src/retrieval/rerank/proximity';
import { loadConfig } from '../../src/config/load';
import { createLogger } from '../../src/logger';

describe('bm25Scores', () => {
  const score = (terms: string[], texts: string[]) =>
    bm25Scores(
      terms,
      texts.map((t) => termStats(t, terms)),
    );

  it('scores documents with the query terms higher, rarer terms weighing more', () => {
    const scores = score(['berlin', 'acme'], ['Acme builds databases', 'Acme has a Berlin office', 'Paris museum']);
    expect(scores[1]).toBeGreaterThan(scores[0]);
    expect(scores[0]).toBeGreaterThan(scores[2]);
    expect(scores[2]).toBe(0);
  });

  it('penalises long documents for the same term frequency', () => {
    const [short, long] = score(['qubit'], ['qubit xy', 'qubit aa bb cc dd ee ff gg']);
    expect(short).toBeGreaterThan(long);
  });

  it('counts whole words only, case-insensitively, and the words of the text', () => {
    expect(termStats('Acme, ACME and acmes; acme-corp.', ['acme', 'corp'])).toEqual({ counts: [3, 1], length: 6 });
    expect(termStats('Zürich liegt am Zürichsee', ['zürich'])).toEqual({ counts: [1], length: 4 });
  });

  it('min-max normalises, mapping equal positive values to 1 and zeros to 0', () => {
    expect(minMax([2, 4, 3])).toEqual([0, 1, 0.5]);
    expect(minMax([3, 3])).toEqual([1, 1]);
    expect(minMax([0, 0])).toEqual([0, 0]);
  });
});

describe('proximityScorer', () => {
  const terms = ['ada', 'berlin', 'graphs'];
  const weights = [1, 1, 2];
  const score = proximityScorer(terms, weights);

  it('is the weighted share of the query terms that one passage holds together', () => {
    expect(score('Ada moved to BERLIN to work on graphs.')).toBe(1);
    expect(score('Ada moved to Berlin.')).toBe(0.5);
    expect(score('Graphs.')).toBe(0.5);
    expect(score('Nothing here.')).toBe(0);
  });

  it('does not add up terms that are far apart', () => {
    const apart = `Ada moved to Berlin. ${'filler words '.repeat(20)}Graphs are studied elsewhere.`;
    expect(proximityScorer(terms, weights, 100)(apart)).toBe(0.5);
    expect(proximityScorer(terms, weights, 1000)(apart)).toBe(1);
  });

  it('counts whole words only, in any script', () => {
    expect(score('Adamant berliners like paragraphs')).toBe(0);
    expect(proximityScorer(['zürich', 'see'], [1, 1])('ZÜRICH liegt am Zürichsee')).toBe(0.5);
  });

  it('gives 0 to every text when no term weighs anything', () => {
    expect(proximityScorer(['ada'], [0])('Ada')).toBe(0);
    expect(proximityScorer([], [])('Ada')).toBe(0);
  });
});

describe('built-in reranker', () => {
  const candidates = [
    { text: 'Paris museums open late on Fridays.', score: 0.9 },
    { text: 'Acme Corporation is headquartered in Berlin.', score: 0.5 },
    { text: 'Globex studies quantum computing.', score: 0.4 },
  ];

  it('lifts the candidate with the query terms above better vector scores and keeps top k', async () => {
    const ranked = await createBuiltinReranker().rerank('Where is Acme headquartered in Berlin?', candidates, 2);
    expect(ranked.map((r) => r.index)).toEqual([1, 0]);
    expect(ranked[0].score).toBeGreaterThan(ranked[1].score);
  });

  it('puts the candidate that names the query terms together above one that names them apart', async () => {
    const filler = 'The archive lists many unrelated entries about weather and trains. '.repeat(4);
    const together = { text: `${filler}Ada Lovelace joined Acme in Berlin to lead the work on graphs. ${filler}`, score: 0.5 };
    const apart = { text: `Ada Lovelace left. ${filler}Acme in Berlin. ${filler}The work on graphs.`, score: 0.5 };
    const unrelated = { text: filler, score: 0.5 };
    const ranked = await createBuiltinReranker().rerank(
      'Which company did Ada Lovelace join in Berlin to work on graphs?',
      [apart, together, unrelated],
      1,
    );
    expect(ranked.map((r) => r.index)).toEqual([1]);
    // BM25 alone puts the shorter one first: the same terms, the same counts.
    const bm25Only = await createBuiltinReranker(0.5, 0).rerank(
      'Which company did Ada Lovelace join in Berlin to work on graphs?',
      [apart, together, unrelated],
      2,
    );
    expect(bm25Only[0].index).toBe(0);
  });

  it('returns nothing for no candidates', async () => {
    expect(await createBuiltinReranker().rerank('q', [], 5)).toEqual([]);
  });
});

interface Stub {
  url: string;
  requests: Array<{ body: Record<string, unknown>; authorization?: string }>;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  return JSON.parse(raw) as Record<string, unknown>;
}

/** A Cohere/Jina-shaped reranking API on a free loopback port. */
async function startStub(answer: (body: Record<string, unknown>) => { status: number; json: unknown }): Promise<Stub> {
  const requests: Stub['requests'] = [];
  const server: Server = createServer(async (req, res) => {
    const body = await readJson(req);
    requests.push({ body, authorization: req.headers.authorization });
    const { status, json } = answer(body);
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(json));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/rerank`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('HTTP reranker', () => {
  const candidates = [
    { text: 'first', score: 0.9 },
    { text: 'second', score: 0.8 },
    { text: 'third', score: 0.7 },
  ];

  it('sends {model, query, documents, top_n} with the key and orders by relevance_score', async () => {
    const stub = await startStub(() => ({
      status: 200,
      json: {
        results: [
          { index: 2, relevance_score: 0.95 },
          { index: 0, relevance_score: 0.4 },
        ],
      },
    }));
    try {
      const reranker = createHttpReranker({ name: 'cohere', url: stub.url, apiKey: 'k-123', model: 'rerank-test', timeoutMs: 2000 });
      const ranked = await reranker.rerank('which one?', candidates, 2);
      expect(ranked).toEqual([
        { index: 2, score: 0.95 },
        { index: 0, score: 0.4 },
      ]);
      expect(stub.requests[0].body).toEqual({
        model: 'rerank-test',
        query: 'which one?',
        documents: ['first', 'second', 'third'],
        top_n: 2,
      });
      expect(stub.requests[0].authorization).toBe('Bearer k-123');
    } finally {
      await stub.close();
    }
  });

  it('fails on an HTTP error and on an unexpected body', async () => {
    const down = await startStub(() => ({ status: 500, json: { message: 'boom' } }));
    const odd = await startStub(() => ({ status: 200, json: { data: [] } }));
    try {
      const options = { name: 'jina', apiKey: null, model: 'm', timeoutMs: 2000 };
      await expect(createHttpReranker({ ...options, url: down.url }).rerank('q', candidates, 2)).rejects.toThrow('HTTP 500');
      await expect(createHttpReranker({ ...options, url: odd.url }).rerank('q', candidates, 2)).rejects.toThrow('unexpected body');
    } finally {
      await down.close();
      await odd.close();
    }
  });

  it('as the configured reranker, falls back to the built-in one when the API fails', async () => {
    const down = await startStub(() => ({ status: 503, json: {} }));
    try {
      const reranker = createReranker({ provider: 'jina', url: down.url, apiKey: null, model: null }, createLogger('silent'));
      const close = [
        { text: 'first', score: 0.9 },
        { text: 'second', score: 0.85 },
        { text: 'third', score: 0.88 },
      ];
      const ranked = await reranker?.rerank('third', close, 1);
      expect(down.requests[0].body.model).toBe('jina-reranker-v2-base-multilingual');
      expect(ranked).toEqual([{ index: 2, score: expect.any(Number) }]);
    } finally {
      await down.close();
    }
  });

  it('is absent when the configuration says none', () => {
    expect(createReranker({ provider: 'none', url: null, apiKey: null, model: null }, createLogger('silent'))).toBeNull();
  });
});

describe('reranker configuration', () => {
  const load = (env: Record<string, string>) =>
    loadConfig(
      { SERVICE_LLM_PROVIDER: 'mock', SERVICE_EMBEDDING_PROVIDER: 'mock', SERVICE_MODELS_CONFIG: `${__dirname}/../../models.toml`, ...env },
      { cwd: `${__dirname}/../..`, homeDir: '/nonexistent' },
    );

  it('defaults to the built-in reranker', () => {
    expect(load({}).rerank).toEqual({ provider: 'builtin', url: null, apiKey: null, model: null });
  });

  it('reads a Cohere-compatible API with its key from the named variable', () => {
    const config = load({
      SERVICE_RERANK_PROVIDER: 'Cohere',
      SERVICE_RERANK_API_KEY_ENV: 'MY_RERANK_KEY',
      MY_RERANK_KEY: 'secret',
      SERVICE_RERANK_MODEL: 'rerank-english-v3.0',
    });
    expect(config.rerank).toEqual({ provider: 'cohere', url: null, apiKey: 'secret', model: 'rerank-english-v3.0' });
  });

  it('accepts a self-hosted Jina-compatible endpoint without a key', () => {
    expect(load({ SERVICE_RERANK_PROVIDER: 'jina', SERVICE_RERANK_URL: 'http://127.0.0.1:7997/rerank/' }).rerank).toEqual({
      provider: 'jina',
      url: 'http://127.0.0.1:7997/rerank',
      apiKey: null,
      model: null,
    });
  });

  it('refuses an unknown provider, a vendor API without a key and a key variable that is unset', () => {
    expect(() => load({ SERVICE_RERANK_PROVIDER: 'magic' })).toThrow('SERVICE_RERANK_PROVIDER: must be one of builtin, cohere, jina, none');
    expect(() => load({ SERVICE_RERANK_PROVIDER: 'cohere' })).toThrow("'cohere' needs an API key");
    expect(() => load({ SERVICE_RERANK_PROVIDER: 'jina', SERVICE_RERANK_API_KEY_ENV: 'UNSET_VAR' })).toThrow(
      'names UNSET_VAR, which is not set',
    );
    expect(() => load({ SERVICE_RERANK_URL: 'ftp://x' })).toThrow('SERVICE_RERANK_URL');
  });
});
