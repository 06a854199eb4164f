import type { ChatMessage, CompletionOptions, LlmProvider, ProviderRegistry, TokenUsage } from '../llm/ports';

/**
 * What a piece of ingestion work cost in LLM calls, by kind: the calls that reached the provider (answers from the
 * response cache cost nothing and are not counted) and their tokens. Every LLM of the work is taken from a registry
 * that counts (`tallyingProviders`), so no call escapes the count, whichever stage makes it.
 */

export type CallKind = 'extraction' | 'gleaning' | 'summary' | 'resolution' | 'community_report' | 'other';

export const CALL_KINDS: readonly CallKind[] = ['extraction', 'gleaning', 'summary', 'resolution', 'community_report', 'other'];

export interface CallTally {
  calls: Record<CallKind, number>;
  usage: TokenUsage;
}

const KIND_OF_TASK: Record<string, CallKind> = {
  extract: 'extraction',
  glean: 'gleaning',
  summarize: 'summary',
  resolve: 'resolution',
  community_report: 'community_report',
};

export function emptyTally(): CallTally {
  return {
    calls: Object.fromEntries(CALL_KINDS.map((k) => [k, 0])) as Record<CallKind, number>,
    usage: { input_tokens: 0, output_tokens: 0 },
  };
}

export function totalCalls(tally: CallTally): number {
  return CALL_KINDS.reduce((sum, kind) => sum + tally.calls[kind], 0);
}

/** The registry with every LLM counting its provider calls into `tally`. */
export function tallyingProviders(inner: ProviderRegistry, tally: CallTally): ProviderRegistry {
  const count = (options: CompletionOptions | undefined, usage: TokenUsage | undefined) => {
    tally.calls[KIND_OF_TASK[options?.task ?? ''] ?? 'other']++;
    tally.usage.input_tokens += usage?.input_tokens ?? 0;
    tally.usage.output_tokens += usage?.output_tokens ?? 0;
  };
  const wrap = (llm: LlmProvider): LlmProvider => ({
    provider: llm.provider,
    model: llm.model,
    async complete(messages: ChatMessage[], options?: CompletionOptions) {
      const out = await llm.complete(messages, options);
      if (!out.cached) count(options, out.usage);
      return out;
    },
    stream: (messages, options) => llm.stream(messages, options),
  });
  return {
    llm: (provider, model) => wrap(inner.llm(provider, model)),
    embedding: (provider, model, dimension) => inner.embedding(provider, model, dimension),
    hasProvider: (name) => inner.hasProvider(name),
    defaultLlmProviderName: () => inner.defaultLlmProviderName(),
    check: () => inner.check(),
  };
}
