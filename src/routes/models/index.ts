import { z } from 'zod';
import type { Api } from '../../http/api';
import type { Runtime } from '../../services/runtime';
import { modelFilterQuery, modelParams, modelSchema, providerHealthSchema, providerParams, providerSchema } from './schema';

const modelsSchema = z.object({ models: z.array(modelSchema) });
const notFound = { 404: { description: 'No such provider or model in the catalog' } };

/** Models and providers from the catalog (docs/api.md §4.11): any signed-in caller; nothing secret. */
export function modelRoutes(api: Api, rt: Runtime): void {
  // Any role of any tenant may read the catalog: it holds no tenant data and no secret.
  const read = { method: 'get', tag: 'models', access: 'viewer', workspace: false } as const;
  const filterOf = (q: z.output<typeof modelFilterQuery>) => ({ provider: q.provider, includeDisabled: q.include_disabled === 'true' });

  api.route(
    {
      ...read,
      path: '/models',
      summary: 'Every model this instance can serve: of the enabled providers that answer (include_disabled: the whole catalog)',
      query: modelFilterQuery,
      responses: { 200: { description: 'Models', schema: modelsSchema } },
    },
    async (ctx, { query }) => {
      ctx.body = { models: await rt.models.servable(filterOf(query)) };
    },
  );
  for (const type of ['llm', 'embedding'] as const) {
    api.route(
      {
        ...read,
        path: `/models/${type}`,
        summary: type === 'llm' ? 'Language models' : 'Embedding models',
        query: modelFilterQuery,
        responses: { 200: { description: 'Models', schema: modelsSchema } },
      },
      async (ctx, { query }) => {
        ctx.body = { models: await rt.models.servable({ ...filterOf(query), type }) };
      },
    );
  }
  api.route(
    {
      ...read,
      path: '/models/health',
      summary: 'Live reachability of every enabled provider, checked concurrently, each within a timeout',
      responses: {
        200: {
          description: 'One entry per enabled provider',
          schema: z.object({ providers: z.array(providerHealthSchema), checked_at: z.string() }),
        },
      },
    },
    async (ctx) => {
      ctx.body = await rt.models.health();
    },
  );
  api.route(
    {
      ...read,
      path: '/models/:provider/:model',
      summary: 'One model: capabilities, cost, whether deprecated, whether a default',
      params: modelParams,
      responses: {
        200: { description: 'The model', schema: modelSchema.extend({ default_for: z.array(z.enum(['llm', 'embedding'])) }) },
        ...notFound,
      },
    },
    (ctx, { params }) => {
      ctx.body = rt.models.model(params.provider, params.model);
    },
  );
  api.route(
    {
      ...read,
      path: '/providers',
      summary: 'Every provider of the catalog with its state (enabled, key set, defaults)',
      responses: { 200: { description: 'Providers', schema: z.object({ providers: z.array(providerSchema) }) } },
    },
    (ctx) => {
      ctx.body = { providers: rt.models.providers() };
    },
  );
  api.route(
    {
      ...read,
      path: '/providers/:provider',
      summary: 'One provider with its models and a live reachability check',
      params: providerParams,
      responses: {
        200: {
          description: 'The provider',
          schema: providerSchema.extend({ models: z.array(modelSchema), health: providerHealthSchema }),
        },
        ...notFound,
      },
    },
    async (ctx, { params }) => {
      ctx.body = await rt.models.provider(params.provider);
    },
  );
  api.route(
    {
      ...read,
      path: '/providers/:provider/models',
      summary: 'The models of one provider (deprecated ones included and marked)',
      params: providerParams,
      responses: { 200: { description: 'Models', schema: modelsSchema }, ...notFound },
    },
    (ctx, { params }) => {
      ctx.body = { models: rt.models.providerModels(params.provider) };
    },
  );
}
