import { firstK } from '../../domain/first-k';
import { documentOfChunk, followingChunkId } from '../../domain/ids';
import type { ChunkRecord, Scope } from '../../domain/types';
import type { DocumentTitle, Stores } from '../../store/ports';
import { retrievalReadsOf } from '../../store/retrieval-reads';
import type { ScoredChunk } from '../types';
import type { GraphSelection } from './expand';

interface Citation {
  id: string;
  count: number;
  bestRank: number;
}

/** With a question vector, this many times `maxChunks` of the most cited chunks are ranked by similarity. */
const SIMILARITY_POOL = 8;

/**
 * The chunks the selected entities and relationships came from, ranked by how many selected items cite them,
 * then by the rank of the best item citing them. Score: citations relative to the most cited chunk. With a
 * question vector, the most cited chunks are ranked by their similarity to the question instead (score:
 * the cosine), so the chunk that answers comes before the one that merely names the same entities; with
 * `followers`, the chunk after each of them is ranked with them (see `followersOf`).
 * Under a document filter, chunks of other documents are skipped before ranking (chunk ids name their document).
 */
export async function chunksOfSelection(
  stores: Stores,
  scope: Scope,
  selection: GraphSelection,
  maxChunks: number,
  allowed: Set<string> | null,
  question: number[] | null = null,
  followers = false,
): Promise<ScoredChunk[]> {
  const citations = new Map<string, Citation>();
  const items = [...selection.entities, ...selection.relationships];
  items.forEach(({ record }, rank) => {
    for (const id of record.source_chunk_ids) {
      const seen = citations.get(id);
      if (seen) seen.count += 1;
      else if (!allowed || allowed.has(documentOfChunk(id))) citations.set(id, { id, count: 1, bestRank: rank });
    }
  });
  if (citations.size === 0) return [];
  if (question) {
    const pool = topCitations(citations.values(), maxChunks * SIMILARITY_POOL);
    return bySimilarity(stores, scope, pool, followers ? followersOf(pool) : [], question, maxChunks, allowed);
  }
  const ranked = topCitations(citations.values(), maxChunks);
  const { chunks, origins } = await retrievalReadsOf(stores).chunksWithOrigins(
    scope,
    ranked.map((c) => c.id),
  );
  const kept = chunks.filter((r) => !allowed || allowed.has(r.document_id));
  const top = kept.length ? (citations.get(kept[0].id)?.count ?? 1) : 1;
  return kept.map((record) => ({ record, score: (citations.get(record.id)?.count ?? 0) / top, origin: originOf(origins, record) }));
}

function originOf(origins: Map<string, DocumentTitle>, record: ChunkRecord): DocumentTitle {
  return origins.get(record.document_id) ?? { title: '', file_path: '' };
}

/**
 * The chunk after each pooled one, when not pooled itself. An entity is cited by the chunk that names it, and what
 * the text says of it often goes on past that chunk's end (a heading or a term introduced near the end, explained
 * in the next chunk): ranked by similarity with the cited ones, the follower is kept when it answers better.
 */
function followersOf(pool: Citation[]): string[] {
  const pooled = new Set(pool.map((c) => c.id));
  const out = new Set<string>();
  for (const { id } of pool) {
    const next = followingChunkId(id);
    if (next !== null && !pooled.has(next)) out.add(next);
  }
  return [...out];
}

/**
 * The cited chunks and their `followers` best first by cosine to the question; cited chunks without a vector follow
 * in citation order (a follower without one is left out: it may not exist, and nothing cites it).
 */
async function bySimilarity(
  stores: Stores,
  scope: Scope,
  pool: Citation[],
  followers: string[],
  question: number[],
  maxChunks: number,
  allowed: Set<string> | null,
): Promise<ScoredChunk[]> {
  const reads = retrievalReadsOf(stores);
  const ids = [...pool.map((c) => c.id), ...followers];
  // The best maxChunks of the pool: scored chunks come first in the order below, so the rest never show.
  const found = await reads.chunkHits(scope, question, maxChunks, { filter: { ids }, minScore: -Infinity });
  const scored = new Map(found.hits.map((h) => [h.record.id, h.score]));
  const records = new Map(found.hits.map((h) => [h.record.id, h.record]));
  const origins = new Map(found.origins);
  const order = [...found.hits.map((h) => h.record.id), ...pool.filter((c) => !scored.has(c.id)).map((c) => c.id)].slice(0, maxChunks);
  // Chunks without a vector (or whose vector has no record) follow in citation order: read on their own.
  const unread = order.filter((id) => !records.has(id));
  if (unread.length) {
    const more = await reads.chunksWithOrigins(scope, unread);
    for (const record of more.chunks) records.set(record.id, record);
    for (const [id, origin] of more.origins) origins.set(id, origin);
  }
  const out: ScoredChunk[] = [];
  for (const id of order) {
    const record = records.get(id);
    if (record && (!allowed || allowed.has(record.document_id)))
      out.push({ record, score: scored.get(id) ?? 0, origin: originOf(origins, record) });
  }
  return out;
}

/** Most cited first, then by the rank of the best item citing them, then by id. */
function byCitation(a: Citation, b: Citation): number {
  return b.count - a.count || a.bestRank - b.bestRank || compare(a.id, b.id);
}

/** The best k citations in order: popular entities cite thousands of chunks, of which a query keeps a few dozen. */
function topCitations(all: Iterable<Citation>, k: number): Citation[] {
  return firstK(all, k, byCitation);
}

/** Reciprocal-rank fusion constant (the usual 60): damps the advantage of the very first ranks. */
const RRF_K = 60;

/** Mix mode: graph-derived and vector chunks fused by reciprocal rank; score is the fused value. */
export function fuseChunks(lists: ReadonlyArray<readonly ScoredChunk[]>, maxChunks: number): ScoredChunk[] {
  return fuseByRank(lists, (c) => c.record.id, maxChunks).map((c) => ({ record: c.record, score: c.score, origin: c.origin }));
}

/** Ranked lists fused by reciprocal rank (the first list's item kept for a key); score is the fused value. */
export function fuseByRank<T extends { score: number }>(lists: ReadonlyArray<readonly T[]>, key: (item: T) => string, limit: number): T[] {
  const fused = new Map<string, T>();
  for (const list of lists) {
    list.forEach((item, rank) => {
      const gain = 1 / (RRF_K + rank + 1);
      const id = key(item);
      const seen = fused.get(id);
      if (seen) seen.score += gain;
      else fused.set(id, { ...item, score: gain });
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || compare(key(a), key(b))).slice(0, limit);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
