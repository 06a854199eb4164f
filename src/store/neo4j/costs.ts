import type { BudgetRecord, CostCategory, UsageRecord } from '../../domain/costs';
import type { Scope } from '../../domain/types';
import { type CostStore, type TimeRange, type UsageTotals, emptyTotals } from '../ports';
import { type Neo4jClient, type Row, scopeParams } from './client';
import { GroupCommit } from './group-commit';
import { scopeKey } from '../../domain/ids';
import { ReadCache } from './read-cache';
import { int, num } from './values';

/**
 * Neo4j keeps no nulls: absent properties come back as null. `tenant_id` is the store scope's (as on every node);
 * the tenant owning the workspace, for the roll-up, is `owner_tenant_id`.
 */
function toRecord(row: Record<string, unknown>): UsageRecord {
  return {
    id: String(row.id),
    workspace_id: String(row.workspace_id),
    tenant_id: typeof row.owner_tenant_id === 'string' ? row.owner_tenant_id : null,
    operation: String(row.operation),
    category: row.category as CostCategory,
    provider: String(row.provider),
    model: String(row.model),
    kind: row.kind === 'embedding' ? 'embedding' : 'llm',
    input_tokens: num(row.input_tokens),
    output_tokens: num(row.output_tokens),
    cost_usd: Number(row.cost_usd ?? 0),
    created_at: String(row.created_at),
    document_id: typeof row.document_id === 'string' ? row.document_id : null,
    query_id: typeof row.query_id === 'string' ? row.query_id : null,
  };
}

function fieldsOf(record: UsageRecord): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (value === null || key === 'workspace_id') continue;
    if (key === 'tenant_id') {
      fields.owner_tenant_id = value;
      continue;
    }
    fields[key] = key === 'input_tokens' || key === 'output_tokens' ? int(value as number) : value;
  }
  // A float property even when the cost is a whole number, so sums stay floats.
  fields.cost_usd = Number(record.cost_usd);
  return fields;
}

/** Folds per-category rows (costs/totals) into one total. */
function fold(rows: Row[]): UsageTotals {
  const totals = emptyTotals();
  const documents = new Set<string>();
  const queries = new Set<string>();
  for (const row of rows) {
    const cost = Number(row.cost_usd ?? 0);
    totals.cost_usd += cost;
    totals.input_tokens += num(row.input_tokens);
    totals.output_tokens += num(row.output_tokens);
    totals.calls += num(row.calls);
    totals.by_category[row.category as CostCategory] += cost;
    for (const d of (row.documents as unknown[] | null) ?? []) if (typeof d === 'string') documents.add(d);
    for (const q of (row.queries as unknown[] | null) ?? []) if (typeof q === 'string') queries.add(q);
  }
  totals.documents = documents.size;
  totals.queries = queries.size;
  return totals;
}

/** The usage records of one `add` call, as rows for `costs/add`. */
type UsageRows = { scope: Scope; rows: Array<Record<string, unknown>> };

/** `(:UsageRecord)` nodes, one per priced call, and one `(:CostBudget)` per workspace. */
export class Neo4jCostStore implements CostStore {
  /** Records of one workspace added while others are being written go together as one statement. */
  private readonly adds: GroupCommit<UsageRows, void>;

  constructor(private readonly db: Neo4jClient) {
    this.adds = GroupCommit.ofWrites<UsageRows>((calls) =>
      this.db.writeRows('costs/add', { ...scopeParams(calls[0].scope), rows: calls.flatMap((c) => c.rows) }),
    );
  }

  /** Every query checks its workspace's budget: kept per instance (read-cache.ts). */
  private readonly budgets = new ReadCache<BudgetRecord | null>();

  /** Dropping a workspace forgets its budget. */
  forget(scope: Scope): void {
    this.budgets.forget(scopeKey(scope));
  }

  async add(scope: Scope, records: UsageRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.adds.submit(scopeKey(scope), { scope, rows: records.map(fieldsOf) });
  }

  async list(scope: Scope, range: TimeRange): Promise<UsageRecord[]> {
    const rows = await this.db.readRows('costs/list', { ...scopeParams(scope), ...range });
    return rows.map((row) => toRecord(row.record as Record<string, unknown>));
  }

  async totals(scope: Scope, range: TimeRange): Promise<UsageTotals> {
    return fold(await this.db.readRows('costs/totals', { ...scopeParams(scope), ...range }));
  }

  async tenantTotals(tenantId: string, range: TimeRange): Promise<Map<string, UsageTotals>> {
    const rows = await this.db.readRows('costs/tenant-totals', { owner_tenant_id: tenantId, ...range });
    const byWorkspace = new Map<string, Row[]>();
    for (const row of rows) {
      const id = String(row.workspace_id);
      byWorkspace.set(id, [...(byWorkspace.get(id) ?? []), row]);
    }
    return new Map([...byWorkspace].map(([id, list]) => [id, fold(list)]));
  }

  async getBudget(scope: Scope): Promise<BudgetRecord | null> {
    const budget = await this.budgets.get(scopeKey(scope), () => this.readBudget(scope));
    return budget ? { ...budget } : null;
  }

  private async readBudget(scope: Scope): Promise<BudgetRecord | null> {
    const [row] = await this.db.readRows('costs/get-budget', scopeParams(scope));
    const b = row?.budget as Record<string, unknown> | undefined;
    if (!b) return null;
    return {
      workspace_id: String(b.workspace_id),
      tenant_id: typeof b.owner_tenant_id === 'string' ? b.owner_tenant_id : null,
      budget_usd: typeof b.budget_usd === 'number' ? b.budget_usd : null,
      alert_threshold: Number(b.alert_threshold),
      period: b.period as BudgetRecord['period'],
      updated_at: String(b.updated_at),
    };
  }

  async setBudget(scope: Scope, budget: BudgetRecord): Promise<void> {
    const fields: Record<string, unknown> = {
      alert_threshold: Number(budget.alert_threshold),
      period: budget.period,
      updated_at: budget.updated_at,
    };
    if (budget.budget_usd !== null) fields.budget_usd = Number(budget.budget_usd);
    if (budget.tenant_id !== null) fields.owner_tenant_id = budget.tenant_id;
    this.forget(scope);
    await this.db.writeRows('costs/set-budget', { ...scopeParams(scope), fields });
    this.forget(scope);
  }
}
