import type { BudgetRecord, UsageRecord } from '../../domain/costs';
import type { Scope } from '../../domain/types';
import { type CostStore, type TimeRange, type UsageTotals, totalsOf } from '../ports';
import { WorkspaceStates } from './workspaces';

interface CostState {
  records: UsageRecord[];
  budget: BudgetRecord | null;
}

const inRange = (r: UsageRecord, range: TimeRange) => r.created_at >= range.from && r.created_at < range.to;

/** Usage records per workspace, kept in time order; copies in and out. */
export class MemoryCostStore implements CostStore {
  private readonly workspaces = new WorkspaceStates<CostState>(() => ({ records: [], budget: null }));

  async add(scope: Scope, records: UsageRecord[]): Promise<void> {
    if (records.length === 0) return;
    const state = this.workspaces.obtain(scope);
    const added = records.map((r) => ({ ...r })).sort(byCreation);
    const last = state.records.at(-1);
    state.records.push(...added);
    // Records mostly arrive in time order: re-sorting every record on every call made n calls cost n² log n.
    if (last && byCreation(last, added[0]) > 0) state.records.sort(byCreation);
  }

  async list(scope: Scope, range: TimeRange): Promise<UsageRecord[]> {
    return (this.workspaces.find(scope)?.records ?? []).filter((r) => inRange(r, range)).map((r) => ({ ...r }));
  }

  async totals(scope: Scope, range: TimeRange): Promise<UsageTotals> {
    return totalsOf((this.workspaces.find(scope)?.records ?? []).filter((r) => inRange(r, range)));
  }

  async tenantTotals(tenantId: string, range: TimeRange): Promise<Map<string, UsageTotals>> {
    const out = new Map<string, UsageTotals>();
    for (const [scope, state] of this.workspaces.entries()) {
      const records = state.records.filter((r) => r.tenant_id === tenantId && inRange(r, range));
      if (records.length > 0) out.set(scope.workspaceId, totalsOf(records));
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
}

function byCreation(a: UsageRecord, b: UsageRecord): number {
  return a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0;
}
