import { z } from 'zod';
import type { Api } from '../../http/api';
import type { Runtime } from '../../services/runtime';
import {
  degreesBodySchema,
  degreesSchema,
  entityParamsSchema,
  existsQuerySchema,
  existsSchema,
  graphNodeSchema,
  labelSearchQuerySchema,
  neighborhoodQuerySchema,
  neighborhoodSchema,
  nodeSearchQuerySchema,
  nodeSearchSchema,
  popularLabelsQuerySchema,
  popularLabelsSchema,
} from './schema';

const tag = 'graph';

/**
 * Graph look-ups by name (docs/api.md §4.5): node and label search, popular labels, entity existence,
 * neighbourhoods, single nodes and degrees. Registered before `/graph/entities/:id`, whose `:id` would take `exists`.
 */
export function graphLookupRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'get',
      path: '/graph/nodes/search',
      tag,
      summary: 'Entities whose name or id holds the text, with the edges among them',
      query: nodeSearchQuerySchema,
      responses: { 200: { description: 'Matching nodes', schema: nodeSearchSchema } },
    },
    async (ctx, { query }) => {
      ctx.body = await rt.graph.searchNodes(ctx.state.scope, { text: query.q ?? query.query, type: query.label, limit: query.limit });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/graph/nodes/:id',
      tag,
      summary: 'One node of the graph',
      params: entityParamsSchema,
      responses: { 200: { description: 'The node', schema: graphNodeSchema }, 404: { description: 'Unknown entity' } },
    },
    async (ctx, { params }) => {
      ctx.body = await rt.graph.node(ctx.state.scope, params.id);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/graph/labels/search',
      tag,
      summary: 'Entity names holding the text',
      query: labelSearchQuerySchema,
      responses: { 200: { description: 'Names', schema: z.object({ labels: z.array(z.string()) }) } },
    },
    async (ctx, { query }) => {
      ctx.body = await rt.graph.searchLabels(ctx.state.scope, { text: query.query ?? query.q, limit: query.limit });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/graph/labels/popular',
      tag,
      summary: 'The most connected entities, most connected first',
      query: popularLabelsQuerySchema,
      responses: { 200: { description: 'Labels', schema: popularLabelsSchema } },
    },
    async (ctx, { query }) => {
      ctx.body = await rt.graph.popularLabels(ctx.state.scope, query.limit);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/graph/entities/exists',
      tag,
      summary: 'Whether an entity of that name exists',
      query: existsQuerySchema,
      responses: { 200: { description: 'Existence', schema: existsSchema } },
    },
    async (ctx, { query }) => {
      ctx.body = await rt.graph.entityExists(ctx.state.scope, query.name);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/graph/entities/:id/neighborhood',
      tag,
      summary: 'An entity and the nodes within depth hops of it (default 1), with the edges among them',
      params: entityParamsSchema,
      query: neighborhoodQuerySchema,
      responses: { 200: { description: 'Neighbourhood', schema: neighborhoodSchema }, 404: { description: 'Unknown entity' } },
    },
    async (ctx, { params, query }) => {
      ctx.body = await rt.graph.neighborhood(ctx.state.scope, params.id, query.depth, query.max_nodes);
    },
  );

  api.route(
    {
      method: 'post',
      path: '/graph/degrees/batch',
      tag,
      summary: 'Degrees of several nodes (ids or names); unknown nodes have degree 0',
      body: degreesBodySchema,
      responses: { 200: { description: 'Degrees by the names given', schema: degreesSchema } },
    },
    async (ctx, { body }) => {
      ctx.body = await rt.graph.degrees(ctx.state.scope, body.node_ids);
    },
  );
}
