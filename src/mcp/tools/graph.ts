import { z } from 'zod';
import { pageWindow } from '../../http/validate';
import { neighbourhoodQuerySchema, pathsQuerySchema, typeList } from '../../routes/analytics/schema';
import { entityListQuerySchema, entityParamsSchema } from '../../routes/graph/schema';
import type { Runtime } from '../../services/runtime';
import type { Scope } from '../../domain/types';
import { type McpTool, asJson, defineTool } from '../tool';

const list = entityListQuerySchema.shape;

/** An entity with its relationships and where it was read: each source document's title and the lines that mention it. */
export async function entityWithProvenance(rt: Runtime, scope: Scope, name: string): Promise<Record<string, unknown>> {
  const [detail, provenance] = await Promise.all([rt.graph.entityDetail(scope, name), rt.lineage.entityProvenance(scope, name)]);
  const sources = provenance.sources.map((s) => ({
    document_id: s.document_id,
    document_title: s.document_name,
    chunks: s.chunks.map((c) => ({ chunk_id: c.chunk_id, start_line: c.start_line, end_line: c.end_line, text: c.source_text })),
  }));
  return { ...detail, sources, related_entities: provenance.related_entities };
}

function entityText(entity: Record<string, unknown>): string {
  const sources = (
    entity.sources as Array<{
      document_title: string;
      document_id: string;
      chunks: Array<{ start_line: number | null; end_line: number | null }>;
    }>
  ).map(
    (s) =>
      `- ${s.document_title} (document ${s.document_id}), lines ${s.chunks.map((c) => `${c.start_line ?? '?'}-${c.end_line ?? '?'}`).join(', ')}`,
  );
  const relationships = (
    entity.relationships as Array<{ source: string; target: string; relation_type?: string; description?: string }>
  ).map((r) => `- ${r.source} -[${r.relation_type ?? 'RELATED'}]-> ${r.target}${r.description ? `: ${r.description}` : ''}`);
  return [
    `${String(entity.name)} (${String(entity.entity_type)})`,
    String(entity.description ?? ''),
    relationships.length ? `Relationships:\n${relationships.join('\n')}` : 'Relationships: none',
    sources.length ? `Sources:\n${sources.join('\n')}` : 'Sources: none',
  ].join('\n\n');
}

/** Graph look-ups: the services of the REST /graph routes (docs/api.md §4.5) and graph analytics. */
export const graphTools: McpTool[] = [
  defineTool({
    name: 'search_entities',
    title: 'Search entities',
    description: 'Entities whose name or id holds the text, optionally of one type, most connected first.',
    args: z.object({ search: list.search, type: list.type, limit: list.limit, offset: list.offset }),
    role: 'viewer',
    rate: 'graph',
    readOnly: true,
    async run({ rt, resolved }, args) {
      const { limit, offset } = pageWindow(args, 1000);
      return asJson(await rt.graph.listEntities(resolved.scope, { limit, offset, type: args.type, search: args.search }));
    },
  }),
  defineTool({
    name: 'get_entity',
    title: 'Get an entity',
    description:
      'One entity by name or id (any case and spacing): its description, relationships, and provenance (the documents, ' +
      'with titles and line ranges, it was extracted from).',
    args: z.object({ name: entityParamsSchema.shape.id.describe('entity name or id') }),
    role: 'viewer',
    rate: 'graph',
    readOnly: true,
    async run({ rt, resolved }, args) {
      const entity = await entityWithProvenance(rt, resolved.scope, args.name);
      return { structured: entity, text: entityText(entity) };
    },
  }),
  defineTool({
    name: 'neighbourhood',
    title: 'Entity neighbourhood',
    description: 'Entities within `hops` relationships of an entity, nearest first, optionally of some types only.',
    args: neighbourhoodQuerySchema,
    role: 'viewer',
    rate: 'graph',
    readOnly: true,
    async run({ rt, resolved }, args) {
      const types = typeList(args.types);
      return asJson(await rt.analytics.neighbourhood(resolved.scope, { entity: args.entity, hops: args.hops, types, limit: args.limit }));
    },
  }),
  defineTool({
    name: 'shortest_path',
    title: 'Shortest paths',
    description: 'Every shortest path between two entities within max_hops relationships.',
    args: pathsQuerySchema,
    role: 'viewer',
    rate: 'graph',
    readOnly: true,
    async run({ rt, resolved }, args) {
      return asJson(
        await rt.analytics.shortestPaths(resolved.scope, { from: args.from, to: args.to, maxHops: args.max_hops, limit: args.limit }),
      );
    },
  }),
  defineTool({
    name: 'graph_stats',
    title: 'Graph statistics',
    description: 'Entity and relationship counts by type, average degree and density of the workspace graph.',
    args: z.object({}),
    role: 'viewer',
    rate: 'graph',
    readOnly: true,
    async run({ rt, resolved }) {
      return asJson(await rt.graph.stats(resolved.scope));
    },
  }),
];
