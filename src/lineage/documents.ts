import { documentOfChunk } from '../domain/ids';
import type { ChunkRecord, DocumentRecord, EntityRecord, RelationshipRecord, Scope } from '../domain/types';
import type { Stores } from '../store/ports';
import { lineageNotFound } from './errors';
import { preview } from '../domain/text';

interface DocumentGraph {
  document: DocumentRecord;
  chunks: ChunkRecord[];
  entities: EntityRecord[];
  relationships: RelationshipRecord[];
  /** Chunk ids of this document among a record's sources. */
  own: (sourceChunkIds: string[]) => string[];
}

async function loadDocumentGraph(stores: Stores, scope: Scope, documentId: string): Promise<DocumentGraph> {
  const document = await stores.documents.get(scope, documentId);
  if (!document) throw lineageNotFound(`document '${documentId}' does not exist in workspace '${scope.workspaceId}'`);
  const [chunks, entities, relationships] = await Promise.all([
    stores.chunks.listByDocument(scope, documentId),
    stores.graph.entitiesOfDocument(scope, documentId),
    stores.graph.relationshipsOfDocument(scope, documentId),
  ]);
  const chunkIds = new Set(chunks.map((c) => c.id));
  return {
    document,
    chunks,
    entities: [...entities].sort((a, b) => (a.id < b.id ? -1 : 1)),
    relationships: [...relationships].sort((a, b) => (a.id < b.id ? -1 : 1)),
    own: (ids) => ids.filter((id) => chunkIds.has(id)),
  };
}

/** Document lineage (docs/api.md §4.10), built from the chunk and entity records themselves. */
export async function documentLineage(stores: Stores, scope: Scope, documentId: string) {
  const { document, chunks, entities, own } = await loadDocumentGraph(stores, scope, documentId);
  return {
    document_id: document.id,
    document_title: document.title,
    status: document.status,
    chunks: chunks.map((c) => ({
      chunk_id: c.id,
      chunk_index: c.index,
      content_preview: preview(c.content),
      tokens: c.tokens,
      start_line: c.start_line,
      end_line: c.end_line,
      entity_count: c.entity_ids.length,
      relationship_count: c.relationship_ids.length,
    })),
    entities: entities.map((e) => ({
      entity_id: e.id,
      entity_name: e.name,
      entity_type: e.entity_type,
      chunk_ids: own(e.source_chunk_ids),
    })),
  };
}

/** The document holding most of the entity's source chunks (ties: the one that contributed it first). */
function primaryDocument(entity: EntityRecord): string | null {
  const counts = new Map(entity.document_ids.map((id) => [id, 0]));
  for (const chunkId of entity.source_chunk_ids) {
    const doc = documentOfChunk(chunkId);
    if (counts.has(doc)) counts.set(doc, (counts.get(doc) as number) + 1);
  }
  let best: string | null = null;
  for (const [doc, count] of counts) if (best === null || count > (counts.get(best) as number)) best = doc;
  return best;
}

/**
 * Document graph lineage: one object with the fields of both documented shapes
 * (`extraction_stats`/`entities`/`relationships` and `document`/`chunks`/`*_contributed`).
 */
export async function documentGraphLineage(stores: Stores, scope: Scope, documentId: string) {
  const { document, chunks, entities, relationships, own } = await loadDocumentGraph(stores, scope, documentId);
  const sum = (f: (c: ChunkRecord) => number) => chunks.reduce((total, c) => total + f(c), 0);
  return {
    document_id: document.id,
    chunk_count: chunks.length,
    extraction_stats: {
      total_entities: sum((c) => c.entity_ids.length),
      unique_entities: entities.length,
      total_relationships: sum((c) => c.relationship_ids.length),
      unique_relationships: relationships.length,
      processing_time_ms: document.processing_time_ms,
    },
    entities: entities.map((e) => ({
      id: e.id,
      name: e.name,
      entity_type: e.entity_type,
      source_chunks: own(e.source_chunk_ids),
      is_shared: e.document_ids.some((id) => id !== document.id),
    })),
    relationships: relationships.map((r) => ({
      id: r.id,
      source: r.source,
      target: r.target,
      relation_type: r.relation_type,
      keywords: r.keywords,
      source_chunks: own(r.source_chunk_ids),
    })),
    document: { id: document.id, title: document.title, status: document.status },
    chunks: chunks.map((c) => ({
      id: c.id,
      index: c.index,
      entities_extracted: c.entity_ids.length,
      relationships_extracted: c.relationship_ids.length,
    })),
    entities_contributed: entities.map((e) => ({
      id: e.id,
      type: e.entity_type,
      is_primary_source: primaryDocument(e) === document.id,
    })),
    relationships_contributed: relationships.map((r) => ({ id: r.id, source: r.source, target: r.target, type: r.relation_type })),
  };
}
