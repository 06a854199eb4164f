import { relationshipId } from '../../src/domain/ids';
import type { RelationshipRecord } from '../../src/domain/types';

/** The id of the `i`th entity of a synthetic benchmark graph. */
export const syntheticEntityId = (i: number): string => `ENTITY_${String(i).padStart(6, '0')}`;

/** A relationship of a synthetic benchmark graph between entities `a` and `b`, cited by a chunk of `a`'s document. */
export function syntheticRelationship(a: number, b: number, now: string, relationType = 'RELATED_TO'): RelationshipRecord {
  const [rid, source, target] = relationshipId(syntheticEntityId(a), syntheticEntityId(b));
  return {
    id: rid,
    source,
    target,
    relation_type: relationType,
    keywords: ['benchmark'],
    description: `${source} relates to ${target}`,
    weight: 1,
    source_chunk_ids: [`doc-${a % 500}-chunk-0`],
    document_ids: [`doc-${a % 500}`],
    created_at: now,
    updated_at: now,
  };
}
