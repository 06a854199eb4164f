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

/**
 * `count` distinct relationships among `nodes` entities with skewed endpoints, as in real extracted graphs: the first
 * end is drawn towards low ids, which become hubs. `make(a, b, made)` builds the relationship between entities a and
 * b, `made` being how many are kept so far; one with the id of one kept before replaces it and is drawn again.
 */
export function skewedRelationships(
  nodes: number,
  count: number,
  random: () => number,
  make: (a: number, b: number, made: number) => RelationshipRecord,
): Map<string, RelationshipRecord> {
  const relationships = new Map<string, RelationshipRecord>();
  const pick = () => Math.floor(random() ** 2.5 * nodes);
  while (relationships.size < count) {
    const a = pick();
    const b = Math.floor(random() * nodes);
    if (a === b) continue;
    const r = make(a, b, relationships.size);
    relationships.set(r.id, r);
  }
  return relationships;
}
