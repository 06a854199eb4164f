import type { QueryResult, QueryStats } from '../../retrieval';

/** Query answers with EdgeQuake's names beside the spec's (docs/api.md §4.3, §6.1). */

export function presentStats(stats: QueryStats) {
  return {
    ...stats,
    provider: stats.llm_provider,
    model: stats.llm_model,
    total_tokens: stats.tokens_used,
    retrieval_count: stats.sources_retrieved,
  };
}

export function presentQueryResult(result: QueryResult) {
  return { ...result, stats: presentStats(result.stats) };
}

/** A v2 event: tokens also carry `chunk`, the last event `done: true`, as EdgeQuake's stream readers expect. */
export function presentStreamEvent<E extends { type: string }>(event: E): E | (E & { chunk: string }) | (E & { done: true }) {
  if (event.type === 'token') return { ...event, chunk: (event as unknown as { content: string }).content };
  if (event.type === 'done') return { ...event, done: true };
  return event;
}

/** EdgeQuake's `max_results` is our `max_chunks`. */
export function withRetrievalAliases<B extends { max_chunks?: number; max_results?: number }>(body: B): B {
  return body.max_chunks === undefined && body.max_results !== undefined ? { ...body, max_chunks: body.max_results } : body;
}
