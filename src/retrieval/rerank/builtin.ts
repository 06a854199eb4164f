import { termsOf, unique } from '../steps/terms';
import { bm25Scores, idfOf, minMax } from './bm25';
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
      const passage = proximityScorer(terms, idf);
      const proximity = proximityWeight > 0 ? minMax(candidates.map((c, i) => passage(c.text, stats[i].counts))) : bm25.map(() => 0);
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
