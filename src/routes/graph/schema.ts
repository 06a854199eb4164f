import { z } from 'zod';
import { GRAPH_DEPTH, GRAPH_MAX_NODES, GRAPH_STREAM_MAX_NODES } from '../../graph/explore';
import { DOCUMENT_IDS_SHOWN } from '../../graph/present';
import { atLeastOneOf, pagingAliases, queryInt, queryNumber } from '../../http/validate';

const timestamps = { created_at: z.string(), updated_at: z.string() };

/** A record's documents: the first few ids and the count of all (the entity's provenance lists them all). */
const documents = {
  document_ids: z
    .array(z.string())
    .max(DOCUMENT_IDS_SHOWN)
    .describe(`the first ${DOCUMENT_IDS_SHOWN} of the documents the record was extracted from`),
  document_count: z.number().int().min(0).describe('how many documents the record was extracted from'),
};

export const graphNodeSchema = z
  .object({
    id: z.string(),
    label: z.string(),
    node_type: z.string(),
    description: z.string(),
    degree: z.number().int().describe('degree in the whole workspace graph'),
    properties: z.object({
      name: z.string(),
      entity_type: z.string(),
      source_count: z.number().int().describe('source chunks'),
      ...documents,
      ...timestamps,
    }),
  })
  .meta({ id: 'GraphNode' });

export const graphEdgeSchema = z
  .object({
    id: z.string(),
    source: z.string(),
    target: z.string(),
    edge_type: z.string(),
    weight: z.number(),
    properties: z.object({
      keywords: z.array(z.string()),
      description: z.string(),
      source_count: z.number().int(),
      ...documents,
      ...timestamps,
    }),
  })
  .meta({ id: 'GraphEdge' });

export const graphQuerySchema = z.object({
  start_node: z.string().max(512).optional().describe('entity id or name, any case and spacing'),
  depth: queryInt(GRAPH_DEPTH.default, 0, GRAPH_DEPTH.max),
  max_nodes: queryInt(GRAPH_MAX_NODES.default, 1, GRAPH_MAX_NODES.max),
  label: z.string().max(512).optional().describe('EdgeQuake name of start_node'),
  limit: queryNumber((n) => n.int().min(1).max(GRAPH_MAX_NODES.max).optional()).describe('EdgeQuake name of max_nodes'),
});

export const graphStreamQuerySchema = graphQuerySchema.extend({
  max_nodes: queryInt(GRAPH_MAX_NODES.default, 1, GRAPH_STREAM_MAX_NODES).describe(`snapshot size, at most ${GRAPH_STREAM_MAX_NODES}`),
  batch_size: queryInt(100, 1, 1000).describe('nodes or edges per snapshot event'),
  entity_types: z
    .string()
    .max(2000)
    .optional()
    .describe('comma-separated entity types: follow only entities of these types (and the edges among them)'),
  ids: z
    .string()
    .max(8_000)
    .optional()
    .describe('comma-separated entity ids or names: follow exactly these entities and the edges among them (not with start_node)'),
  last_event_id: z
    .string()
    .regex(/^\d{1,15}-\d{1,15}(\.(snapshot|\d{1,6}))?$/, 'not an event id of this stream (as sent in `id:`, e.g. 1732550000000-0.3)')
    .optional()
    .describe('resume after this event id, for clients that cannot send the Last-Event-ID header'),
});

export const graphSchema = z.object({
  nodes: z.array(graphNodeSchema),
  edges: z.array(graphEdgeSchema),
  total_nodes: z.number().int(),
  total_edges: z.number().int(),
  is_truncated: z.boolean(),
});

export const graphStatsSchema = z.object({
  total_nodes: z.number().int(),
  node_count: z.number().int().describe('alias of total_nodes'),
  total_edges: z.number().int(),
  node_types: z.record(z.string(), z.number().int()),
  edge_types: z.record(z.string(), z.number().int()),
  avg_degree: z.number().describe('2E/N'),
  density: z.number().describe('2E/(N(N-1))'),
});

export const entityItemSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    entity_type: z.string(),
    description: z.string(),
    degree: z.number().int(),
    source_count: z.number().int(),
    ...documents,
    ...timestamps,
  })
  .meta({ id: 'EntityItem' });

export const relationshipItemSchema = z
  .object({
    id: z.string(),
    source: z.string(),
    target: z.string(),
    relation_type: z.string(),
    relationship_type: z.string().describe('= relation_type'),
    keywords: z.array(z.string()),
    description: z.string(),
    weight: z.number(),
    source_count: z.number().int(),
    ...documents,
    ...timestamps,
  })
  .meta({ id: 'RelationshipItem' });

