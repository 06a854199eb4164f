/**
 * Cost accounting records (docs/api.md §4.8): one usage record per successful provider call, priced from the model
 * catalog, and one budget per workspace.
 */

/** What a usage record is counted under in summaries: ingestion LLM work, embeddings, or queries. */
export type CostCategory = 'extraction' | 'embedding' | 'queries';

export interface UsageRecord {
  id: string;
  workspace_id: string;
  tenant_id: string | null;
  /** The call's purpose: `extraction`, `gleaning`, `summary`, `keywords`, `answer`, `embedding`, ... */
  operation: string;
  category: CostCategory;
  provider: string;
  model: string;
  kind: 'llm' | 'embedding';
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  created_at: string;
  document_id: string | null;
  query_id: string | null;
}

export type BudgetPeriod = 'day' | 'week' | 'month';

export interface BudgetRecord {
  workspace_id: string;
  tenant_id: string | null;
  /** null: no budget, nothing is refused. */
  budget_usd: number | null;
  /** Fraction of the budget (0..1) at which a warning is logged and shown in /health. */
  alert_threshold: number;
  period: BudgetPeriod;
  updated_at: string;
}

/** Start (inclusive) and end (exclusive) of the calendar period (UTC) holding `at`; weeks start on Monday. */
export function periodBounds(period: BudgetPeriod, at: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  if (period === 'day') return { start, end: new Date(start.getTime() + DAY_MS) };
  if (period === 'week') {
    start.setUTCDate(start.getUTCDate() - ((start.getUTCDay() + 6) % 7));
    return { start, end: new Date(start.getTime() + 7 * DAY_MS) };
  }
  start.setUTCDate(1);
  return { start, end: new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1)) };
}

export const DAY_MS = 86_400_000;
