import type { Api } from '../../http/api';
import { pageWindow } from '../../http/validate';
import type { Runtime } from '../../services/runtime';
import {
  communityDetailSchema,
  communityListQuerySchema,
  communityListSchema,
  communityParamsSchema,
  communityStatusSchema,
  presentCommunity,
  presentMember,
  rebuildBodySchema,
  rebuildQuerySchema,
  rebuildResultSchema,
} from './schema';

const tag = 'communities';

/** Communities of the workspace graph with their reports, and the recompute (docs/api.md, Communities). */
export function communityRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'get',
      path: '/graph/communities',
      tag,
      summary: 'Communities of the workspace graph with their reports, by level, then rank',
      query: communityListQuerySchema,
      responses: { 200: { description: 'Communities', schema: communityListSchema } },
    },
    async (ctx, { query }) => {
      const page = await rt.communities.list(ctx.state.scope, { level: query.level, ...pageWindow(query, 1000) });
      ctx.body = { communities: page.items.map(presentCommunity), total: page.total };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/graph/communities/status',
      tag,
      summary: 'Whether a recompute is scheduled or running, and the last run',
      responses: { 200: { description: 'Status', schema: communityStatusSchema } },
    },
    async (ctx) => {
      ctx.body = await rt.communities.status(ctx.state.scope);
    },
  );

  api.route(
    {
      method: 'post',
      path: '/graph/communities/rebuild',
      tag,
      summary: 'Recompute the communities now; reports are rewritten only for communities that changed',
      description:
        'Without `wait`, the run starts in the background and the answer is 202 at once (follow it at ' +
        '`/graph/communities/status`). With `wait=true` the answer comes when the run has finished, with its summary.',
      query: rebuildQuerySchema,
      body: rebuildBodySchema,
      bodyOptional: true,
      responses: {
        200: { description: 'The run finished', schema: rebuildResultSchema },
        202: { description: 'The run started in the background', schema: rebuildResultSchema },
      },
    },
    async (ctx, { query, body }) => {
      if (query.wait || body?.wait) {
        ctx.body = { status: 'completed', run: await rt.communities.rebuild(ctx.state.scope) };
        return;
      }
      rt.communities.trigger(ctx.state.scope);
      ctx.status = 202;
      ctx.body = { status: 'scheduled', run: null };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/graph/communities/:id',
      tag,
      summary: 'One community with its report and member entities (the first 500)',
      params: communityParamsSchema,
      responses: { 200: { description: 'The community', schema: communityDetailSchema }, 404: { description: 'Unknown community' } },
    },
    async (ctx, { params }) => {
      const detail = await rt.communities.get(ctx.state.scope, params.id);
      ctx.body = {
        community: presentCommunity(detail.community),
        members: detail.members.map(presentMember),
        members_total: detail.members_total,
      };
    },
  );
}
