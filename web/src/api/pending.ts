import type { components } from './schema';

/**
 * Sign-in and workspace shapes, from the generated types; cost shapes, which the server does not publish yet,
 * written from the interface contract and used only after the endpoint has answered.
 */

type Schemas = components['schemas'];

/** `GET /health` `auth`. */
export type AuthSwitches = { enabled: boolean; dev_mode: boolean };
export type AuthUser = Schemas['User'];
/** `POST /auth/login` and `POST /auth/refresh`. */
export type TokenPair = Schemas['Session'];
export type Workspace = Schemas['Workspace'];

export interface CostSummary {
  period?: string | { start?: string; end?: string };
  total_cost_usd: number;
  breakdown?: { extraction?: number; embedding?: number; queries?: number };
  usage?: { documents_processed?: number; queries_executed?: number; tokens_used?: number };
}

export interface CostBudget {
  budget_usd: number | null;
  spent_usd: number;
  remaining_usd: number | null;
  percent_used: number | null;
  period?: string;
  alert_threshold?: number | null;
  projected_end_of_period?: number | null;
}

/** One point of `GET /costs/history`, read leniently: the time and the cost under their usual names. */
export interface CostPoint {
  time: number;
  cost: number;
}

export function readCostHistory(body: unknown): CostPoint[] {
  const list = Array.isArray(body)
    ? body
    : (['history', 'items', 'points', 'data', 'buckets'].map((k) => (body as Record<string, unknown>)?.[k]).find(Array.isArray) ?? []);
  const points: CostPoint[] = [];
  for (const item of list as Array<Record<string, unknown>>) {
    const when = item.timestamp ?? item.date ?? item.period ?? item.start ?? item.time;
    const cost = item.total_cost_usd ?? item.cost_usd ?? item.cost ?? item.total;
    const time = typeof when === 'string' ? Date.parse(when) : typeof when === 'number' ? when : NaN;
    if (Number.isFinite(time) && typeof cost === 'number') points.push({ time: time / 1000, cost });
  }
  return points.sort((a, b) => a.time - b.time);
}
