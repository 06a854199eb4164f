import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from '../helpers/app';
import { startSeededApp } from '../helpers/seeded-app';

let app: TestApp;
let stub: Server;
const received: Array<{ body: { model: string; query: string; documents: string[]; top_n: number }; authorization?: string }> = [];

beforeAll(async () => {
  // A Cohere-compatible reranker that prefers the last document it is given.
  stub = createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw) as (typeof received)[number]['body'];
    received.push({ body, authorization: req.headers.authorization });
    const results = body.documents.map((_, index) => ({ index, relevance_score: (index + 1) / body.documents.length })).reverse();
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ results: results.slice(0, body.top_n) }));
  });
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
  app = await startSeededApp({
    SERVICE_RERANK_PROVIDER: 'cohere',
    SERVICE_RERANK_URL: `http://127.0.0.1:${(stub.address() as AddressInfo).port}/v2/rerank`,
    SERVICE_RERANK_API_KEY: 'test-key',
    SERVICE_RERANK_MODEL: 'rerank-test',
  });
});

afterAll(async () => {
  await app.close();
  await new Promise((resolve) => stub.close(resolve));
});

describe('POST /query with a configured reranking API', () => {
  it('sends the candidate chunks to the API and orders chunk sources by its scores', async () => {
    const res = await app.request('/api/v1/query', {
      method: 'POST',
      json: { query: 'Acme Corporation Globex quantum computing Louvre Paris museums', mode: 'mix', rerank_top_k: 2, context_only: true },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      reranked: boolean;
      sources: Array<{ source_type: string; snippet: string; rerank_score?: number }>;
    };
    expect(received).toHaveLength(1);
    const sent = received[0];
    expect(sent.authorization).toBe('Bearer test-key');
    expect(sent.body).toMatchObject({ model: 'rerank-test', query: expect.stringContaining('Acme'), top_n: 2 });
    expect(sent.body.documents.length).toBeGreaterThan(2);
    const chunks = body.sources.filter((s) => s.source_type === 'chunk');
    expect(body.reranked).toBe(true);
    const n = sent.body.documents.length;
    expect(chunks.map((c) => c.rerank_score)).toEqual([1, Math.round(((n - 1) / n) * 1e6) / 1e6]);
    const last = sent.body.documents[sent.body.documents.length - 1];
    expect(last.replace(/\s+/g, ' ').startsWith(chunks[0].snippet.replace(/…$/, ''))).toBe(true);
  });
});
