import type { Scope, VectorKind } from '../../domain/types';
import type { Stores } from '../../store/ports';
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

/** Searches one vector kind, loads the hit records and keeps the allowed ones in hit order. */
async function searchRecords<R extends { id: string }>(
  { stores, scope, allowed, minScore }: SearchScope,
  kind: VectorKind,
  vector: number[],
  topK: number,
  load: (ids: string[]) => Promise<R[]>,
  keep: (record: R) => boolean,
): Promise<Array<{ record: R; score: number }>> {
  const filter = allowed ? { documentIds: [...allowed] } : undefined;
  const hits = (await stores.vectors.search(scope, kind, vector, topK, filter)).filter((h) => h.score >= minScore);
  if (hits.length === 0) return [];
  const byId = new Map((await load(hits.map((h) => h.id))).map((r) => [r.id, r]));
  const found: Array<{ record: R; score: number }> = [];
  for (const hit of hits) {
    const record = byId.get(hit.id);
    if (record && keep(record)) found.push({ record, score: hit.score });
  }
  return found;
}

export async function searchEntities(s: SearchScope, vector: number[], topK: number): Promise<ScoredEntity[]> {
  const found = await searchRecords(
    s,
    'entity',
    vector,
    topK,
    (ids) => s.stores.graph.getEntities(s.scope, ids),
    (r) => isAllowed(s.allowed, r.document_ids),
  );
  return found.map((f) => ({ ...f, degree: 0 }));
}

export function searchRelationships(s: SearchScope, vector: number[], topK: number): Promise<ScoredRelationship[]> {
  return searchRecords(
    s,
    'relationship',
    vector,
    topK,
    (ids) => s.stores.graph.getRelationships(s.scope, ids),
    (r) => isAllowed(s.allowed, r.document_ids),
  );
}

export function searchChunks(s: SearchScope, vector: number[], topK: number): Promise<ScoredChunk[]> {
  return searchRecords(
    s,
    'chunk',
    vector,
    topK,
    (ids) => s.stores.chunks.getMany(s.scope, ids),
    (r) => !s.allowed || s.allowed.has(r.document_id),
  );
}
