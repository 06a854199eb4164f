import type { LlmProvider } from '../llm/ports';
import type { Generation } from './generate';
import type { QueryMode } from './recipes';
import type { RetrievedContext } from './types';

/** Measured timings and token counts of one answer (docs/api.md §2.4); times in whole ms. */
export interface QueryStats {
  embedding_time_ms: number;
  retrieval_time_ms: number;
  rerank_time_ms: number;
  generation_time_ms: number;
  total_time_ms: number;
  sources_retrieved: number;
  tokens_used: number;
  tokens_per_second: number;
  llm_provider: string;
  llm_model: string;
  /** Where the global part of the context came from (null in modes without one). */
  global_source: 'communities' | 'relationships' | null;
  /** Community reports in the context. */
  community_reports: number;
}

export function queryStats(startedAt: number, context: RetrievedContext, generation: Generation | null, llm: LlmProvider): QueryStats {
  const output = generation?.usage.output_tokens ?? 0;
  const generationTokens = generation ? generation.usage.input_tokens + output : 0;
  return {
    embedding_time_ms: ms(context.timings.embedding_ms),
    retrieval_time_ms: ms(context.timings.retrieval_ms),
    rerank_time_ms: ms(context.timings.rerank_ms),
    generation_time_ms: ms(generation?.ms ?? 0),
    total_time_ms: ms(performance.now() - startedAt),
    sources_retrieved: context.sources.length,
    tokens_used: context.keywordTokens + generationTokens,
    tokens_per_second: generation && generation.ms > 0 ? Math.round((output / generation.ms) * 1000 * 10) / 10 : 0,
    llm_provider: llm.provider,
    llm_model: llm.model,
    global_source: context.globalSource,
    community_reports: context.communities.length,
  };
}

/** The `stats` of a v2 `done` event (docs/api.md §6.1). */
export function streamStats(stats: QueryStats, mode: QueryMode) {
  return {
    retrieval_time_ms: stats.retrieval_time_ms,
    generation_time_ms: stats.generation_time_ms,
    total_time_ms: stats.total_time_ms,
    sources_retrieved: stats.sources_retrieved,
    tokens_used: stats.tokens_used,
    tokens_per_second: stats.tokens_per_second,
    query_mode: mode,
  };
}

function ms(value: number): number {
  return Math.round(value);
}
