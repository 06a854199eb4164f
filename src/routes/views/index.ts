import type { Api } from '../../http/api';
import { type AppContext, principalOf } from '../../http/context';
import type { Runtime } from '../../services/runtime';
import { saveViewSchema, savedViewListSchema, savedViewSchema, viewParamsSchema } from './schema';

const tag = 'graph';

/** Views are kept per user: a user's API keys share the user's views; other callers keep their own. */
function ownerOf(ctx: AppContext): string {
  const principal = principalOf(ctx);
  return principal.userId ?? `${principal.kind}:${principal.id}`;
}

/** Named views of the graph explorer, per user and workspace (docs/api.md, Saved views). */
export function savedViewRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'get',
      path: '/graph/views',
      tag,
      summary: "The caller's saved views of the graph explorer in the workspace",
      responses: { 200: { description: 'Saved views', schema: savedViewListSchema } },
    },
    async (ctx) => {
      ctx.body = await rt.views.list(ctx.state.scope, ownerOf(ctx));
    },
  );

  api.route(
    {
      method: 'post',
      path: '/graph/views',
      tag,
      access: 'viewer',
      summary: 'Save a view of the graph explorer under a name; a view of the same name is replaced',
      body: saveViewSchema,
      responses: {
        200: { description: 'The view of that name, replaced', schema: savedViewSchema },
        201: { description: 'Saved', schema: savedViewSchema },
        400: { description: 'Not a JSON body' },
        422: { description: 'A field breaks a rule, or the caller keeps the most views allowed' },
      },
    },
    async (ctx, { body }) => {
      const { view, created } = await rt.views.save(ctx.state.scope, ownerOf(ctx), body);
      ctx.status = created ? 201 : 200;
      ctx.body = view;
    },
  );

  api.route(
    {
      method: 'delete',
      path: '/graph/views/:id',
      tag,
      access: 'viewer',
      summary: 'Delete one of the caller’s saved views',
      params: viewParamsSchema,
      responses: { 204: { description: 'Deleted' }, 404: { description: 'Not a view of the caller in this workspace' } },
    },
    async (ctx, { params }) => {
      await rt.views.delete(ctx.state.scope, ownerOf(ctx), params.id);
      ctx.status = 204;
    },
  );
}
