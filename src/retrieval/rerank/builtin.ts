import { termsOf, unique } from '../steps/terms';
import { bm25Scores, idfOf, minMax, type TermStats } from './bm25';
import { proximityScorer } from './proximity';
import type { RerankCandidate, Reranker, RerankResult } from './types';
import { cachedTermStats } from './word-counts';

/** Share of the lexical evidence in the final score; the rest is the retrieval score. */
export const LEXICAL_WEIGHT = 0.5;
/** Share of the lexical evidence that is proximity (the query's terms within one passage); the rest is BM25. */
export const PROXIMITY_WEIGHT = 0.5;

/**
 * The offline reranker: BM25 of the query over the candidates and the share of the query one passage of each
 * answers, min-max normalised and blended with the normalised retrieval score, so that exact term matches, and
 * above all the query's terms together, lift chunks the vectors ranked lower.
 */
export function createBuiltinReranker(lexicalWeight = LEXICAL_WEIGHT, proximityWeight = PROXIMITY_WEIGHT): Reranker {
  return {
    name: 'builtin',
    async rerank(query: string, candidates: readonly RerankCandidate[], topK: number): Promise<RerankResult[]> {
      if (candidates.length === 0 || topK <= 0) return [];
      const terms = unique(termsOf(query));
      const stats = candidates.map((c) => cachedTermStats(c.text, terms, c.tokens));
      const idf = idfOf(terms, stats);
      const bm25 = minMax(bm25Scores(terms, stats, idf));
      const proximity = proximityWeight > 0 ? minMax(proximityScores(terms, idf, candidates, stats)) : bm25.map(() => 0);
      const retrieval = minMax(candidates.map((c) => c.score));
      return candidates
        .map((_, index) => {
          const lexical = (1 - proximityWeight) * bm25[index] + proximityWeight * proximity[index];
          return { index, score: lexicalWeight * lexical + (1 - lexicalWeight) * retrieval[index] };
        })
        .sort((a, b) => b.score - a.score || a.index - b.index)
        .slice(0, topK);
    },
  };
}

/**
 * Each candidate's proximity score. A text that holds at most one of the terms is not read again: its one passage
 * is that term.
 */
function proximityScores(
  terms: readonly string[],
  idf: readonly number[],
  candidates: readonly RerankCandidate[],
  stats: readonly TermStats[],
): number[] {
  const total = idf.reduce((sum, w) => sum + w, 0);
  const passage = proximityScorer(terms, idf);
  return candidates.map((c, i) => {
    const present = stats[i].counts.reduce((n, count) => (count > 0 ? n + 1 : n), 0);
    if (present === 0 || total <= 0) return 0;
    if (present === 1) return idf[stats[i].counts.findIndex((count) => count > 0)] / total;
    return passage(c.text);
  });
}
