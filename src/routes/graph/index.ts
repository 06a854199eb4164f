import { z } from 'zod';
import type { Api } from '../../http/api';
import { type Presented, SHUTDOWN_DETAIL, type StreamError, isShutdown, pumpEvents } from '../../http/sse-pump';
import { pageWindow } from '../../http/validate';
import type { Runtime } from '../../services/runtime';
import { graphCypherRoutes } from './cypher';
import { graphLookupRoutes } from './lookup';
import {
  entityCreateSchema,
  entityDeleteQuerySchema,
  entityDetailSchema,
  entityListQuerySchema,
  entityListSchema,
  entityParamsSchema,
  entityPatchSchema,
  graphQuerySchema,
  graphSchema,
  graphStatsSchema,
  graphStreamQuerySchema,
  mergeResultSchema,
  mergeSchema,
  relationshipListQuerySchema,
  relationshipListSchema,
  renameResultSchema,
  renameSchema,
  graphStreamEventSchema,
  streamEventsDescription,
} from './schema';

const tag = 'graph';

/** Graph exploration, the live graph stream and analyst edits of entities (docs/api.md §4.5, §6.3). */
export function graphRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'get',
      path: '/graph',
      tag,
      summary: 'A bounded view of the graph: breadth-first from start_node, or the most connected nodes',
      query: graphQuerySchema,
      responses: { 200: { description: 'Nodes, the edges among them, whole-graph totals', schema: graphSchema } },
    },
    async (ctx, { query }) => {
      ctx.body = await rt.graph.explore(ctx.state.scope, {
        startNode: query.start_node ?? query.label,
        depth: query.depth,
        maxNodes: query.limit ?? query.max_nodes,
      });
    },
  );

  graphLookupRoutes(api, rt);
  graphCypherRoutes(api, rt);

  api.route(
    {
      method: 'get',
      path: '/graph/stats',
      tag,
      summary: 'Node and edge counts by type, average degree and density',
      responses: { 200: { description: 'Graph statistics', schema: graphStatsSchema } },
    },
    async (ctx) => {
      ctx.body = await rt.graph.stats(ctx.state.scope);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/graph/stream',
      tag,
      summary: 'SSE: a snapshot of the followed subgraph (as /graph), then the changes that touch it, resumable by Last-Event-ID',
      description: streamEventsDescription,
      query: graphStreamQuerySchema,
      responses: {
        200: { description: streamEventsDescription, schema: graphStreamEventSchema, contentType: 'text/event-stream' },
        404: { description: 'Unknown start node' },
        422: { description: 'A parameter out of range, ids with start_node, or a malformed last event id' },
        503: { description: 'The shared change feed (Redis) is unavailable' },
      },
    },
    async (ctx, { query }) => {
      const list = (text: string | undefined) =>
        text
          ?.split(',')
          .map((part) => part.trim())
          .filter(Boolean);
      const feed = rt.graph.stream(ctx.state.scope, {
        startNode: query.start_node,
        depth: query.depth,
        maxNodes: query.max_nodes,
        batchSize: query.batch_size,
        types: list(query.entity_types),
        ids: list(query.ids),
      });
      // The feed's own error shape: {type: 'error', message}; a failure carries the position to resume from.
      const presentError = (error: StreamError): Presented =>
        isShutdown(error)
          ? { data: { type: 'error', message: `${SHUTDOWN_DETAIL}; reconnect to resume` } }
          : { data: { type: 'error', message: 'a graph update could not be read; reconnect to resume' }, id: feed.position() };
      await pumpEvents(ctx, feed.events, ({ id, event }) => ({ data: event, id }), {
        log: rt.log,
        errorTypeBase: rt.config.errorTypeBase,
        keepAlive: { everyMs: rt.graph.settings.streamKeepAliveMs, event: feed.heartbeat },
        resume: { given: query.last_event_id },
        openOnFirstEvent: true,
        presentError,
      });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/graph/entities',
      tag,
      summary: 'Entities by id, filtered by type or a name search',
      query: entityListQuerySchema,
      responses: { 200: { description: 'A page of entities', schema: entityListSchema } },
    },
    async (ctx, { query }) => {
      const { limit, offset } = pageWindow(query, 1000);
      ctx.body = await rt.graph.listEntities(ctx.state.scope, {
        limit,
        offset,
        type: query.type ?? query.entity_type,
        search: query.search,
      });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/graph/entities',
      tag,
      summary: "Create an analyst's entity (no source chunk); 409 when the name is taken",
      body: entityCreateSchema,
      responses: {
        201: {
          description: 'The entity, also under `entity` with `status` and `message` (EdgeQuake clients read those)',
          schema: entityDetailSchema.extend({ status: z.literal('success'), message: z.string(), entity: entityDetailSchema }),
        },
        409: { description: 'An entity of that name exists' },
      },
    },
    async (ctx, { body }) => {
      const entity = await rt.graph.createEntity(ctx.state.scope, {
        name: (body.name ?? body.entity_name) as string,
        entity_type: body.entity_type,
        description: body.description,
      });
      ctx.status = 201;
      ctx.body = { ...entity, status: 'success', message: `entity '${entity.id}' created`, entity };
    },
  );

  api.route(
    {
      method: 'delete',
      path: '/graph/entities/:id',
      tag,
      summary: 'Delete an entity with every relationship touching it',
      params: entityParamsSchema,
      query: entityDeleteQuerySchema,
      responses: {
        200: {
          description: 'What was removed',
          schema: z.object({ status: z.literal('success'), deleted_id: z.string(), relationships_removed: z.number().int() }),
        },
        404: { description: 'No such entity' },
      },
    },
    async (ctx, { params }) => {
      const outcome = await rt.graph.deleteEntity(ctx.state.scope, params.id);
      ctx.body = { status: 'success', deleted_id: outcome.id, relationships_removed: outcome.relationships_removed };
    },
  );

  api.route(
    {
      method: 'post',
      path: '/graph/entities/merge',
      tag,
      summary: 'Merge entities into a survivor: relationships, sources and vectors move to it',
      body: mergeSchema,
      responses: { 200: { description: 'The survivor and what moved', schema: mergeResultSchema } },
    },
    async (ctx, { body }) => {
      const outcome = await rt.graph.mergeEntities(ctx.state.scope, {
        sourceIds: body.source_ids,
        targetId: body.target_id,
        reason: body.reason,
      });
      // EdgeQuake's names beside the spec's.
      ctx.body = {
        ...outcome,
        merged_entity: outcome.entity,
        merged_count: outcome.merged_from.length,
        message: `merged ${outcome.merged_from.length} entit${outcome.merged_from.length === 1 ? 'y' : 'ies'} into ${outcome.entity.id}`,
      };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/graph/entities/:id',
      tag,
      summary: 'One entity with its relationships and source chunks',
      params: entityParamsSchema,
      responses: { 200: { description: 'Entity detail', schema: entityDetailSchema } },
    },
    async (ctx, { params }) => {
      ctx.body = await rt.graph.entityDetail(ctx.state.scope, params.id);
    },
  );

  // PUT is the method EdgeQuake clients use; both correct the entity in place.
  for (const method of ['patch', 'put'] as const) {
    api.route(
      {
        method,
        path: '/graph/entities/:id',
        tag,
        summary: method === 'patch' ? "Correct an entity's description or type" : 'Same as PATCH (the method EdgeQuake clients use)',
        params: entityParamsSchema,
        body: entityPatchSchema,
        responses: { 200: { description: 'The updated entity', schema: entityDetailSchema } },
      },
      async (ctx, { params, body }) => {
        ctx.body = await rt.graph.updateEntity(ctx.state.scope, params.id, body);
      },
    );
  }

  api.route(
    {
      method: 'post',
      path: '/graph/entities/:id/rename',
      tag,
      summary: 'Rename an entity (its id follows the name); 409 when the name is taken unless merge is true',
      params: entityParamsSchema,
      body: renameSchema,
      responses: { 200: { description: 'The renamed (or merged) entity', schema: renameResultSchema } },
    },
    async (ctx, { params, body }) => {
      ctx.body = await rt.graph.renameEntity(ctx.state.scope, params.id, body);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/graph/relationships',
      tag,
      summary: 'Relationships by id, filtered by type',
      query: relationshipListQuerySchema,
      responses: { 200: { description: 'A page of relationships', schema: relationshipListSchema } },
    },
    async (ctx, { query }) => {
      const { limit, offset } = pageWindow(query, 1000);
      ctx.body = await rt.graph.listRelationships(ctx.state.scope, { limit, offset, type: query.type, entity: query.source });
    },
  );
}
