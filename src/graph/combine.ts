import type { EntityRecord, RelationshipRecord } from '../domain/types';

/** How analyst merges fold records together: sources union, descriptions joined, weights summed. */

export function union(...lists: string[][]): string[] {
  return [...new Set(lists.flat())];
}

/** Distinct non-empty descriptions, first seen first, one per line. */
export function joinDescriptions(...descriptions: string[]): string {
  const seen = new Set<string>();
  for (const d of descriptions) {
    const trimmed = d.trim();
    if (trimmed) seen.add(trimmed);
  }
  return [...seen].join('\n');
}

function earliest(a: string, b: string): string {
  return a <= b ? a : b;
}

/** The survivor keeps its id, name and type, and gains the absorbed entities' sources and descriptions. */
export function absorbEntities(survivor: EntityRecord, absorbed: EntityRecord[], now: string): EntityRecord {
  return {
    ...survivor,
    description: joinDescriptions(survivor.description, ...absorbed.map((e) => e.description)),
    source_chunk_ids: union(survivor.source_chunk_ids, ...absorbed.map((e) => e.source_chunk_ids)),
    document_ids: union(survivor.document_ids, ...absorbed.map((e) => e.document_ids)),
    created_at: absorbed.reduce((at, e) => earliest(at, e.created_at), survivor.created_at),
    updated_at: now,
  };
}

/** Two relationships between the same pair become one: weights summed, keywords and sources united. */
export function combineRelationships(kept: RelationshipRecord, other: RelationshipRecord, now: string): RelationshipRecord {
  return {
    ...kept,
    keywords: union(kept.keywords, other.keywords),
    description: joinDescriptions(kept.description, other.description),
    weight: kept.weight + other.weight,
    source_chunk_ids: union(kept.source_chunk_ids, other.source_chunk_ids),
    document_ids: union(kept.document_ids, other.document_ids),
    created_at: earliest(kept.created_at, other.created_at),
    updated_at: now,
  };
}
