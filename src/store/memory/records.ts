import type {
  ChunkRecord,
  ConversationRecord,
  DocumentRecord,
  EntityRecord,
  MessageRecord,
  Page,
  RelationshipRecord,
  TaskRecord,
} from '../../domain/types';
import { latestOf } from '../latest-sources';
import type { SourceBounds } from '../ports';

/*
 * Copies of records crossing the store boundary, in both directions: a caller mutating what it passed in or
 * got back never changes the store. Hand-written per record so large strings are shared, not copied.
 */

export function copyDocument(d: DocumentRecord): DocumentRecord {
  return { ...d, metadata: structuredClone(d.metadata), options: { ...d.options } };
}

export function copyChunk(c: ChunkRecord): ChunkRecord {
  return { ...c, entity_ids: [...c.entity_ids], relationship_ids: [...c.relationship_ids] };
}

export function copyEntity(e: EntityRecord): EntityRecord {
  return { ...e, source_chunk_ids: [...e.source_chunk_ids], document_ids: [...e.document_ids] };
}

export function copyRelationship(r: RelationshipRecord): RelationshipRecord {
  return {
    ...r,
    keywords: [...r.keywords],
    source_chunk_ids: [...r.source_chunk_ids],
    document_ids: [...r.document_ids],
  };
}

/** A copy with only its latest sources, made in the time of the bounds, not of the lists (hubs cite thousands). */
export function boundedEntity(e: EntityRecord, bounds: SourceBounds): EntityRecord {
  return { ...e, source_chunk_ids: latestOf(e.source_chunk_ids, bounds.chunks), document_ids: latestOf(e.document_ids, bounds.documents) };
}

export function boundedRelationship(r: RelationshipRecord, bounds: SourceBounds): RelationshipRecord {
  return {
    ...r,
    keywords: [...r.keywords],
    source_chunk_ids: latestOf(r.source_chunk_ids, bounds.chunks),
    document_ids: latestOf(r.document_ids, bounds.documents),
  };
}

export function copyTask(t: TaskRecord): TaskRecord {
  return { ...t, stages: { ...t.stages }, stats: { ...t.stats } };
}

export function copyConversation(c: ConversationRecord): ConversationRecord {
  return { ...c };
}

export function copyMessage(m: MessageRecord): MessageRecord {
  return { ...m, sources: structuredClone(m.sources) };
}

/**
 * Applies a partial update: keys whose value is `undefined` are treated as absent, `id` never changes,
 * and the result is re-copied so the store shares nothing with the patch.
 */
export function applyPatch<T extends { id: string }>(
  current: T,
  patch: Partial<T>,
  copy: (record: T) => T,
  immutable: ReadonlyArray<keyof T> = [],
): T {
  const next: T = { ...current };
  for (const key of Object.keys(patch) as Array<keyof T>) {
    const value = patch[key];
    if (value === undefined || key === 'id' || immutable.includes(key)) continue;
    next[key] = value as T[keyof T];
  }
  return copy(next);
}

/** One page of an already ordered list. */
export function pageOf<T, R>(ordered: readonly T[], limit: number, offset: number, map: (item: T) => R): Page<R> {
  const start = Math.max(0, Math.floor(offset));
  const end = start + Math.max(0, Math.floor(limit));
  return { items: ordered.slice(start, end).map(map), total: ordered.length };
}

/** Ascending code-point order, the order of ids everywhere (matches Neo4j's string ORDER BY). */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
