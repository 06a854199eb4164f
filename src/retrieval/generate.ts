import { UnavailableError, isDomainError } from '../domain/errors';
import { isAbortError, throwIfAborted } from '../domain/abort';
import type { ChatMessage, CompletionOptions, LlmProvider, TokenUsage } from '../llm/ports';
import type { PromptTask } from '../llm/tasks';
import { countTokens } from '../llm/tokens';

/** The options of a generation; sampling settings a provider does not support are ignored by it. */
export interface GenerationOptions extends Pick<CompletionOptions, 'topP' | 'stop' | 'seed' | 'json'> {
  /** Undefined when the prompt is a client's own, which the model reads as it is. */
  task: PromptTask | undefined;
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
}

export interface Generation {
  text: string;
  usage: TokenUsage;
  /** Wall time of the model call, in ms (fractional). */
  ms: number;
  /** The fixed "no context" response: retrieval found nothing and no model was asked (./no-context.ts). */
  no_context?: boolean;
}

export async function generate(llm: LlmProvider, messages: ChatMessage[], options: GenerationOptions): Promise<Generation> {
  const started = performance.now();
  try {
    const completion = await llm.complete(messages, options);
    return { text: completion.text, usage: usageOf(completion.usage, messages, completion.text), ms: performance.now() - started };
  } catch (err) {
    throw modelFailure(llm, err);
  }
}

/**
 * Yields the answer's fragments and returns the whole generation. `partial.text` holds what was produced so
 * far, so that a caller can keep a half answer when the model fails or the client leaves.
 */
export async function* streamGeneration(
  llm: LlmProvider,
  messages: ChatMessage[],
  options: GenerationOptions,
  partial: { text: string } = { text: '' },
): AsyncGenerator<string, Generation, void> {
  const started = performance.now();
  const iterator = llm.stream(messages, options);
  let finished = false;
  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done) {
        finished = true;
        return { text: partial.text, usage: usageOf(next.value, messages, partial.text), ms: performance.now() - started };
      }
      if (!next.value) continue;
      partial.text += next.value;
      yield next.value;
      // The client may have gone while the fragment was written: stop asking the model for more.
      throwIfAborted(options.signal);
    }
  } catch (err) {
    throw modelFailure(llm, err);
  } finally {
    // A failure, or a consumer that stopped reading: the provider's stream (and its concurrency slot) ends here.
    if (!finished) await iterator.return?.(undefined as unknown as TokenUsage).catch(() => undefined);
  }
}

/** Providers that report no usage still get honest counts. */
function usageOf(usage: TokenUsage | undefined, messages: ChatMessage[], text: string): TokenUsage {
  return {
    input_tokens: usage?.input_tokens || messages.reduce((n, m) => n + countTokens(m.content), 0),
    output_tokens: usage?.output_tokens || countTokens(text),
  };
}

/** Aborts stay aborts (nobody is listening); any other failure of the model is a 503 naming it. */
export function modelFailure(llm: LlmProvider, err: unknown): unknown {
  if (isAbortError(err) || isDomainError(err)) return err;
  const reason = err instanceof Error ? err.message : String(err);
  return new UnavailableError(`the language model ${llm.provider}/${llm.model} failed: ${reason.slice(0, 300)}`, 'llm');
}
