import type { BudgetRecord, CostCategory, UsageRecord } from '../domain/costs';
import type { Scope } from '../domain/types';

/** Sums over a set of usage records. */
export interface UsageTotals {
  cost_usd: number;
  input_tokens: number;
  output_tokens: number;
  calls: number;
  /** Distinct documents and queries the records name. */
  documents: number;
  queries: number;
  by_category: Record<CostCategory, number>;
}

/** A time range over `created_at`: `from` inclusive, `to` exclusive (ISO 8601 UTC). */
export interface TimeRange {
  from: string;
  to: string;
}

/**
 * Usage records (one per priced provider call) and the budget of each workspace. Records of a workspace go
 * when it is dropped (`Stores.dropWorkspace`).
 */
export interface CostStore {
  add(scope: Scope, records: UsageRecord[]): Promise<void>;
  /** The workspace's records in the range, oldest first. */
  list(scope: Scope, range: TimeRange): Promise<UsageRecord[]>;
  totals(scope: Scope, range: TimeRange): Promise<UsageTotals>;
  /** Totals per workspace of a tenant: every workspace with records in the range. */
  tenantTotals(tenantId: string, range: TimeRange): Promise<Map<string, UsageTotals>>;
  getBudget(scope: Scope): Promise<BudgetRecord | null>;
  setBudget(scope: Scope, budget: BudgetRecord): Promise<void>;
}

export function emptyTotals(): UsageTotals {
  return {
    cost_usd: 0,
    input_tokens: 0,
    output_tokens: 0,
    calls: 0,
    documents: 0,
    queries: 0,
    by_category: { extraction: 0, embedding: 0, queries: 0 },
  };
}

/** Totals of records held in memory (the memory store, and the service's own sums). */
export function totalsOf(records: Iterable<UsageRecord>): UsageTotals {
  const totals = emptyTotals();
  const documents = new Set<string>();
  const queries = new Set<string>();
  for (const r of records) {
    totals.cost_usd += r.cost_usd;
    totals.input_tokens += r.input_tokens;
    totals.output_tokens += r.output_tokens;
    totals.calls += 1;
    totals.by_category[r.category] += r.cost_usd;
    if (r.document_id !== null) documents.add(r.document_id);
    if (r.query_id !== null) queries.add(r.query_id);
  }
  totals.documents = documents.size;
  totals.queries = queries.size;
  return totals;
}
