import type { Api } from '../../http/api';
import type { Runtime } from '../../services/runtime';
import {
  bridgesSchema,
  coMentionQuerySchema,
  coMentionSchema,
  limitQuerySchema,
  neighbourhoodQuerySchema,
  neighbourhoodSchema,
  pathsQuerySchema,
  pathsSchema,
  sharedDocumentsSchema,
  topQuerySchema,
  topSchema,
  typeList,
} from './schema';

const tag = 'analytics';
const unknownEntity = { 404: { description: 'Unknown entity' } };
const slow = { 503: { description: 'The query did not finish in time, or the graph store is down' } };

/** Graph analytics of the workspace, bounded by limits and a timeout (docs/api.md, Analytics). */
export function analyticsRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'get',
      path: '/graph/analytics/shortest-paths',
      tag,
      summary: 'Every shortest path between two entities, within max_hops',
      query: pathsQuerySchema,
      responses: { 200: { description: 'Paths', schema: pathsSchema }, ...unknownEntity, ...slow },
    },
    async (ctx, { query }) => {
      ctx.body = await rt.analytics.shortestPaths(ctx.state.scope, {
        from: query.from,
        to: query.to,
        maxHops: query.max_hops,
        limit: query.limit,
      });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/graph/analytics/neighbourhood',
      tag,
      summary: 'Entities within k hops of an entity, optionally of some types only',
      query: neighbourhoodQuerySchema,
      responses: { 200: { description: 'Neighbours', schema: neighbourhoodSchema }, ...unknownEntity, ...slow },
    },
    async (ctx, { query }) => {
      const types = typeList(query.types);
      ctx.body = await rt.analytics.neighbourhood(ctx.state.scope, { entity: query.entity, hops: query.hops, types, limit: query.limit });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/graph/analytics/top-entities',
      tag,
      summary: 'The most central entities by degree, PageRank or betweenness',
      query: topQuerySchema,
      responses: { 200: { description: 'Entities, highest score first', schema: topSchema }, ...slow },
    },
    async (ctx, { query }) => {
      ctx.body = await rt.analytics.topEntities(ctx.state.scope, query);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/graph/analytics/co-mentioned',
      tag,
      summary: 'Entities mentioned in the same chunks as an entity, by chunks shared',
      query: coMentionQuerySchema,
      responses: { 200: { description: 'Entities', schema: coMentionSchema }, ...unknownEntity, ...slow },
    },
    async (ctx, { query }) => {
      ctx.body = await rt.analytics.coMentioned(ctx.state.scope, query);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/graph/analytics/community-bridges',
      tag,
      summary: 'Pairs of communities linked by the most relationships, and the entities that reach most communities',
      query: limitQuerySchema,
      responses: { 200: { description: 'Bridges', schema: bridgesSchema }, ...slow },
    },
    async (ctx, { query }) => {
      ctx.body = await rt.analytics.communityBridges(ctx.state.scope, query);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/graph/analytics/shared-documents',
      tag,
      summary: 'Pairs of documents sharing the most entities',
      query: limitQuerySchema,
      responses: { 200: { description: 'Document pairs', schema: sharedDocumentsSchema }, ...slow },
    },
    async (ctx, { query }) => {
      ctx.body = await rt.analytics.sharedDocuments(ctx.state.scope, query);
    },
  );
}
