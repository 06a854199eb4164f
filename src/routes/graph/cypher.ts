import { z } from 'zod';
import type { Api } from '../../http/api';
import type { Runtime } from '../../services/runtime';

export const cypherBodySchema = z.object({
  query: z.string().trim().min(1).max(20_000).describe('Cypher, run in a read-only transaction'),
  params: z.record(z.string(), z.unknown()).default({}).describe('named parameters ($name in the query)'),
});

const cypherNodeSchema = z
  .object({
    kind: z.literal('node'),
    id: z.string().describe('the `id` property, or the element id of a node without one'),
    label: z.string(),
    node_type: z.string(),
    description: z.string(),
    degree: z.number().int().describe('relationships to entities'),
    labels: z.array(z.string()),
    element_id: z.string(),
    workspace_id: z.string().nullable(),
    properties: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'CypherNode' });

const cypherEdgeSchema = z
  .object({
    kind: z.literal('edge'),
    id: z.string(),
    source: z.string(),
    target: z.string(),
    edge_type: z.string(),
    weight: z.number(),
    element_id: z.string(),
    workspace_id: z.string().nullable(),
    properties: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'CypherEdge' });

export const cypherAnswerSchema = z.object({
  columns: z.array(z.string()),
  rows: z
    .array(z.record(z.string(), z.unknown()))
    .describe('one object per record; nodes, relationships and paths ({kind: "path", nodes, edges}) shaped as in /graph'),
  row_count: z.number().int(),
  is_truncated: z.boolean().describe('the query had more rows than max_rows'),
  max_rows: z.number().int(),
  nodes: z.array(cypherNodeSchema).describe('every distinct node of the rows'),
  edges: z.array(cypherEdgeSchema).describe('every distinct relationship of the rows'),
});

/** Analysts' own read-only Cypher (docs/api.md §4.5): operators only, persistent mode, off unless enabled. */
export function graphCypherRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'post',
      path: '/graph/cypher',
      tag: 'graph',
      summary: 'Run read-only Cypher across the database (operators; persistent mode; off unless SERVICE_CYPHER_ENABLED)',
      description:
        'Runs in a read transaction, so Neo4j refuses writes (403). A server-side timeout (SERVICE_CYPHER_TIMEOUT_MS) and a ' +
        'row cap (SERVICE_CYPHER_MAX_ROWS) bound the cost. Cypher is not confined to a workspace: filter on `workspace_id`.',
      access: 'operator',
      workspace: false,
      body: cypherBodySchema,
      responses: {
        200: { description: 'Columns and rows, and the nodes and edges found in them', schema: cypherAnswerSchema },
        403: { description: 'Not an operator, or the query tried to write' },
        422: { description: 'The query is not valid Cypher, misses a parameter, or ran past the timeout' },
        501: { description: 'Embedded mode (no Cypher engine), or raw Cypher is not enabled' },
      },
    },
    async (ctx, { body }) => {
      ctx.body = await rt.graph.cypher({ query: body.query, params: body.params });
    },
  );
}
