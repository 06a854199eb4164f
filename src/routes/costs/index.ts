import type { Api } from '../../http/api';
import { DAY_MS } from '../../domain/costs';
import type { Runtime } from '../../services/runtime';
import {
  budgetPatchSchema,
  budgetSchema,
  estimateBodySchema,
  estimateSchema,
  historyQuerySchema,
  historySchema,
  pricingSchema,
  summarySchema,
  tenantSummarySchema,
} from './schema';

const TAG = 'costs';

/** A bare date as an upper bound covers its whole (UTC) day. */
function endOf(date: string): Date {
  return new Date(/^\d{4}-\d{2}-\d{2}$/.test(date) ? Date.parse(date) + DAY_MS - 1 : Date.parse(date));
}

/** LLM cost accounting (docs/api.md §4.8): prices, estimates, spend per workspace and tenant, budgets. */
export function costRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'get',
      path: '/pipeline/costs/pricing',
      tag: TAG,
      workspace: false,
      summary: 'Prices of every catalog model, in USD per 1,000 tokens',
      responses: { 200: { description: 'Prices', schema: pricingSchema } },
    },
    async (ctx) => {
      ctx.body = { models: rt.costs.pricing() };
    },
  );

  api.route(
    {
      method: 'post',
      path: '/pipeline/costs/estimate',
      tag: TAG,
      access: 'viewer',
      summary: 'Estimated cost of ingesting a text of `content_length` characters',
      description:
        'From the current chunking, gleaning and summary settings and the real prompts; the models default to the workspace\u2019s. ' +
        '`estimated_tokens.query` is one typical query over the document, not part of the total. A request naming the LLM ' +
        'with EdgeQuake\u2019s `model`/`provider` gets EdgeQuake\u2019s shape: `estimated_cost_usd` and `estimated_tokens` ' +
        'are totals, the breakdowns are under `cost_breakdown_usd` and `token_breakdown`.',
      body: estimateBodySchema,
      responses: { 200: { description: 'The estimate', schema: estimateSchema }, 422: { description: 'Unknown model or bad length' } },
    },
    async (ctx, { body }) => {
      ctx.body = rt.costs.estimate(body);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/costs/summary',
      tag: TAG,
      summary: 'The workspace\u2019s spend over its budget period (a calendar month by default)',
      responses: { 200: { description: 'Summary', schema: summarySchema } },
    },
    async (ctx) => {
      ctx.body = await rt.costs.summary(ctx.state.scope);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/costs/tenant',
      tag: TAG,
      access: 'admin',
      summary: 'The tenant\u2019s spend this calendar month, in total and per workspace',
      responses: { 200: { description: 'Tenant summary', schema: tenantSummarySchema } },
    },
    async (ctx) => {
      ctx.body = await rt.costs.tenantSummary(ctx.state.tenant?.id ?? ctx.state.workspace?.tenant_id ?? '');
    },
  );

  api.route(
    {
      method: 'get',
      path: '/costs/history',
      tag: TAG,
      summary: 'Spend per hour, day or week over start_date..end_date; buckets without usage are present with zeros',
      query: historyQuerySchema,
      responses: { 200: { description: 'History', schema: historySchema }, 422: { description: 'Bad dates or too many buckets' } },
    },
    async (ctx, { query }) => {
      const end = query.end_date ? endOf(query.end_date) : new Date();
      const start = query.start_date ? new Date(Date.parse(query.start_date)) : new Date(end.getTime() - 30 * DAY_MS);
      ctx.body = await rt.costs.history(ctx.state.scope, start, end, query.granularity);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/costs/budget',
      tag: TAG,
      summary: 'The workspace\u2019s budget, spend and projection for the period',
      responses: { 200: { description: 'Budget', schema: budgetSchema } },
    },
    async (ctx) => {
      ctx.body = await rt.costs.budget(ctx.state.scope);
    },
  );

  api.route(
    {
      method: 'patch',
      path: '/costs/budget',
      tag: TAG,
      access: 'admin',
      summary: 'Set the budget, its alert threshold or its period',
      description:
        'Once the period\u2019s spend reaches `budget_usd`, new ingestion and queries are refused with 402 until the next period.',
      body: budgetPatchSchema,
      responses: { 200: { description: 'Budget', schema: budgetSchema }, 422: { description: 'Bad value' } },
    },
    async (ctx, { body }) => {
      ctx.body = await rt.costs.updateBudget(ctx.state.scope, body);
    },
  );
}
