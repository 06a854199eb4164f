import { termsOf, unique } from '../steps/terms';
import { bm25Scores, minMax } from './bm25';
import type { RerankCandidate, Reranker, RerankResult } from './types';
import { cachedTermStats } from './word-counts';

/** Share of the lexical (BM25) evidence in the final score; the rest is the retrieval score. */
export const LEXICAL_WEIGHT = 0.5;

/**
 * The offline reranker: BM25 of the query over the candidates, min-max normalised and blended with the
 * normalised retrieval score, so that exact term matches lift chunks the vectors ranked lower.
 */
export function createBuiltinReranker(lexicalWeight = LEXICAL_WEIGHT): Reranker {
  return {
    name: 'builtin',
    async rerank(query: string, candidates: readonly RerankCandidate[], topK: number): Promise<RerankResult[]> {
      if (candidates.length === 0 || topK <= 0) return [];
      const terms = unique(termsOf(query));
      const lexical = minMax(
        bm25Scores(
          terms,
          candidates.map((c) => cachedTermStats(c.text, terms, c.tokens)),
        ),
      );
      const retrieval = minMax(candidates.map((c) => c.score));
      return candidates
        .map((_, index) => ({ index, score: lexicalWeight * lexical[index] + (1 - lexicalWeight) * retrieval[index] }))
        .sort((a, b) => b.score - a.score || a.index - b.index)
        .slice(0, topK);
    },
  };
}
