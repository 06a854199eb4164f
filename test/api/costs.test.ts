import { MOCK_PRICES, businessProse, pricedCatalog } from '../fixtures/costs';
import { json } from '../fixtures/documents';
import { type TestApp, startTestApp } from '../helpers/app';

const DAY = 86_400_000;
const day = (t: number) => new Date(t).toISOString().slice(0, 10);

/** Cost accounting over HTTP (docs/api.md §4.8): the mock models priced, every call recorded and summed. */
describe('costs and budgets', () => {
  let app: TestApp;
  /** The mock providers' simulated latency, changed by a test. */
  let latencyMs = 0;
  beforeAll(async () => {
    app = await startTestApp({ SERVICE_MODELS_CONFIG: pricedCatalog() }, { mockLatencyMs: () => latencyMs });
  });
  afterAll(() => app?.close());

  const ingest = (workspace: string, paragraphs = 4, extra: Record<string, unknown> = {}) =>
    app.request('/api/v1/documents', {
      method: 'POST',
      json: { content: businessProse(paragraphs), title: `doc ${Math.random()}`, ...extra },
      workspace,
    });
  const ask = (workspace: string) =>
    app.request('/api/v1/query', { method: 'POST', json: { query: 'Who joined Acme Corporation?' }, workspace });
  const summary = async (workspace: string) => json(await app.request('/api/v1/costs/summary', { workspace }));
  /** Polls the task (in `workspace`) until its status is one of `statuses`. */
  const waitForTask = async (workspace: string, taskId: string, statuses: string[]) => {
    for (let i = 0; i < 2_000; i++) {
      const task = await json(await app.request(`/api/v1/tasks/${taskId}`, { workspace }));
      if (statuses.includes(task.status)) return task;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`task ${taskId} never reached ${statuses.join('/')}`);
  };
  const patchBudget = (workspace: string, body: Record<string, unknown>) =>
    app.request('/api/v1/costs/budget', { method: 'PATCH', json: body, workspace });

  it('lists the catalog prices, without an output price for embedding models', async () => {
    const res = await app.request('/api/v1/pipeline/costs/pricing');
    expect(res.status).toBe(200);
    const { models } = await json(res);
    const llm = models.find((m: { id: string }) => m.id === 'mock/mock-llm');
    const embedding = models.find((m: { id: string }) => m.id === 'mock/mock-embedding');
    expect(llm).toMatchObject({
      provider: 'mock',
      model_type: 'llm',
      input_cost_per_1k_tokens: MOCK_PRICES.input,
      output_cost_per_1k_tokens: MOCK_PRICES.output,
    });
    expect(embedding).toMatchObject({ model_type: 'embedding', input_cost_per_1k_tokens: MOCK_PRICES.embedding });
    expect(embedding).not.toHaveProperty('output_cost_per_1k_tokens');
  });

  it('records every provider call of an ingestion and of a query, priced from the catalog', async () => {
    const workspace = await app.createWorkspace();
    expect(await summary(workspace)).toMatchObject({
      total_cost_usd: 0,
      usage: { documents_processed: 0, queries_executed: 0, tokens_used: 0 },
    });

    const doc = await json(await ingest(workspace));
    expect(doc.status).toBe('completed');
    const afterIngest = await summary(workspace);
    expect(afterIngest.usage.documents_processed).toBe(1);
    expect(afterIngest.breakdown.extraction).toBeGreaterThan(0);
    expect(afterIngest.breakdown.embedding).toBeGreaterThan(0);
    expect(afterIngest.breakdown.queries).toBe(0);
    const { input_tokens, output_tokens } = afterIngest.usage;
    // Embeddings are priced per input token at the embedding rate; LLM calls at the input and output rates.
    const records = await app.rt.stores.costs.list(
      { workspaceId: workspace },
      { from: '2000-01-01T00:00:00.000Z', to: '2100-01-01T00:00:00.000Z' },
    );
    expect(records.length).toBe(afterIngest.usage.calls);
    expect(new Set(records.map((r) => r.operation))).toEqual(new Set(['extraction', 'gleaning', 'embedding']));
    for (const r of records) {
      expect(r.document_id).toBe(doc.id);
      expect(r.tenant_id).toEqual(expect.any(String));
      const expected =
        r.kind === 'embedding'
          ? (r.input_tokens * MOCK_PRICES.embedding) / 1000
          : (r.input_tokens * MOCK_PRICES.input + r.output_tokens * MOCK_PRICES.output) / 1000;
      expect(r.cost_usd).toBeCloseTo(expected, 10);
    }
    expect(input_tokens + output_tokens).toBe(afterIngest.usage.tokens_used);

    expect((await ask(workspace)).status).toBe(200);
    const stream = await app.request('/api/v1/query/stream', {
      method: 'POST',
      json: { query: 'What does Northwind Labs do?' },
      workspace,
    });
    expect(stream.status).toBe(200);
    await stream.text();
    const afterQueries = await summary(workspace);
    expect(afterQueries.usage.queries_executed).toBe(2);
    expect(afterQueries.breakdown.queries).toBeGreaterThan(0);
    expect(afterQueries.breakdown.extraction).toBe(afterIngest.breakdown.extraction);
    expect(afterQueries.total_cost_usd).toBeCloseTo(afterIngest.total_cost_usd + afterQueries.breakdown.queries, 6);
  });

  it('answers history buckets over a range, empty buckets included, and refuses bad ranges', async () => {
    const workspace = await app.createWorkspace();
    await ingest(workspace);
    const now = Date.now();
    const res = await app.request(`/api/v1/costs/history?start_date=${day(now - 4 * DAY)}&end_date=${day(now)}&granularity=day`, {
      workspace,
    });
    expect(res.status).toBe(200);
    const history = await json(res);
    expect(history.buckets.map((b: { timestamp: string }) => b.timestamp.slice(0, 10))).toEqual(
      [4, 3, 2, 1, 0].map((d) => day(now - d * DAY)),
    );
    expect(history.buckets.slice(0, 4).map((b: { cost_usd: number; calls: number }) => [b.cost_usd, b.calls])).toEqual([
      [0, 0],
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
    const today = history.buckets[4];
    expect(today.cost_usd).toBeGreaterThan(0);
    expect(history.total_cost_usd).toBeCloseTo((await summary(workspace)).total_cost_usd, 6);

    const past = await json(
      await app.request('/api/v1/costs/history?start_date=2025-01-01&end_date=2025-01-02T05:30:00Z&granularity=hour', { workspace }),
    );
    expect(past.buckets).toHaveLength(24 + 6);
    expect(past.buckets.every((b: { cost_usd: number }) => b.cost_usd === 0)).toBe(true);
    const weeks = await json(
      await app.request('/api/v1/costs/history?start_date=2025-01-01&end_date=2025-01-31&granularity=week', { workspace }),
    );
    // 2025-01-01 is a Wednesday: weeks start on the Mondays 2024-12-30 .. 2025-01-27.
    expect(weeks.buckets.map((b: { timestamp: string }) => b.timestamp.slice(0, 10))).toEqual([
      '2024-12-30',
      '2025-01-06',
      '2025-01-13',
      '2025-01-20',
      '2025-01-27',
    ]);
    const defaults = await json(await app.request('/api/v1/costs/history', { workspace }));
    expect(defaults.granularity).toBe('day');
    expect(defaults.buckets).toHaveLength(31);

    for (const query of [
      'start_date=2025-02-01&end_date=2025-01-01',
      'start_date=2000-01-01&end_date=2025-01-01&granularity=hour',
      'start_date=yesterday',
      'granularity=minute',
    ]) {
      const bad = await app.request(`/api/v1/costs/history?${query}`, { workspace });
      expect([query, bad.status]).toEqual([query, 422]);
    }
  });

  it('keeps a budget per workspace: spend, percent, projection; validates changes; admins only', async () => {
    const workspace = await app.createWorkspace();
    const initial = await json(await app.request('/api/v1/costs/budget', { workspace }));
    expect(initial).toMatchObject({
      budget_usd: null,
      spent_usd: 0,
      remaining_usd: null,
      percent_used: null,
      period: 'month',
      alert_threshold: 0.8,
      exhausted: false,
    });
    await ingest(workspace);
    const spent = (await summary(workspace)).total_cost_usd;
    const set = await patchBudget(workspace, { budget_usd: spent * 4, alert_threshold: 0.9 });
    expect(set.status).toBe(200);
    const budget = await json(set);
    expect(budget).toMatchObject({ budget_usd: spent * 4, alert_threshold: 0.9, period: 'month', alert: false, exhausted: false });
    expect(budget.spent_usd).toBeCloseTo(spent, 6);
    expect(budget.remaining_usd).toBeCloseTo(spent * 3, 6);
    expect(budget.percent_used).toBeCloseTo(25, 1);
    expect(budget.projected_end_of_period).toBeGreaterThanOrEqual(budget.spent_usd);
    const weekly = await json(await patchBudget(workspace, { period: 'week' }));
    expect(weekly).toMatchObject({ period: 'week', budget_usd: spent * 4, alert_threshold: 0.9 });
    expect(Date.parse(weekly.period_end) - Date.parse(weekly.period_start)).toBe(7 * DAY);

    for (const body of [{}, { budget_usd: -1 }, { alert_threshold: 1.5 }, { period: 'year' }, { budget_usd: 'ten' }]) {
      const bad = await patchBudget(workspace, body);
      expect([body, bad.status]).toEqual([body, 422]);
    }
    const viewer = await app.createApiKey({ role: 'viewer' });
    const refused = await app.request('/api/v1/costs/budget', {
      method: 'PATCH',
      json: { budget_usd: 1 },
      workspace,
      headers: { 'X-API-Key': viewer },
    });
    expect(refused.status).toBe(403);
    expect((await json(await app.request('/api/v1/costs/budget', { workspace }))).budget_usd).toBe(spent * 4);
  });

  it('warns once when the alert threshold is crossed and shows it in /health', async () => {
    const workspace = await app.createWorkspace();
    await ingest(workspace);
    const spent = (await summary(workspace)).total_cost_usd;
    const warn = jest.spyOn(app.rt.log, 'warn');
    try {
      const budget = await json(await patchBudget(workspace, { budget_usd: spent * 1.9, alert_threshold: 0.5 }));
      expect(budget).toMatchObject({ alert: true, exhausted: false });
      expect((await ask(workspace)).status).toBe(200);
      expect((await summary(workspace)).total_cost_usd).toBeLessThan(spent * 1.9);
      const alerts = warn.mock.calls.filter(([, msg]) => typeof msg === 'string' && msg.includes(workspace));
      expect(alerts).toHaveLength(1);
      expect(alerts[0][1]).toMatch(/of its month budget/);
    } finally {
      warn.mockRestore();
    }
    const health = await json(await app.request('/health'));
    expect(health.operational.budget_alerts).toContainEqual(
      expect.objectContaining({ workspace_id: workspace, period: 'month', exhausted: false }),
    );
    expect(health.warnings.some((w: string) => w.includes(workspace))).toBe(true);
  });

  it('refuses new ingestion and queries with 402 once the budget is spent, while running work finishes', async () => {
    const workspace = await app.createWorkspace();
    latencyMs = 150;
    let taskId = '';
    try {
      const queued = await ingest(workspace, 12, { async_processing: true });
      expect(queued.status).toBe(202);
      taskId = (await json(queued)).task_id;
      await waitForTask(workspace, taskId, ['running']);
      // Spent at once: a budget of 0.
      expect((await json(await patchBudget(workspace, { budget_usd: 0 }))).exhausted).toBe(true);

      const refusedUpload = await ingest(workspace);
      expect(refusedUpload.status).toBe(402);
      const problem = await json(refusedUpload);
      expect(problem.type).toMatch(/\/budget-exhausted$/);
      expect(problem.detail).toMatch(/budget/);
      expect((await ask(workspace)).status).toBe(402);
      expect((await app.request('/api/v1/query/stream', { method: 'POST', json: { query: 'x' }, workspace })).status).toBe(402);
      expect((await app.request('/api/v1/chat/completions', { method: 'POST', json: { message: 'x' }, workspace })).status).toBe(402);
      expect(
        (
          await app.request('/v1/chat/completions', {
            method: 'POST',
            json: { model: 'kgrag:hybrid', messages: [{ role: 'user', content: 'x' }] },
            workspace,
          })
        ).status,
      ).toBe(402);
      // Reading is not spending.
      expect((await app.request('/api/v1/costs/summary', { workspace })).status).toBe(200);
      expect((await app.request('/api/v1/documents', { workspace })).status).toBe(200);
    } finally {
      latencyMs = 0;
    }
    const task = await waitForTask(workspace, taskId, ['completed', 'failed', 'cancelled']);
    expect(task.status).toBe('completed');
    const after = await summary(workspace);
    expect(after.usage.documents_processed).toBe(1);
    expect(after.total_cost_usd).toBeGreaterThan(0);
    const health = await json(await app.request('/health'));
    expect(health.operational.budget_alerts).toContainEqual(expect.objectContaining({ workspace_id: workspace, exhausted: true }));

    // Another workspace is not affected; raising the budget lets this one work again.
    expect((await ingest(await app.createWorkspace())).status).toBe(201);
    expect((await patchBudget(workspace, { budget_usd: after.total_cost_usd * 100 })).status).toBe(200);
    expect((await ask(workspace)).status).toBe(200);
  });

  it('rolls spend up per tenant and drops a deleted workspace\u2019s records', async () => {
    const one = await app.createWorkspace();
    const two = await app.createWorkspace();
    await ingest(one);
    await ingest(two, 8);
    const tenant = await json(await app.request('/api/v1/costs/tenant', { workspace: one }));
    const ids = tenant.workspaces.map((w: { workspace_id: string }) => w.workspace_id);
    expect(ids).toEqual(expect.arrayContaining([one, two]));
    const sum = tenant.workspaces.reduce((s: number, w: { total_cost_usd: number }) => s + w.total_cost_usd, 0);
    expect(tenant.total_cost_usd).toBeCloseTo(sum, 6);
    expect(tenant.workspaces.find((w: { workspace_id: string }) => w.workspace_id === two).total_cost_usd).toBe(
      (await summary(two)).total_cost_usd,
    );
    const editor = await app.createApiKey({ role: 'editor' });
    expect((await app.request('/api/v1/costs/tenant', { workspace: one, headers: { 'X-API-Key': editor } })).status).toBe(403);

    expect((await app.request(`/api/v1/workspaces/${two}`, { method: 'DELETE' })).status).toBe(204);
    expect(
      await app.rt.stores.costs.list({ workspaceId: two }, { from: '2000-01-01T00:00:00.000Z', to: '2100-01-01T00:00:00.000Z' }),
    ).toEqual([]);
    const after = await json(await app.request('/api/v1/costs/tenant', { workspace: one }));
    expect(after.workspaces.map((w: { workspace_id: string }) => w.workspace_id)).not.toContain(two);
  });
});
