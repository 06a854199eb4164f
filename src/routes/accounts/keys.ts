import { z } from 'zod';
import type { Api } from '../../http/api';
import { principalOf } from '../../http/context';
import type { Runtime } from '../../services/runtime';
import { idParams, pageQuery } from '../shared/params';
import { apiKeySchema, createApiKeySchema, presentApiKey } from './schema';

/** API keys (docs/api.md §5.5): every caller manages the keys it made; administrators their tenant's. */
export function apiKeyRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'post',
      path: '/api-keys',
      tag: 'auth',
      access: 'viewer',
      workspace: false,
      summary: 'Create an API key; the key is in this answer only',
      body: createApiKeySchema,
      responses: {
        201: { description: 'The key, shown once', schema: apiKeySchema.extend({ key: z.string().describe('Shown once; store it now') }) },
      },
    },
    async (ctx, { body }) => {
      ctx.status = 201;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await rt.auth.keys.create(principalOf(ctx), body);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api-keys',
      tag: 'auth',
      access: 'viewer',
      workspace: false,
      summary: 'List API keys (never the keys themselves)',
      query: pageQuery,
      responses: {
        200: {
          description: 'Keys',
          schema: z.object({
            api_keys: z.array(apiKeySchema),
            total: z.number().int(),
            keys: z.array(apiKeySchema).describe('EdgeQuake name: = api_keys'),
          }),
        },
      },
    },
    async (ctx, { query }) => {
      const page = await rt.auth.keys.list(principalOf(ctx), query);
      const keys = page.items.map(presentApiKey);
      ctx.body = { api_keys: keys, total: page.total, keys };
    },
  );

  api.route(
    {
      method: 'delete',
      path: '/api-keys/:id',
      tag: 'auth',
      access: 'viewer',
      workspace: false,
      summary: 'Revoke an API key (it stops working at once)',
      params: idParams('API key id'),
      responses: { 200: { description: 'The revoked key', schema: apiKeySchema } },
    },
    async (ctx, { params }) => {
      ctx.body = await rt.auth.keys.revoke(principalOf(ctx), params.id);
    },
  );
}
