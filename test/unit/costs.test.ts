import { builtInCatalog } from '../../src/config';
import { periodBounds } from '../../src/domain/costs';
import { budgetStatus } from '../../src/services/costs/budget';
import { chunkSizes } from '../../src/services/costs/estimate';
import { bucketRange, bucketStart } from '../../src/services/costs/history';
import { categoryOf, operationOf, priceOf } from '../../src/services/costs/pricing';

describe('cost arithmetic', () => {
  const catalog = builtInCatalog({});
  const openai = catalog.providers.find((p) => p.name === 'openai')!;
  const llm = openai.models.find((m) => m.model_type === 'llm' && m.cost.input_per_1k > 0)!;
  const embedding = openai.models.find((m) => m.model_type === 'embedding' && m.cost.embedding_per_1k > 0)!;

  it('prices LLM calls at the input and output rates and embeddings at the embedding rate; unlisted models are free', () => {
    const call = { provider: 'openai', model: llm.name, kind: 'llm' as const, input_tokens: 2000, output_tokens: 500 };
    expect(priceOf(catalog, call)).toBeCloseTo(2 * llm.cost.input_per_1k + 0.5 * llm.cost.output_per_1k, 12);
    const embed = { provider: 'openai', model: embedding.name, kind: 'embedding' as const, input_tokens: 3000, output_tokens: 0 };
    expect(priceOf(catalog, embed)).toBeCloseTo(3 * embedding.cost.embedding_per_1k, 12);
    expect(priceOf(catalog, { ...call, model: 'not-in-the-catalog' })).toBe(0);
    expect(priceOf(catalog, { ...call, provider: 'mock', model: 'mock-llm' })).toBe(0);
  });

  it('names operations and categories from the caller\u2019s task and context', () => {
    expect(operationOf({ kind: 'llm', task: 'extract' })).toBe('extraction');
    expect(operationOf({ kind: 'llm', task: 'glean' })).toBe('gleaning');
    expect(operationOf({ kind: 'embedding', task: 'anything' })).toBe('embedding');
    expect(categoryOf({ kind: 'llm', task: 'summarize' })).toBe('extraction');
    expect(categoryOf({ kind: 'embedding' })).toBe('embedding');
    expect(categoryOf({ kind: 'embedding', query_id: 'q' })).toBe('queries');
    expect(categoryOf({ kind: 'llm', task: 'keywords' })).toBe('queries');
  });

  it('bounds calendar periods in UTC, weeks from Monday', () => {
    const at = new Date('2026-03-04T15:00:00Z'); // a Wednesday
    const iso = (p: { start: Date; end: Date }) => [p.start.toISOString(), p.end.toISOString()];
    expect(iso(periodBounds('day', at))).toEqual(['2026-03-04T00:00:00.000Z', '2026-03-05T00:00:00.000Z']);
    expect(iso(periodBounds('week', at))).toEqual(['2026-03-02T00:00:00.000Z', '2026-03-09T00:00:00.000Z']);
    expect(iso(periodBounds('month', at))).toEqual(['2026-03-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z']);
    expect(iso(periodBounds('week', new Date('2026-03-08T23:59:59Z')))[0]).toBe('2026-03-02T00:00:00.000Z');
  });

  it('projects the period\u2019s spend to its end and says when the alert and the budget are reached', () => {
    // 10 of 31 days of March gone: $10 projects to $31.
    const at = new Date('2026-03-11T00:00:00Z');
    const budget = { workspace_id: 'w', tenant_id: null, budget_usd: 20, alert_threshold: 0.5, period: 'month' as const, updated_at: '' };
    expect(budgetStatus(budget, 10, at)).toMatchObject({
      projected_end_of_period: 31,
      percent_used: 50,
      remaining_usd: 10,
      alert: true,
      exhausted: false,
    });
    expect(budgetStatus(budget, 9.99, at)).toMatchObject({ alert: false });
    expect(budgetStatus(budget, 20, at)).toMatchObject({ remaining_usd: 0, exhausted: true });
    expect(budgetStatus(null, 5, at)).toMatchObject({
      budget_usd: null,
      percent_used: null,
      remaining_usd: null,
      alert: false,
      exhausted: false,
    });
    expect(budgetStatus({ ...budget, budget_usd: 0 }, 0, at)).toMatchObject({ exhausted: true });
  });

  it('lays out history buckets, empty ones included, and the estimate\u2019s chunk windows', () => {
    expect(bucketStart('hour', new Date('2026-03-04T15:42:00Z')).toISOString()).toBe('2026-03-04T15:00:00.000Z');
    expect(bucketRange('day', new Date('2026-03-01T12:00:00Z'), new Date('2026-03-03T01:00:00Z')).map((d) => d.toISOString())).toEqual([
      '2026-03-01T00:00:00.000Z',
      '2026-03-02T00:00:00.000Z',
      '2026-03-03T00:00:00.000Z',
    ]);
    expect(chunkSizes(0, 1200, 100)).toEqual([]);
    expect(chunkSizes(800, 1200, 100)).toEqual([800]);
    expect(chunkSizes(2500, 1200, 100)).toEqual([1200, 1200, 300]);
  });
});
