import { type BudgetPeriod, type BudgetRecord, periodBounds } from '../../domain/costs';
import { roundUsd } from './pricing';

export const DEFAULT_ALERT_THRESHOLD = 0.8;
export const DEFAULT_PERIOD: BudgetPeriod = 'month';

/** `GET /costs/budget` (docs/api.md §4.8). */
export interface BudgetStatus {
  budget_usd: number | null;
  spent_usd: number;
  remaining_usd: number | null;
  /** Percent of the budget spent (0..100+), null without a budget. */
  percent_used: number | null;
  period: BudgetPeriod;
  period_start: string;
  period_end: string;
  alert_threshold: number;
  /** The period's spend at its rate so far, carried to the period's end. */
  projected_end_of_period: number;
  alert: boolean;
  exhausted: boolean;
}

export function budgetStatus(budget: BudgetRecord | null, spent: number, now: Date): BudgetStatus {
  const period = budget?.period ?? DEFAULT_PERIOD;
  const { start, end } = periodBounds(period, now);
  const elapsed = Math.max(now.getTime() - start.getTime(), 1);
  const length = end.getTime() - start.getTime();
  const limit = budget?.budget_usd ?? null;
  const threshold = budget?.alert_threshold ?? DEFAULT_ALERT_THRESHOLD;
  return {
    budget_usd: limit,
    spent_usd: roundUsd(spent),
    remaining_usd: limit === null ? null : roundUsd(Math.max(limit - spent, 0)),
    percent_used: limit === null ? null : limit === 0 ? (spent > 0 ? 100 : 0) : Math.round((spent / limit) * 10_000) / 100,
    period,
    period_start: start.toISOString(),
    period_end: end.toISOString(),
    alert_threshold: threshold,
    projected_end_of_period: roundUsd((spent * length) / elapsed),
    alert: limit !== null && spent >= limit * threshold && spent > 0,
    exhausted: limit !== null && spent >= limit && (spent > 0 || limit === 0),
  };
}
