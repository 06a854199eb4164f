export interface RerankCandidate {
  text: string;
  /** The retrieval score (vector similarity, citations or fused rank). */
  score: number;
  /** Length of the text in tokens when already known (saves counting words for BM25). */
  tokens?: number;
}

export interface RerankResult {
  /** Position of the candidate in the list given. */
  index: number;
  score: number;
}

export interface Reranker {
  readonly name: string;
  /** The best `topK` candidates, best first. */
  rerank(query: string, candidates: readonly RerankCandidate[], topK: number, signal?: AbortSignal): Promise<RerankResult[]>;
}
