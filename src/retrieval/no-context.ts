import type { ChatMessage, LlmProvider } from '../llm/ports';
import { type Generation, type GenerationOptions, generate, streamGeneration } from './generate';
import { type QueryMode, recipeOf } from './recipes';
import type { RetrievedContext } from './types';

/**
 * No context, no invented answer (docs/api.md §4.3 "When nothing is found"): when retrieval found nothing above
 * its similarity cut-off, the answer is a fixed response (SERVICE_NO_CONTEXT_RESPONSE) and no model is asked.
 * Bypass mode, which retrieves nothing by design, always asks the model.
 */

/** What of a query plan (./service.ts) the choice needs. */
interface QueryPlan {
  llm: LlmProvider;
  retrieval: { mode: QueryMode };
  noContextResponse: string;
}

export const DEFAULT_NO_CONTEXT_RESPONSE =
  'The knowledge base has no information about this, so I cannot answer it from the documents. ' +
  'Try other words, or add documents that cover it.';

/** The fixed response when the plan's retrieval found nothing; null when the model is to answer. */
export function noContextResponse(plan: QueryPlan, context: RetrievedContext): string | null {
  if (recipeOf(plan.retrieval.mode).llmOnly || context.contextText) return null;
  return plan.noContextResponse;
}

function fixedGeneration(text: string): Generation {
  return { text, usage: { input_tokens: 0, output_tokens: 0 }, ms: 0, no_context: true };
}

/** The model's answer, or the fixed response without a model call when nothing was found. */
export function answerFromContext(
  plan: QueryPlan,
  context: RetrievedContext,
  messages: ChatMessage[],
  options: GenerationOptions,
): Promise<Generation> {
  const fixed = noContextResponse(plan, context);
  return fixed === null ? generate(plan.llm, messages, options) : Promise.resolve(fixedGeneration(fixed));
}

/** streamGeneration, or the fixed response as a single fragment when nothing was found. */
export async function* streamFromContext(
  plan: QueryPlan,
  context: RetrievedContext,
  messages: ChatMessage[],
  options: GenerationOptions,
  partial: { text: string } = { text: '' },
): AsyncGenerator<string, Generation, void> {
  const fixed = noContextResponse(plan, context);
  if (fixed === null) return yield* streamGeneration(plan.llm, messages, options, partial);
  partial.text = fixed;
  yield fixed;
  return fixedGeneration(fixed);
}
