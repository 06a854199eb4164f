import { isWordChar, type TermStats, termStats } from './bm25';

/**
 * Whole-word counts of a text, for BM25 over many candidates. `termStats` scans the whole lower-cased text once
 * per query term; a chunk that comes back as a candidate of many queries is counted once here instead, and each
 * query then looks its terms up. Same counts: a term made only of word characters occurs as a whole word
 * exactly where a maximal run of word characters equals it; any other term is counted by the scan.
 *
 * Counting every word of a chunk costs about six scans for a few terms, so a text is scanned the first time it
 * comes and counted the second: chunks that come back (the hubs' chunks, repeated questions) are counted once,
 * the many that a stream of new questions meets once are only scanned.
 */
interface WordCounts {
  /** Maximal runs of word characters of the lower-cased text, with their number of occurrences. */
  runs: Map<string, number>;
  /** Runs of two or more characters: the text's length in words. */
  words: number;
}

/** Texts counted, least recently used first; keyed by the text itself (the key is the stored string, not a copy). */
const counted = new Map<string, WordCounts>();
/** Two thousand chunks of ~1,000 words (a few hundred distinct): some tens of megabytes at most. */
export const WORD_COUNTS_CACHE_SIZE = 2048;
/**
 * Texts met once and not counted, oldest first (references to the stored strings). Half the cache's size: a text
 * must come back within the last thousand first meetings to be counted. With a stream of new questions on the
 * 10,000-chunk bench corpus (25 candidates a query), 4,096 counted 14,217 texts most of which left the cache
 * unused; 1,024 counts 5,338 for 1 % fewer hits, 256 misses a quarter of the hits.
 */
const metOnce = new Set<string>();
export const MET_ONCE_SIZE = 1024;

/** Same answer as `termStats(text, terms, knownLength)`; `terms` lower-case. */
export function cachedTermStats(text: string, terms: readonly string[], knownLength?: number): TermStats {
  const entry = wordCountsOf(text);
  if (!entry) return termStats(text, terms, knownLength);
  const counts = terms.map((term) => (isWordRun(term) ? (entry.runs.get(term) ?? 0) : termStats(text, [term], 0).counts[0]));
  return { counts, length: knownLength ?? entry.words };
}

/** Whether the words of `text` are counted and held (it came at least twice, recently). */
export function wordCountsHeld(text: string): boolean {
  return counted.has(text);
}

/** The held counts of `text`; counted now if it came once before; null the first time. */
function wordCountsOf(text: string): WordCounts | null {
  const hit = counted.get(text);
  if (hit) {
    counted.delete(text);
    counted.set(text, hit);
    return hit;
  }
  if (!metOnce.delete(text)) {
    if (metOnce.size >= MET_ONCE_SIZE) metOnce.delete(metOnce.values().next().value as string);
    metOnce.add(text);
    return null;
  }
  const entry = countWords(text);
  if (counted.size >= WORD_COUNTS_CACHE_SIZE) counted.delete(counted.keys().next().value as string);
  counted.set(text, entry);
  return entry;
}

export function countWords(text: string): WordCounts {
  const lower = text.toLowerCase();
  const runs = new Map<string, number>();
  let words = 0;
  let start = -1;
  for (let i = 0; i <= lower.length; i++) {
    if (i < lower.length && isWordChar(lower.charCodeAt(i))) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      const run = lower.slice(start, i);
      runs.set(run, (runs.get(run) ?? 0) + 1);
      if (i - start >= 2) words++;
      start = -1;
    }
  }
  return { runs, words };
}

function isWordRun(term: string): boolean {
  if (term.length === 0) return false;
  for (let i = 0; i < term.length; i++) if (!isWordChar(term.charCodeAt(i))) return false;
  return true;
}
