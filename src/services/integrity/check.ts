import { documentOfChunk } from '../../domain/ids';
import type { DocumentStatus, EntityRecord, RelationshipRecord, Scope, VectorKind } from '../../domain/types';
import type { Stores } from '../../store/ports';

/**
 * The integrity check of a workspace: everything the graph and vector stores hold must follow from its documents.
 * Chunks belong to a document; a failed document's chunks (kept for retry-chunks) name nothing and have no vector;
 * every entity and relationship cites only chunks of live (completed or processing) documents, and at least one;
 * every relationship has both endpoints; every chunk of a completed document, entity and relationship has its
 * vector, and every vector its record. Exact when no task runs in the workspace (a run in progress writes its
 * records and vectors one after the other).
 */

export const ORPHAN_KINDS = [
  'chunk_without_document',
  'chunk_of_failed_document_linked',
  'chunk_without_vector',
  'chunk_vector_without_chunk',
  'chunk_vector_of_failed_document',
  'entity_without_source',
  'entity_citing_dead_source',
  'entity_without_vector',
  'entity_vector_without_entity',
  'relationship_without_source',
  'relationship_citing_dead_source',
  'relationship_missing_endpoint',
  'relationship_without_vector',
  'relationship_vector_without_relationship',
] as const;
export type OrphanKind = (typeof ORPHAN_KINDS)[number];

/** Ids listed per kind of orphan, at most this many (the count is always whole). */
const SAMPLE = 20;
const PAGE = 1000;

export interface OrphanGroup {
  count: number;
  /** The first ids found (at most 20). */
  ids: string[];
}

export interface IntegrityReport {
  workspace_id: string;
  checked_at: string;
  documents: Record<DocumentStatus, number>;
  /** Records checked per kind. */
  checked: { chunks: number; entities: number; relationships: number; vectors: Record<VectorKind, number> };
  orphans: Record<OrphanKind, OrphanGroup>;
  /** Orphans of every kind together; 0 for a consistent workspace. */
  total: number;
}

type IntegrityStores = Pick<Stores, 'documents' | 'chunks' | 'graph' | 'vectors'>;

export async function checkIntegrity(stores: IntegrityStores, scope: Scope): Promise<IntegrityReport> {
  const found = new Map<OrphanKind, string[]>(ORPHAN_KINDS.map((kind) => [kind, []]));
  const note = (kind: OrphanKind, id: string) => found.get(kind)!.push(id);

  const [completed, processing, failed] = await Promise.all(
    (['completed', 'processing', 'failed'] as const).map(async (status) => new Set(await stores.documents.listIds(scope, { status }))),
  );
  const live = (documentId: string) => completed.has(documentId) || processing.has(documentId);
  const [chunks, chunkVectors, entityVectors, relationshipVectors] = await Promise.all([
    stores.chunks.refs(scope),
    idSet(stores, scope, 'chunk'),
    idSet(stores, scope, 'entity'),
    idSet(stores, scope, 'relationship'),
  ]);
  const chunkIds = new Set<string>();
  for (const chunk of chunks) {
    chunkIds.add(chunk.id);
    if (!live(chunk.document_id) && !failed.has(chunk.document_id)) note('chunk_without_document', chunk.id);
    if (failed.has(chunk.document_id) && chunk.linked) note('chunk_of_failed_document_linked', chunk.id);
    if (completed.has(chunk.document_id) && !chunkVectors.has(chunk.id)) note('chunk_without_vector', chunk.id);
  }
  for (const id of chunkVectors) {
    if (!chunkIds.has(id)) note('chunk_vector_without_chunk', id);
    else if (failed.has(documentOfChunk(id))) note('chunk_vector_of_failed_document', id);
  }

  /** A source chunk that exists and belongs to a live document. */
  const liveSource = (chunkId: string) => chunkIds.has(chunkId) && live(documentOfChunk(chunkId));
  const checkSources = (record: EntityRecord | RelationshipRecord, kind: 'entity' | 'relationship') => {
    const alive = record.source_chunk_ids.filter(liveSource);
    if (alive.length === 0) note(`${kind}_without_source`, record.id);
    else if (alive.length < record.source_chunk_ids.length) note(`${kind}_citing_dead_source`, record.id);
  };

  const entityIds = new Set<string>();
  for await (const entity of pages((offset) => stores.graph.listEntities(scope, { limit: PAGE, offset }))) {
    entityIds.add(entity.id);
    checkSources(entity, 'entity');
    if (!entityVectors.has(entity.id)) note('entity_without_vector', entity.id);
  }
  for (const id of entityVectors) if (!entityIds.has(id)) note('entity_vector_without_entity', id);

  const relationshipIds = new Set<string>();
  for await (const relationship of pages((offset) => stores.graph.listRelationships(scope, { limit: PAGE, offset }))) {
    relationshipIds.add(relationship.id);
    checkSources(relationship, 'relationship');
    if (!entityIds.has(relationship.source) || !entityIds.has(relationship.target)) {
      note('relationship_missing_endpoint', relationship.id);
    }
    if (!relationshipVectors.has(relationship.id)) note('relationship_without_vector', relationship.id);
  }
  for (const id of relationshipVectors) if (!relationshipIds.has(id)) note('relationship_vector_without_relationship', id);

  const orphans = Object.fromEntries(
    ORPHAN_KINDS.map((kind) => {
      const ids = found.get(kind)!;
      return [kind, { count: ids.length, ids: ids.slice(0, SAMPLE) }];
    }),
  ) as Record<OrphanKind, OrphanGroup>;
  return {
    workspace_id: scope.workspaceId,
    checked_at: new Date().toISOString(),
    documents: { completed: completed.size, processing: processing.size, failed: failed.size },
    checked: {
      chunks: chunks.length,
      entities: entityIds.size,
      relationships: relationshipIds.size,
      vectors: { chunk: chunkVectors.size, entity: entityVectors.size, relationship: relationshipVectors.size },
    },
    orphans,
    total: ORPHAN_KINDS.reduce((sum, kind) => sum + orphans[kind].count, 0),
  };
}

async function idSet(stores: IntegrityStores, scope: Scope, kind: VectorKind): Promise<Set<string>> {
  return new Set(await stores.vectors.ids(scope, kind));
}

async function* pages<T>(read: (offset: number) => Promise<{ items: T[] }>): AsyncGenerator<T> {
  for (let offset = 0; ; offset += PAGE) {
    const page = await read(offset);
    yield* page.items;
    if (page.items.length < PAGE) return;
  }
}
