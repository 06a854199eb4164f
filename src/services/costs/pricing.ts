import type { CatalogModel, ModelCatalog } from '../../config/types';
import type { CostCategory } from '../../domain/costs';
import type { UsageEvent } from '../../llm/usage';

/** Prices from the model catalog (`[providers.models.cost]`, US dollars per 1,000 tokens). */

export function catalogModel(catalog: ModelCatalog, provider: string, model: string): CatalogModel | null {
  return catalog.providers.find((p) => p.name === provider)?.models.find((m) => m.name === model) ?? null;
}

/**
 * The price of one call: input and output tokens at the LLM rates, or the input tokens at the embedding rate. A model
 * the catalog does not list (an unlisted model of an OpenAI-compatible or Ollama provider) costs nothing.
 */
export function priceOf(
  catalog: ModelCatalog,
  e: Pick<UsageEvent, 'provider' | 'model' | 'kind' | 'input_tokens' | 'output_tokens'>,
): number {
  const cost = catalogModel(catalog, e.provider, e.model)?.cost;
  if (!cost) return 0;
  if (e.kind === 'embedding') return (e.input_tokens / 1000) * cost.embedding_per_1k;
  return (e.input_tokens / 1000) * cost.input_per_1k + (e.output_tokens / 1000) * cost.output_per_1k;
}

/** The operation a call is recorded under, from the task its caller named. */
const OPERATIONS: Record<string, string> = {
  extract: 'extraction',
  glean: 'gleaning',
  summarize: 'summary',
  keywords: 'keywords',
  answer: 'answer',
  chat: 'chat',
};

export function operationOf(e: Pick<UsageEvent, 'kind' | 'task'>): string {
  if (e.kind === 'embedding') return 'embedding';
  return (e.task && OPERATIONS[e.task]) ?? e.task ?? 'completion';
}

const QUERY_OPERATIONS = new Set(['keywords', 'answer', 'chat']);

/** Calls made for a query (or a chat) count as queries; the rest of the LLM work as extraction. */
export function categoryOf(e: Pick<UsageEvent, 'kind' | 'task' | 'query_id'>): CostCategory {
  if (e.query_id !== undefined || QUERY_OPERATIONS.has(operationOf(e))) return 'queries';
  return e.kind === 'embedding' ? 'embedding' : 'extraction';
}

/** Rounded to a millionth of a cent: sums of many small calls stay exact enough and print cleanly. */
export function roundUsd(n: number): number {
  return Math.round(n * 1e8) / 1e8;
}
