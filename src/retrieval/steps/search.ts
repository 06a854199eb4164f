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
  /** The model's noise floor: hits below it are dropped. */
  minScore: number;
  /**
   * Share of the way from the floor to the best hit that a hit must reach (0: the floor alone). Scores of a
   * trained model bunch up above its floor; this keeps the hits near the best and drops the rest.
   */
  relative: number;
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

/** Hits at or above the cut-off (the floor, and the relative share of the way to the best hit) whose record is kept, in hit order. */
function kept<R>(hits: Array<{ record: R; score: number }>, s: SearchScope, keep: (record: R) => boolean) {
  const best = hits.reduce((top, h) => Math.max(top, h.score), -Infinity);
  const cut = best > s.minScore ? s.minScore + s.relative * (best - s.minScore) : s.minScore;
  return hits.filter((h) => h.score >= cut && keep(h.record));
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
  const hits = kept(found.hits, s, (r) => isAllowed(s.allowed, r.document_ids)).map((h) => ({ ...h, degree: 0 }));
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
  const hits = kept(found.hits, s, (r) => isAllowed(s.allowed, r.document_ids));
  return { hits, ends: ends ? { entities: found.entities, degrees: found.degrees } : null };
}

export async function searchChunks(s: SearchScope, vector: number[], topK: number): Promise<ScoredChunk[]> {
  const found = await retrievalReadsOf(s.stores).chunkHits(s.scope, vector, topK, searchOptions(s));
  return kept(found.hits, s, (r) => !s.allowed || s.allowed.has(r.document_id)).map((h) => ({
    ...h,
    origin: found.origins.get(h.record.document_id) ?? { title: '', file_path: '' },
  }));
}
