import type { RerankConfig } from '../../config/types';
import type { Logger } from '../../logger';
import { createBuiltinReranker } from './builtin';
import { createHttpReranker } from './http';
import type { Reranker } from './types';

export type { RerankCandidate, Reranker, RerankResult } from './types';
export { createBuiltinReranker } from './builtin';
export { createHttpReranker } from './http';

const VENDORS = {
  cohere: { url: 'https://api.cohere.com/v2/rerank', model: 'rerank-v3.5' },
  jina: { url: 'https://api.jina.ai/v1/rerank', model: 'jina-reranker-v2-base-multilingual' },
} as const;

const HTTP_TIMEOUT_MS = 10_000;

/**
 * The configured reranker, or null when reranking is off. A remote reranker that fails (down, slow, odd
 * answer) falls back to the built-in one for that query rather than failing the query.
 */
export function createReranker(config: RerankConfig, log: Logger): Reranker | null {
  if (config.provider === 'none') return null;
  const builtin = createBuiltinReranker();
  if (config.provider === 'builtin') return builtin;
  const vendor = VENDORS[config.provider];
  const remote = createHttpReranker({
    name: config.provider,
    url: config.url ?? vendor.url,
    apiKey: config.apiKey,
    model: config.model ?? vendor.model,
    timeoutMs: HTTP_TIMEOUT_MS,
  });
  return {
    name: remote.name,
    async rerank(query, candidates, topK, signal) {
      try {
        return await remote.rerank(query, candidates, topK, signal);
      } catch (err) {
        if (signal?.aborted) throw err;
        log.warn({ err: (err as Error).message, reranker: remote.name }, 'reranker failed; using the built-in reranker');
        return builtin.rerank(query, candidates, topK);
      }
    },
  };
}
