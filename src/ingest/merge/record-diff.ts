import type { EntityRecord, RelationshipRecord } from '../../domain/types';
import { entityText, relationshipText } from '../../records/embed-text';

export { entityText, relationshipText };

/** What changed between two versions of a record: whether to write it, and whether to re-embed it. */

export function embeddingChanged<T extends { document_ids: string[] }>(old: T | undefined, next: T, text: (r: T) => string): boolean {
  return !old || text(old) !== text(next) || !sameList(old.document_ids, next.document_ids);
}

export function changedEntity(old: EntityRecord | undefined, e: EntityRecord): boolean {
  return (
    !old ||
    old.name !== e.name ||
    old.entity_type !== e.entity_type ||
    old.description !== e.description ||
    !sameList(old.source_chunk_ids, e.source_chunk_ids)
  );
}

export function changedRelationship(old: RelationshipRecord | undefined, r: RelationshipRecord): boolean {
  return (
    !old ||
    old.relation_type !== r.relation_type ||
    old.description !== r.description ||
    old.weight !== r.weight ||
    !sameList(old.keywords, r.keywords) ||
    !sameList(old.source_chunk_ids, r.source_chunk_ids)
  );
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
