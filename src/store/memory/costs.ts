import type { BudgetRecord, UsageRecord } from '../../domain/costs';
import type { Scope } from '../../domain/types';
import { type CostStore, emptyTotals, type TimeRange, type UsageTotals } from '../ports';
import { NameTable, UsageRows } from './usage-rows';
import { WorkspaceStates } from './workspaces';

interface CostState {
  rows: UsageRows;
  budget: BudgetRecord | null;
}

/** Usage records per workspace, kept in time order in columns (usage-rows.ts); copies in and out. */
export class MemoryCostStore implements CostStore {
  private readonly workspaces = new WorkspaceStates<CostState>(() => ({ rows: new UsageRows(new NameTable()), budget: null }));

  async add(scope: Scope, records: UsageRecord[]): Promise<void> {
    if (records.length === 0) return;
    const { rows } = this.workspaces.obtain(scope);
    for (const record of records) rows.add(record);
  }

  async list(scope: Scope, range: TimeRange): Promise<UsageRecord[]> {
    const found = this.inRange(scope, range);
    if (!found) return [];
    const { rows, from, to } = found;
    return Array.from({ length: to - from }, (_, i) => rows.record(from + i));
  }

  async totals(scope: Scope, range: TimeRange): Promise<UsageTotals> {
    const found = this.inRange(scope, range);
    return found ? found.rows.totals(found.from, found.to) : emptyTotals();
  }

  async tenantTotals(tenantId: string, range: TimeRange): Promise<Map<string, UsageTotals>> {
    const out = new Map<string, UsageTotals>();
    for (const [scope] of this.workspaces.entries()) {
      const found = this.inRange(scope, range);
      const totals = found?.rows.totals(found.from, found.to, tenantId);
      if (totals && totals.calls > 0) out.set(scope.workspaceId, totals);
    }
    return out;
  }

  async getBudget(scope: Scope): Promise<BudgetRecord | null> {
    const budget = this.workspaces.find(scope)?.budget;
    return budget ? { ...budget } : null;
  }

  async setBudget(scope: Scope, budget: BudgetRecord): Promise<void> {
    this.workspaces.obtain(scope).budget = { ...budget };
  }

  dropWorkspace(scope: Scope): void {
    this.workspaces.drop(scope);
  }

  clear(): void {
    this.workspaces.clear();
  }

  /** The rows with `range.from <= created_at < range.to`: a run of rows (oldest first) found by binary search. */
  private inRange(scope: Scope, range: TimeRange): { rows: UsageRows; from: number; to: number } | null {
    const rows = this.workspaces.find(scope)?.rows;
    if (!rows || range.from >= range.to) return null;
    return { rows, from: rows.bound(range.from), to: rows.bound(range.to) };
  }
}
