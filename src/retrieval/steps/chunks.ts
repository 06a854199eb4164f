import type { Scope } from '../../domain/types';
import type { Stores } from '../../store/ports';
import type { ScoredChunk } from '../types';
import type { GraphSelection } from './expand';

/**
 * The chunks the selected entities and relationships came from, ranked by how many selected items cite them,
 * then by the rank of the best item citing them. Score: citations relative to the most cited chunk.
 */
export async function chunksOfSelection(
  stores: Stores,
  scope: Scope,
  selection: GraphSelection,
  maxChunks: number,
  allowed: Set<string> | null,
): Promise<ScoredChunk[]> {
  const citations = new Map<string, { count: number; bestRank: number }>();
  const items = [...selection.entities, ...selection.relationships];
  items.forEach(({ record }, rank) => {
    for (const id of record.source_chunk_ids) {
      const seen = citations.get(id);
      if (seen) seen.count += 1;
      else citations.set(id, { count: 1, bestRank: rank });
    }
  });
  if (citations.size === 0) return [];
  const ordered = [...citations.entries()]
    .sort((a, b) => b[1].count - a[1].count || a[1].bestRank - b[1].bestRank || compare(a[0], b[0]))
    .map(([id]) => id);
  // Under a filter some cited chunks belong to excluded documents, so every cited chunk is a candidate.
  const wanted = allowed ? ordered : ordered.slice(0, maxChunks);
  const records = await stores.chunks.getMany(scope, wanted);
  const kept = records.filter((r) => !allowed || allowed.has(r.document_id)).slice(0, maxChunks);
  const top = kept.length ? (citations.get(kept[0].id)?.count ?? 1) : 1;
  return kept.map((record) => ({ record, score: (citations.get(record.id)?.count ?? 0) / top }));
}

/** Reciprocal-rank fusion constant (the usual 60): damps the advantage of the very first ranks. */
const RRF_K = 60;

/** Mix mode: graph-derived and vector chunks fused by reciprocal rank; score is the fused value. */
export function fuseChunks(lists: ReadonlyArray<readonly ScoredChunk[]>, maxChunks: number): ScoredChunk[] {
  const fused = new Map<string, ScoredChunk>();
  for (const list of lists) {
    list.forEach((chunk, rank) => {
      const gain = 1 / (RRF_K + rank + 1);
      const seen = fused.get(chunk.record.id);
      if (seen) seen.score += gain;
      else fused.set(chunk.record.id, { record: chunk.record, score: gain });
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || compare(a.record.id, b.record.id))
    .slice(0, maxChunks);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
