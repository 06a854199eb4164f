import type { EntityRecord, RelationshipRecord, Scope } from '../../domain/types';
import type { Stores } from '../../store/ports';
import { retrievalReadsOf } from '../../store/retrieval-reads';
import type { ScoredChunk, ScoredEntity, ScoredRelationship } from '../types';
import { isAllowed } from './filter';

/** Vector searches: each returns records best first, restricted to the allowed documents. */

/** What every search of one retrieval shares. */
export interface SearchScope {
  stores: Stores;
  scope: Scope;
  allowed: Set<string> | null;
  minScore: number;
}

/** What local expansion needs, read with the entity hits: the relationships touching them and the degrees. */
export interface EntitySurroundings {
  relationships: RelationshipRecord[];
  degrees: Map<string, number>;
}

/** What global expansion needs, read with the relationship hits: their end points and degrees. */
export interface RelationshipEnds {
  entities: EntityRecord[];
  degrees: Map<string, number>;
}

/**
 * The latest chunk ids of each entity and relationship a query reads: the chunks it cites are ranked among them. A
 * hub entity that every document names keeps its query cost bounded (LightRAG caps the sources it stores instead).
 */
export const SOURCES_PER_RECORD = 100;

function searchOptions(s: SearchScope) {
  return { filter: s.allowed ? { documentIds: [...s.allowed] } : undefined, minScore: s.minScore, sources: SOURCES_PER_RECORD };
}

/** Hits at or above the minimum score whose record is kept, in hit order. */
function kept<R>(hits: Array<{ record: R; score: number }>, minScore: number, keep: (record: R) => boolean) {
  return hits.filter((h) => h.score >= minScore && keep(h.record));
}

/**
 * With `around`, the relationships touching the hits and the degrees come back in the same read: at least the
 * `around.keep` that local expansion keeps (all of them under a document filter, which it applies first).
 */
export async function searchEntities(
  s: SearchScope,
  vector: number[],
  topK: number,
  around: { keep: number } | null = null,
): Promise<{ hits: ScoredEntity[]; surroundings: EntitySurroundings | null }> {
  const keep = around && !s.allowed ? around.keep : undefined;
  const found = await retrievalReadsOf(s.stores).entityHits(s.scope, vector, topK, { ...searchOptions(s), around: around !== null, keep });
  const hits = kept(found.hits, s.minScore, (r) => isAllowed(s.allowed, r.document_ids)).map((h) => ({ ...h, degree: 0 }));
  return { hits, surroundings: around ? { relationships: found.relationships, degrees: found.degrees } : null };
}

/**
 * With `ends`, the end points of the hits and their degrees come back in the same read: at least the `ends.keep`
 * that global expansion keeps (all of them under a document filter, which it applies first).
 */
export async function searchRelationships(
  s: SearchScope,
  vector: number[],
  topK: number,
  ends: { keep: number } | null = null,
): Promise<{ hits: ScoredRelationship[]; ends: RelationshipEnds | null }> {
  const keep = ends && !s.allowed ? ends.keep : undefined;
  const found = await retrievalReadsOf(s.stores).relationshipHits(s.scope, vector, topK, {
    ...searchOptions(s),
    ends: ends !== null,
    keep,
  });
  const hits = kept(found.hits, s.minScore, (r) => isAllowed(s.allowed, r.document_ids));
  return { hits, ends: ends ? { entities: found.entities, degrees: found.degrees } : null };
}

export async function searchChunks(s: SearchScope, vector: number[], topK: number): Promise<ScoredChunk[]> {
  const found = await retrievalReadsOf(s.stores).chunkHits(s.scope, vector, topK, searchOptions(s));
  return kept(found.hits, s.minScore, (r) => !s.allowed || s.allowed.has(r.document_id)).map((h) => ({
    ...h,
    origin: found.origins.get(h.record.document_id) ?? { title: '', file_path: '' },
  }));
}
