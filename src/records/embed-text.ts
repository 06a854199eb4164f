import type { EntityRecord, RelationshipRecord } from '../domain/types';

/** The texts embedded for graph records: ingestion and graph edits embed the same text. */

/** Text embedded for an entity. */
export function entityText(e: Pick<EntityRecord, 'name' | 'description'>): string {
  return `${e.name}: ${e.description}`;
}

/** Text embedded for a relationship. */
export function relationshipText(r: Pick<RelationshipRecord, 'keywords' | 'source' | 'target' | 'description'>): string {
  return `${r.keywords.join(', ')}\n${r.source} - ${r.target}\n${r.description}`;
}