const page = { limit: queryInt(50, 1, 1000), offset: queryInt(0, 0, 1_000_000_000) };

export const entityListQuerySchema = z.object({
  ...page,
  ...pagingAliases,
  type: z.string().max(64).optional().describe('entity type, any case'),
  entity_type: z.string().max(64).optional().describe('EdgeQuake name of type'),
  search: z.string().max(256).optional().describe('case-insensitive substring of the name or id'),
});

export const relationshipListQuerySchema = z.object({
  ...page,
  ...pagingAliases,
  type: z.string().max(64).optional().describe('relation type, any case'),
  source: z.string().max(512).optional().describe('only the relationships of this entity (id or name)'),
});

export const entityListSchema = z.object({
  entities: z.array(entityItemSchema),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const relationshipListSchema = z.object({
  relationships: z.array(relationshipItemSchema),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const entityDetailSchema = entityItemSchema
  .extend({
    relationships: z.array(relationshipItemSchema),
    source_chunks: z.array(
      z.object({
        chunk_id: z.string(),
        document_id: z.string(),
        start_line: z.number().int(),
        end_line: z.number().int(),
        snippet: z.string(),
      }),
    ),
  })
  .meta({ id: 'EntityDetail' });

export const entityParamsSchema = z.object({ id: z.string().min(1).max(512) });

export const entityPatchSchema = atLeastOneOf(
  z.strictObject({
    description: z.string().max(20_000).optional(),
    entity_type: z
      .string()
      .max(64)
      .regex(/^\s*[A-Za-z][A-Za-z0-9_ -]*\s*$/, 'must be a type name such as PERSON')
      .optional(),
  }),
  ['description', 'entity_type'],
  'send description and/or entity_type',
);

const entityName = z
  .string()
  .max(512)
  .regex(/[\p{L}\p{N}]/u, 'must contain a name');

/** `POST /graph/entities`: the name as `name` or EdgeQuake's `entity_name`; `source_id` and `properties` are accepted and not kept. */
export const entityCreateSchema = atLeastOneOf(
  z.object({
    name: entityName.optional(),
    entity_name: entityName.optional().describe("= name (EdgeQuake's name)"),
    entity_type: z
      .string()
      .max(64)
      .regex(/^\s*[A-Za-z][A-Za-z0-9_ -]*\s*$/, 'must be a type name such as PERSON'),
    description: z.string().max(20_000).optional(),
    source_id: z.string().max(512).optional(),
    properties: z.record(z.string(), z.unknown()).optional(),
  }),
  ['name', 'entity_name'],
  'required',
  ['name'],
);

export const entityDeleteQuerySchema = z.object({
  confirm: z.enum(['true'], { message: 'the deletion needs confirm=true' }).default('true').describe('EdgeQuake clients send true'),
});

export const renameSchema = z.strictObject({
  name: z.string().min(1).max(512),
  merge: z.boolean().default(false).describe('when the new name belongs to another entity: merge into it (true) or answer 409 (false)'),
});

export const mergeSchema = z
  .strictObject({
    source_ids: z.array(z.string().min(1).max(512)).min(1).max(100).optional(),
    target_id: z.string().min(1).max(512).optional(),
    source: z.string().min(1).max(512).optional().describe('EdgeQuake form: one entity to merge into target'),
    target: z.string().min(1).max(512).optional().describe('EdgeQuake name of target_id'),
    strategy: z.string().max(64).nullish().describe('accepted for EdgeQuake clients; descriptions are always merged'),
    reason: z.string().max(1000).optional(),
  })
  .transform((b, ctx) => {
    const sourceIds = b.source_ids ?? (b.source ? [b.source] : undefined);
    const targetId = b.target_id ?? b.target;
    if (!sourceIds) ctx.addIssue({ code: 'custom', path: ['source_ids'], message: 'required' });
    if (!targetId) ctx.addIssue({ code: 'custom', path: ['target_id'], message: 'required' });
    if (!sourceIds || !targetId) return z.NEVER;
    return { source_ids: sourceIds, target_id: targetId, reason: b.reason };
  });

const mergeCounts = {
  merged_from: z.array(z.string()),
  relationships_moved: z.number().int(),
  relationships_merged: z.number().int(),
  self_loops_dropped: z.number().int(),
};

export const mergeResultSchema = z.object({
  entity: entityDetailSchema,
  ...mergeCounts,
  merged_entity: entityDetailSchema.describe('= entity'),
  merged_count: z.number().int().describe('entities merged into the survivor'),
  message: z.string(),
});

const labelParams = { limit: queryInt(20, 1, 1000) };

export const nodeSearchQuerySchema = z.object({
  q: z.string().max(256).optional().describe('case-insensitive substring of the name or id'),
  query: z.string().max(256).optional().describe('= q'),
  label: z.string().max(64).optional().describe('entity type, any case'),
  ...labelParams,
});

export const nodeSearchSchema = z.object({
  nodes: z.array(graphNodeSchema),
  edges: z.array(graphEdgeSchema),
  total_matches: z.number().int(),
  is_truncated: z.boolean(),
});

export const labelSearchQuerySchema = z.object({
  query: z.string().max(256).optional().describe('case-insensitive substring of the name'),
  q: z.string().max(256).optional().describe('= query'),
  limit: queryInt(50, 1, 1000),
});

export const popularLabelsQuerySchema = z.object(labelParams);

export const popularLabelsSchema = z.object({
  labels: z.array(
    z.object({ label: z.string(), entity_id: z.string(), entity_type: z.string(), degree: z.number().int(), description: z.string() }),
  ),
});

export const existsQuerySchema = z.object({ name: z.string().min(1).max(512).describe('entity name or id, any case and spacing') });

export const existsSchema = z.object({ exists: z.boolean(), entity_name: z.string(), entity_id: z.string().nullable() });

export const neighborhoodQuerySchema = z.object({
  depth: queryInt(1, 0, GRAPH_DEPTH.max),
  max_nodes: queryInt(GRAPH_MAX_NODES.default, 1, GRAPH_MAX_NODES.max),
});

export const neighborhoodSchema = z.object({
  center: entityItemSchema,
  nodes: z.array(graphNodeSchema),
  edges: z.array(graphEdgeSchema),
  depth: z.number().int(),
  is_truncated: z.boolean(),
});

export const degreesBodySchema = z.object({ node_ids: z.array(z.string().min(1).max(512)).min(1).max(1000) });
export const degreesSchema = z.object({ degrees: z.record(z.string(), z.number().int()) });

export const renameResultSchema = z.object({
  entity: entityDetailSchema,
  previous_id: z.string(),
  merged: z.boolean(),
});

const changeFields = { cause: z.string().describe('what made the change: ingest, delete, merge, edit, ...') };

/** One `data:` payload of the graph stream (documentation of the SSE events). */
export const graphStreamEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('metadata'),
    total_nodes: z.number().int(),
    total_edges: z.number().int(),
    snapshot_nodes: z.number().int(),
    snapshot_edges: z.number().int(),
    is_truncated: z.boolean(),
    batch_size: z.number().int(),
  }),
  z.object({ type: z.literal('nodes'), nodes: z.array(graphNodeSchema) }),
  z.object({ type: z.literal('edges'), edges: z.array(graphEdgeSchema) }),
  z.object({ type: z.literal('done'), snapshot: z.literal(true), done: z.literal(true).describe("EdgeQuake's name") }),
  z.object({ type: z.enum(['node_added', 'node_updated']), node: graphNodeSchema, ...changeFields }),
  z.object({ type: z.literal('node_removed'), id: z.string(), ...changeFields }),
  z.object({ type: z.enum(['edge_added', 'edge_updated']), edge: graphEdgeSchema, ...changeFields }),
  z.object({ type: z.literal('edge_removed'), id: z.string(), source: z.string(), target: z.string(), ...changeFields }),
  z.object({ type: z.literal('heartbeat'), at: z.string().describe('ISO-8601 time') }),
  z.object({ type: z.literal('resumed'), last_event_id: z.string(), replayed_from: z.string() }),
  z.object({ type: z.literal('reset'), reason: z.string() }),
  z.object({ type: z.literal('dropped'), reason: z.string(), last_event_id: z.string() }),
  z.object({ type: z.literal('error'), message: z.string() }),
]);

export const streamEventsDescription = [
  'Server-Sent Events, each `id: <event id>` and `data: <json>` with a `type`:',
  'the snapshot: `metadata` {total_nodes, total_edges, snapshot_nodes, snapshot_edges, is_truncated, batch_size};',
  '`nodes` {nodes[]} and `edges` {edges[]} batches; `done` {snapshot: true};',
  'then the changes that touch the followed part (all of the workspace unless start_node, entity_types or ids say otherwise):',
  '`node_added`/`node_updated` {node}, `node_removed` {id}, `edge_added`/`edge_updated` {edge}, `edge_removed` {id, source, target},',
  'each with `cause`; `heartbeat` {at} during silence.',
  'Reconnecting with `Last-Event-ID` (or last_event_id) replays the missed changes once each (`resumed` first)',
  'while they are in the replay window, else sends `reset` and a new snapshot.',
  'A subscriber that does not keep up gets `dropped` {reason, last_event_id} and the stream ends; `error` {message} ends it too.',
].join(' ');
