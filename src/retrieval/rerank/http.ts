import { z } from 'zod';
import type { RerankCandidate, Reranker, RerankResult } from './types';

const responseSchema = z.object({
  results: z.array(z.object({ index: z.number().int().min(0), relevance_score: z.number() })),
});

export interface HttpRerankerOptions {
  name: string;
  url: string;
  apiKey: string | null;
  model: string;
  timeoutMs: number;
}

/**
 * A reranking API in the Cohere/Jina shape: `POST {url}` with `{model, query, documents, top_n}` answering
 * `{results: [{index, relevance_score}]}`.
 */
export function createHttpReranker(options: HttpRerankerOptions): Reranker {
  return {
    name: options.name,
    async rerank(query: string, candidates: readonly RerankCandidate[], topK: number, signal?: AbortSignal): Promise<RerankResult[]> {
      if (candidates.length === 0 || topK <= 0) return [];
      const timeout = AbortSignal.timeout(options.timeoutMs);
      const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
      if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`;
      const response = await fetch(options.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          model: options.model,
          query,
          documents: candidates.map((c) => c.text),
          top_n: Math.min(topK, candidates.length),
        }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      if (!response.ok) throw new Error(`${options.name} reranker answered HTTP ${response.status}`);
      const parsed = responseSchema.safeParse(await response.json());
      if (!parsed.success) throw new Error(`${options.name} reranker answered an unexpected body`);
      const seen = new Set<number>();
      return parsed.data.results
        .filter((r) => r.index < candidates.length && !seen.has(r.index) && seen.add(r.index))
        .map((r) => ({ index: r.index, score: r.relevance_score }))
        .sort((a, b) => b.score - a.score || a.index - b.index)
        .slice(0, topK);
    },
  };
}
