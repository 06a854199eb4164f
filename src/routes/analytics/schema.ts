import { z } from 'zod';
import { ANALYTICS_LIMITS } from '../../graph/analytics/service';
import { queryInt } from '../../http/validate';

const entityName = z.string().min(1).max(512);
const L = ANALYTICS_LIMITS;

export const pathsQuerySchema = z.object({
  from: entityName.describe('entity id or name, any case and spacing'),
  to: entityName.describe('entity id or name'),
  max_hops: queryInt(L.maxHops.default, 1, L.maxHops.max).describe('longest path searched, in relationships'),
  limit: queryInt(L.paths.default, 1, L.paths.max).describe('paths returned at most'),
});

/** The entity types of a `types` list (comma-separated, any case). */
export function typeList(types: string | undefined): string[] | undefined {
  return types
    ?.split(',')
    .map((t) => t.trim().toUpperCase())
    .filter(Boolean);
}

export const neighbourhoodQuerySchema = z.object({
  entity: entityName.describe('entity id or name'),
  hops: queryInt(L.hops.default, 1, L.hops.max),
  types: z
    .string()
    .max(1000)
    .regex(/^[A-Za-z0-9_ ,-]*$/, 'comma-separated entity types')
    .optional()
    .describe('comma-separated entity types to return (the walk goes through every type)'),
  limit: queryInt(L.nodes.default, 1, L.nodes.max),
});

export const topQuerySchema = z.object({
  metric: z.enum(['degree', 'pagerank', 'betweenness']).default('degree'),
  limit: queryInt(L.top.default, 1, L.top.max),
});

export const coMentionQuerySchema = z.object({
  entity: entityName.describe('entity id or name'),
  limit: queryInt(L.top.default, 1, L.top.max),
});

export const limitQuerySchema = z.object({ limit: queryInt(L.top.default, 1, L.top.max) });

const entityRef = z.object({ id: z.string(), name: z.string(), entity_type: z.string() });

export const pathsSchema = z.object({
  paths: z.array(z.array(entityRef)).describe('every shortest path, ends included, sorted by entity ids'),
  length: z.number().int().nullable().describe('relationships per path; null when no path is within max_hops'),
});

export const neighbourhoodSchema = z.object({
  entity: entityRef,
  neighbours: z.array(entityRef.extend({ distance: z.number().int() })).describe('nearest first, then by id'),
});

export const topSchema = z.object({
  metric: z.enum(['degree', 'pagerank', 'betweenness']),
  approximate: z.boolean().describe('betweenness sampled from source nodes on large graphs, or a graph cut to its most connected part'),
  truncated: z.boolean().describe('the graph had more entities than analytics load; its most connected part was used'),
  entities: z.array(entityRef.extend({ score: z.number() })),
});

export const coMentionSchema = z.object({
  entity: entityRef,
  entities: z.array(entityRef.extend({ shared_chunks: z.number().int() })),
});

export const bridgesSchema = z.object({
  communities: z.number().int().describe('level-0 communities; 0 until the communities are built'),
  pairs: z.array(
    z.object({
      community_a: z.string(),
      community_b: z.string(),
      relationships: z.number().int(),
      weight: z.number(),
      examples: z.array(z.string()).describe('relationship ids, at most 5'),
    }),
  ),
  entities: z.array(entityRef.extend({ community_id: z.string(), communities_reached: z.number().int() })),
});

export const sharedDocumentsSchema = z.object({
  pairs: z.array(z.object({ document_a: z.string(), document_b: z.string(), shared_entities: z.number().int() })),
});
