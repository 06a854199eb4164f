import type { Middleware } from 'koa';
import type { ResponseSpec } from '../../http/api';
import type { AppContext, AppState } from '../../http/context';
import type { Runtime } from '../../services/runtime';

/**
 * Routes that start new provider work (ingestion, queries) are refused with 402 once the workspace's budget is
 * spent (docs/api.md §4.8); work already running is not affected. `query` routes record their provider calls under
 * the request id as the query id.
 */
export function spending(
  rt: Runtime,
  kind: 'ingestion' | 'query',
): { before: Middleware<AppState>[]; budgetResponse: Record<number, ResponseSpec> } {
  const gate: Middleware<AppState> = async (ctx, next) => {
    const c = ctx as AppContext;
    await rt.costs.assertWithinBudget(c.state.scope);
    if (kind === 'query') return rt.costs.asQuery(c.state.requestId, next);
    await next();
  };
  return { before: [gate], budgetResponse: { 402: { description: 'The workspace\u2019s budget for the period is spent' } } };
}
