import type { LineageService } from '../../lineage/service';

/**
 * Lineage answers with EdgeQuake's names beside the spec's: the flat chunk fields (`id`, `index`,
 * `token_count`), the document lineage's `metadata` and `lineage`, and the lineage graphs as `nodes`, `edges` and
 * `root_id` (document -HAS_CHUNK-> chunk -MENTIONS-> entity).
 */

type DocumentLineage = Awaited<ReturnType<LineageService['documentLineage']>>;
type DocumentGraphLineage = Awaited<ReturnType<LineageService['documentGraphLineage']>>;
type EntityLineage = Awaited<ReturnType<LineageService['entityLineage']>>;
type ChunkDetail = Awaited<ReturnType<LineageService['chunkDetail']>>;
type ChunkLineage = Awaited<ReturnType<LineageService['chunkLineage']>>;

interface LineageNode {
  id: string;
  name: string;
  node_type: 'document' | 'chunk' | 'entity';
  properties: Record<string, unknown>;
}

interface LineageEdge {
  source: string;
  target: string;
  relationship: string;
}

export function presentDocumentLineage(l: DocumentLineage, metadata: Record<string, unknown>) {
  return { ...l, metadata, lineage: { chunks: l.chunks, entities: l.entities } };
}

export function presentChunkDetail(d: ChunkDetail, embeddingModel: string | null) {
  return { ...d, id: d.chunk_id, chunk_index: d.index, embedding_model: embeddingModel };
}

export function presentChunkLineage(l: ChunkLineage) {
  return { ...l, index: l.chunk_index, token_count: l.tokens };
}

export function presentDocumentGraphLineage(l: DocumentGraphLineage) {
  const nodes: LineageNode[] = [
    { id: l.document.id, name: l.document.title, node_type: 'document', properties: { status: l.document.status } },
    ...l.chunks.map((c) => ({ id: c.id, name: `chunk ${c.index}`, node_type: 'chunk' as const, properties: { index: c.index } })),
    ...l.entities.map((e) => ({ id: e.id, name: e.name, node_type: 'entity' as const, properties: { entity_type: e.entity_type } })),
  ];
  const edges: LineageEdge[] = [
    ...l.chunks.map((c) => ({ source: l.document.id, target: c.id, relationship: 'HAS_CHUNK' })),
    ...l.entities.flatMap((e) => e.source_chunks.map((chunk) => ({ source: chunk, target: e.id, relationship: 'MENTIONS' }))),
    ...l.relationships.map((r) => ({ source: r.source, target: r.target, relationship: r.relation_type })),
  ];
  return { ...l, nodes, edges, root_id: l.document.id };
}

export function presentEntityLineage(l: EntityLineage) {
  const chunkIndex = new Map(l.sources.map((s) => [s.chunk_id, s.chunk_index]));
  const nodes: LineageNode[] = [
    {
      id: l.entity.id,
      name: l.entity.name,
      node_type: 'entity',
      properties: { entity_type: l.entity.type, description: l.entity.description },
    },
  ];
  const edges: LineageEdge[] = [];
  for (const d of l.source_documents) {
    nodes.push({ id: d.document_id, name: d.document_title, node_type: 'document', properties: {} });
    for (const range of d.line_ranges) {
      const index = chunkIndex.get(range.chunk_id) ?? null;
      nodes.push({
        id: range.chunk_id,
        name: index === null ? range.chunk_id : `chunk ${index}`,
        node_type: 'chunk',
        properties: { index, start_line: range.start_line, end_line: range.end_line },
      });
      edges.push({ source: d.document_id, target: range.chunk_id, relationship: 'HAS_CHUNK' });
      edges.push({ source: range.chunk_id, target: l.entity.id, relationship: 'MENTIONS' });
    }
  }
  return { ...l, nodes, edges, root_id: l.entity.id };
}
