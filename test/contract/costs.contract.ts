import { randomUUID } from 'node:crypto';
import type { BudgetRecord, UsageRecord } from '../../src/domain/costs';
import type { Scope } from '../../src/domain/types';
import { type StoresCleanup, type StoresFactory, useStores } from './harness';

const ALL = { from: '2000-01-01T00:00:00.000Z', to: '2100-01-01T00:00:00.000Z' };

function usage(scope: Scope, at: string, extra: Partial<UsageRecord> = {}): UsageRecord {
  return {
    id: randomUUID(),
    workspace_id: scope.workspaceId,
    tenant_id: 'tenant-1',
    operation: 'extraction',
    category: 'extraction',
    provider: 'mock',
    model: 'mock-llm',
    kind: 'llm',
    input_tokens: 100,
    output_tokens: 50,
    cost_usd: 0.125,
    created_at: at,
    document_id: 'doc-1',
    query_id: null,
    ...extra,
  };
}

/** The usage records and budgets of the cost store (CostStore port). */
export function costStoreContract(name: string, makeStores: StoresFactory, cleanup?: StoresCleanup): void {
  describe(`${name}: CostStore contract`, () => {
    const ctx = useStores(makeStores, cleanup);
    const costs = () => ctx.stores().costs;

    it('stores records as given and lists those of a time range, oldest first', async () => {
      const scope = ctx.scope();
      const a = usage(scope, '2026-03-02T10:00:00.000Z');
      const b = usage(scope, '2026-03-01T10:00:00.000Z', {
        kind: 'embedding',
        operation: 'embedding',
        category: 'embedding',
        output_tokens: 0,
        document_id: null,
      });
      const c = usage(scope, '2026-03-03T10:00:00.000Z', {
        query_id: 'q-1',
        document_id: null,
        category: 'queries',
        operation: 'answer',
        tenant_id: null,
      });
      await costs().add(scope, [a, b]);
      await costs().add(scope, [c]);
      await costs().add(scope, []);
      expect(await costs().list(scope, ALL)).toEqual([b, a, c]);
      expect(await costs().list(scope, { from: '2026-03-02T00:00:00.000Z', to: '2026-03-03T10:00:00.000Z' })).toEqual([a]);
      expect(await costs().list(ctx.scope(), ALL)).toEqual([]);
    });

    it('sums a range by category, counting distinct documents and queries', async () => {
      const scope = ctx.scope();
      await costs().add(scope, [
        usage(scope, '2026-03-01T00:00:00.000Z', { cost_usd: 0.5 }),
        usage(scope, '2026-03-01T01:00:00.000Z', { cost_usd: 0.25, document_id: 'doc-2' }),
        usage(scope, '2026-03-01T02:00:00.000Z', {
          cost_usd: 0.125,
          document_id: 'doc-2',
          kind: 'embedding',
          category: 'embedding',
          output_tokens: 0,
        }),
        usage(scope, '2026-03-01T03:00:00.000Z', { cost_usd: 1, document_id: null, query_id: 'q-1', category: 'queries' }),
        usage(scope, '2026-04-01T00:00:00.000Z', { cost_usd: 100 }),
      ]);
      const totals = await costs().totals(scope, { from: '2026-03-01T00:00:00.000Z', to: '2026-04-01T00:00:00.000Z' });
      expect(totals).toEqual({
        cost_usd: 1.875,
        input_tokens: 400,
        output_tokens: 150,
        calls: 4,
        documents: 2,
        queries: 1,
        by_category: { extraction: 0.75, embedding: 0.125, queries: 1 },
      });
      const none = await costs().totals(ctx.scope(), ALL);
      expect(none).toEqual({
        cost_usd: 0,
        input_tokens: 0,
        output_tokens: 0,
        calls: 0,
        documents: 0,
        queries: 0,
        by_category: { extraction: 0, embedding: 0, queries: 0 },
      });
    });

    it('rolls records up per tenant, per workspace', async () => {
      const tenant = `tenant-${randomUUID()}`;
      const one = ctx.scope();
      const two = ctx.scope();
      const other = ctx.scope();
      await costs().add(one, [usage(one, '2026-03-01T00:00:00.000Z', { tenant_id: tenant, cost_usd: 0.5 })]);
      await costs().add(two, [
        usage(two, '2026-03-01T00:00:00.000Z', { tenant_id: tenant, cost_usd: 0.25 }),
        usage(two, '2026-03-02T00:00:00.000Z', { tenant_id: tenant, cost_usd: 0.25 }),
      ]);
      await costs().add(other, [usage(other, '2026-03-01T00:00:00.000Z', { tenant_id: `tenant-${randomUUID()}` })]);
      const rolled = await costs().tenantTotals(tenant, ALL);
      expect([...rolled.keys()].sort()).toEqual([one.workspaceId, two.workspaceId].sort());
      expect(rolled.get(one.workspaceId)?.cost_usd).toBe(0.5);
      expect(rolled.get(two.workspaceId)?.calls).toBe(2);
    });

    it('keeps one budget per workspace, replaced as a whole', async () => {
      const scope = ctx.scope();
      expect(await costs().getBudget(scope)).toBeNull();
      const budget: BudgetRecord = {
        workspace_id: scope.workspaceId,
        tenant_id: 'tenant-1',
        budget_usd: 12.5,
        alert_threshold: 0.8,
        period: 'month',
        updated_at: '2026-03-01T00:00:00.000Z',
      };
      await costs().setBudget(scope, budget);
      expect(await costs().getBudget(scope)).toEqual(budget);
      const removed = { ...budget, budget_usd: null, period: 'week' as const, alert_threshold: 0.5 };
      await costs().setBudget(scope, removed);
      expect(await costs().getBudget(scope)).toEqual(removed);
      expect(await costs().getBudget(ctx.scope())).toBeNull();
    });

    it('drops the records and the budget of a dropped workspace only', async () => {
      const gone = ctx.scope();
      const kept = ctx.scope();
      await costs().add(gone, [usage(gone, '2026-03-01T00:00:00.000Z')]);
      await costs().add(kept, [usage(kept, '2026-03-01T00:00:00.000Z')]);
      await costs().setBudget(gone, {
        workspace_id: gone.workspaceId,
        tenant_id: null,
        budget_usd: 1,
        alert_threshold: 0.8,
        period: 'day',
        updated_at: '2026-03-01T00:00:00.000Z',
      });
      await ctx.stores().dropWorkspace(gone);
      expect(await costs().list(gone, ALL)).toEqual([]);
      expect(await costs().getBudget(gone)).toBeNull();
      expect(await costs().list(kept, ALL)).toHaveLength(1);
    });
  });
}
