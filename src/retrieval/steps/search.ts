import type { Scope, VectorHit } from '../../domain/types';
import type { Stores } from '../../store/ports';
import type { ScoredChunk, ScoredEntity, ScoredRelationship } from '../types';
import { isAllowed } from './filter';

/** Vector searches: each returns records best first, restricted to the allowed documents. */

type Allowed = Set<string> | null;

function relevant(hits: VectorHit[], minScore: number): VectorHit[] {
  return hits.filter((h) => h.score >= minScore);
}

function filterOf(allowed: Allowed): { documentIds?: string[] } | undefined {
  return allowed ? { documentIds: [...allowed] } : undefined;
}

export async function searchEntities(
  stores: Stores,
  scope: Scope,
  vector: number[],
  topK: number,
  allowed: Allowed,
  minScore: number,
): Promise<ScoredEntity[]> {
  const hits = relevant(await stores.vectors.search(scope, 'entity', vector, topK, filterOf(allowed)), minScore);
  if (hits.length === 0) return [];
  const records = await stores.graph.getEntities(scope, hits.map((h) => h.id));
  const byId = new Map(records.map((r) => [r.id, r]));
  const found: ScoredEntity[] = [];
  for (const hit of hits) {
    const record = byId.get(hit.id);
    if (record && isAllowed(allowed, record.document_ids)) found.push({ record, score: hit.score, degree: 0 });
  }
  return found;
}

export async function searchRelationships(
  stores: Stores,
  scope: Scope,
  vector: number[],
  topK: number,
  allowed: Allowed,
  minScore: number,
): Promise<ScoredRelationship[]> {
  const hits = relevant(await stores.vectors.search(scope, 'relationship', vector, topK, filterOf(allowed)), minScore);
  if (hits.length === 0) return [];
  const records = await stores.graph.getRelationships(scope, hits.map((h) => h.id));
  const byId = new Map(records.map((r) => [r.id, r]));
  const found: ScoredRelationship[] = [];
  for (const hit of hits) {
    const record = byId.get(hit.id);
    if (record && isAllowed(allowed, record.document_ids)) found.push({ record, score: hit.score });
  }
  return found;
}

export async function searchChunks(
  stores: Stores,
  scope: Scope,
  vector: number[],
  topK: number,
  allowed: Allowed,
  minScore: number,
): Promise<ScoredChunk[]> {
  const hits = relevant(await stores.vectors.search(scope, 'chunk', vector, topK, filterOf(allowed)), minScore);
  if (hits.length === 0) return [];
  const records = await stores.chunks.getMany(scope, hits.map((h) => h.id));
  const byId = new Map(records.map((r) => [r.id, r]));
  const found: ScoredChunk[] = [];
  for (const hit of hits) {
    const record = byId.get(hit.id);
    if (record && (!allowed || allowed.has(record.document_id))) found.push({ record, score: hit.score });
  }
  return found;
}
