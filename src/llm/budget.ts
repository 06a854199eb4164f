import type { AppConfig, CallBudget, CatalogProvider } from '../config/types';

/**
 * What one LLM call may spend: the model's catalog `budget`, else its provider's, else the provider type's
 * default. A local runtime serves one request at a time and writes 10–60 tokens/s on a CPU, so it gets one
 * slot, a shorter output cap and a longer total cap; the wait between two fragments (the idle timeout) is what
 * tells a stalled model from a slow one.
 */
export interface LlmBudget {
  /** Output cap of one call; a caller's smaller maxTokens wins. Undefined: the caller's. */
  maxOutputTokens?: number;
  /** Total cap of one call, fragments or not. */
  timeoutMs: number;
  /** Longest wait for the first fragment and between two fragments. */
  idleTimeoutMs: number;
  /** Calls to this model at once. */
  concurrency: number;
}

/** Ollama serves one request per model at a time unless its OLLAMA_NUM_PARALLEL says otherwise. */
const LOCAL_CONCURRENCY = 1;
const LOCAL_MAX_OUTPUT_TOKENS = 1024;
/** 1024 tokens at 10 tokens/s, a long prompt's evaluation and a model load, with room to spare. */
const LOCAL_TIMEOUT_MS = 600_000;
/** Hosted APIs: the total cap of a call, fragments or not. */
const HOSTED_TIMEOUT_MS = 600_000;

export function llmBudget(config: AppConfig, provider: CatalogProvider, model: string): LlmBudget {
  const listed = provider.models.find((m) => m.name === model)?.budget;
  const pick = <K extends keyof CallBudget>(key: K): CallBudget[K] => listed?.[key] ?? provider.budget?.[key];
  const idle = config.ingest.llmTimeoutMs;
  const defaults: LlmBudget =
    provider.type === 'ollama'
      ? { maxOutputTokens: LOCAL_MAX_OUTPUT_TOKENS, timeoutMs: LOCAL_TIMEOUT_MS, idleTimeoutMs: idle, concurrency: LOCAL_CONCURRENCY }
      : provider.type === 'openai'
        ? { timeoutMs: Math.max(HOSTED_TIMEOUT_MS, idle), idleTimeoutMs: idle, concurrency: config.ingest.llmConcurrency }
        : // The mock answers at once: one timeout, as before budgets existed.
          { timeoutMs: idle, idleTimeoutMs: idle, concurrency: config.ingest.llmConcurrency };
  return {
    maxOutputTokens: pick('max_output_tokens') ?? defaults.maxOutputTokens,
    timeoutMs: pick('timeout_ms') ?? defaults.timeoutMs,
    idleTimeoutMs: pick('idle_timeout_ms') ?? defaults.idleTimeoutMs,
    concurrency: pick('concurrency') ?? defaults.concurrency,
  };
}

/** The smaller of the caller's output cap and the budget's. */
export function cappedMaxTokens(requested: number | undefined, budget: number | undefined): number | undefined {
  if (requested === undefined || requested < 0) return budget;
  if (budget === undefined) return requested;
  return Math.min(requested, budget);
}
