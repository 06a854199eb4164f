import { businessProse, pricedCatalog } from '../fixtures/costs';
import { json } from '../fixtures/documents';
import { type TestApp, startTestApp } from '../helpers/app';

/**
 * POST /pipeline/costs/estimate against the cost measured by ingesting the same text: the mock models priced, the
 * mock provider's token counts recorded per call and summed by GET /costs/summary. Entity resolution is off here:
 * its name searches and confirmations are not part of the estimate (docs/api.md §4.8).
 */
describe('cost estimate against measured ingestion', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ SERVICE_MODELS_CONFIG: pricedCatalog(), SERVICE_ENTITY_RESOLUTION: 'false' });
  });
  afterAll(() => app?.close());

  it.each([4, 12, 30])('estimates the cost of ingesting %i paragraphs within 15 %% of the measured cost', async (paragraphs) => {
    const workspace = await app.createWorkspace();
    const content = businessProse(paragraphs);
    const estimateRes = await app.request('/api/v1/pipeline/costs/estimate', {
      method: 'POST',
      json: { content_length: content.length },
      workspace,
    });
    expect(estimateRes.status).toBe(200);
    const estimate = await json(estimateRes);

    const created = await app.request('/api/v1/documents', { method: 'POST', json: { content, title: 'priced' }, workspace });
    expect(created.status).toBe(201);
    const doc = await json(created);
    expect(doc.status).toBe('completed');
    const summary = await json(await app.request('/api/v1/costs/summary', { workspace }));

    // The estimate counts tokens from the length (CHARS_PER_TOKEN): a chunk more or less than the text takes.
    expect(Math.abs(estimate.estimated_chunks - doc.chunk_count)).toBeLessThanOrEqual(1);
    const measured = summary.total_cost_usd;
    expect(measured).toBeGreaterThan(0);
    expect(Math.abs(estimate.estimated_cost_usd.total - measured) / measured).toBeLessThan(0.15);
    expect(Math.abs(estimate.estimated_cost_usd.extraction - summary.breakdown.extraction) / summary.breakdown.extraction).toBeLessThan(
      0.15,
    );
    expect(Math.abs(estimate.estimated_cost_usd.embedding - summary.breakdown.embedding) / summary.breakdown.embedding).toBeLessThan(0.15);
  });

  it('prices the estimate with the models it names, and refuses an unknown one', async () => {
    const free = await json(
      await app.request('/api/v1/pipeline/costs/estimate', {
        method: 'POST',
        json: { content_length: 20_000, llm_model: 'mock/mock-llm', embedding_model: 'mock-embedding' },
      }),
    );
    expect(free.llm_model).toBe('mock/mock-llm');
    expect(free.embedding_model).toBe('mock/mock-embedding');
    expect(free.estimated_chunks).toBeGreaterThan(1);
    expect(free.estimated_tokens.extraction).toBeGreaterThan(free.assumptions.document_tokens);

    const unknown = await app.request('/api/v1/pipeline/costs/estimate', {
      method: 'POST',
      json: { content_length: 10, llm_model: 'nope/nothing' },
    });
    expect(unknown.status).toBe(422);
    expect((await json(unknown)).errors[0].field).toBe('llm_model');
    const bad = await app.request('/api/v1/pipeline/costs/estimate', { method: 'POST', json: { content_length: -1 } });
    expect(bad.status).toBe(422);
  });

  it("answers a request that names the LLM in EdgeQuake's terms (model, provider) in EdgeQuake's terms", async () => {
    const workspace = await app.createWorkspace();
    const estimate = (body: Record<string, unknown>) =>
      app.request('/api/v1/pipeline/costs/estimate', { method: 'POST', json: { content_length: 20_000, ...body }, workspace });
    const spec = await json(await estimate({}));
    expect([spec.model, spec.provider]).toEqual(['mock-llm', 'mock']);
    for (const body of [{ model: 'mock-llm', provider: 'mock' }, { model: 'mock-llm' }, { provider: 'mock' }]) {
      const res = await estimate(body);
      expect(res.status).toBe(200);
      const sdk = await json(res);
      expect(sdk).toEqual({
        ...spec,
        estimated_cost_usd: spec.estimated_cost_usd.total,
        estimated_tokens: spec.estimated_tokens.extraction + spec.estimated_tokens.embedding,
        cost_breakdown_usd: spec.estimated_cost_usd,
        token_breakdown: spec.estimated_tokens,
      });
    }
    for (const [body, field] of [
      [{ model: 'gpt-4', provider: 'openai' }, 'model'],
      [{ provider: 'nobody' }, 'provider'],
      [{ model: 'mock-llm', llm_model: 'mock/mock-llm' }, 'model'],
      [{ provider: 'mock', llm_model: 'mock/mock-llm' }, 'provider'],
    ] as const) {
      const res = await estimate(body);
      expect({ body, status: res.status }).toEqual({ body, status: 422 });
      expect((await json(res)).errors.map((e: { field: string }) => e.field)).toContain(field);
    }
  });
});
