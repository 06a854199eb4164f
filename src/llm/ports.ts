import type { PromptTask } from './tasks';

/** What services see of language and embedding models. Implementations: mock/, langchain adapters. */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface CompletionOptions {
  /** What the prompt asks for (the mock provider answers in that task's format). */
  task?: PromptTask;
  temperature?: number;
  maxTokens?: number;
  /** Nucleus sampling, where the provider supports it. */
  topP?: number;
  /** Sequences that end the output where they would appear. */
  stop?: string[];
  /** Sampling seed, where the provider supports it. */
  seed?: number;
  /** Ask for a JSON object (keyword extraction). */
  json?: boolean;
  signal?: AbortSignal;
}

export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
}

/**
 * Why a generation ended: `stop` the model finished; `length` it reached its output cap; `timeout` it reached the
 * total cap, or stalled after writing something (the text is what it wrote); `repetition` it was looping and was
 * stopped early (the text ends with the loop's first turns).
 */
export type FinishReason = 'stop' | 'length' | 'timeout' | 'repetition';

export interface Completion {
  text: string;
  usage: TokenUsage;
  /** Answered from a response cache: no provider call was made. */
  cached?: boolean;
  /** As the provider reported it (streamed providers: openai, ollama; cached answers keep it); absent when it did not say. */
  finish_reason?: FinishReason;
}

/** What a stream returns when it ends: its usage and, where the server said, why it ended. */
export interface StreamEnd extends TokenUsage {
  finish_reason?: FinishReason;
}

export interface LlmProvider {
  readonly provider: string;
  readonly model: string;
  complete(messages: ChatMessage[], options?: CompletionOptions): Promise<Completion>;
  /** Yields answer fragments; the final usage (and finish reason, where known) is returned when the iterator finishes. */
  stream(messages: ChatMessage[], options?: CompletionOptions): AsyncGenerator<string, StreamEnd, void>;
}

export interface EmbeddingProvider {
  readonly provider: string;
  readonly model: string;
  readonly dimension: number;
  /** Texts per call the provider takes best (batches are cut at this size); 64 when absent. */
  readonly batchSize?: number;
  /** Cosine similarity below which a hit is noise for this model (from the catalog); retrieval's default when absent. */
  readonly similarityThreshold?: number;
  /** Stored texts (chunks, entities, relationships, reports). */
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
  /** Queries; the same as `embed` for models without a query convention (e5 puts "query: " before a query). */
  embedQueries?(texts: string[], signal?: AbortSignal): Promise<number[][]>;
  /**
   * The cosine similarity that unrelated texts reach with this model, measured once (src/llm/calibrate.ts):
   * retrieval's floor when the catalog gives no `similarity_threshold`.
   */
  unrelatedSimilarity?(signal?: AbortSignal): Promise<number>;
}

export interface ProviderRegistry {
  /** The LLM for a provider/model, defaults when omitted. Throws UnknownProviderError for unknown names. */
  llm(provider?: string, model?: string): LlmProvider;
  /** `dimension` for models that serve several (default: the configured or catalog dimension). */
  embedding(provider?: string, model?: string, dimension?: number): EmbeddingProvider;
  hasProvider(name: string): boolean;
  defaultLlmProviderName(): string;
  /** Reachability of each enabled provider, for /models/health and /health. */
  check(): Promise<Array<{ name: string; status: 'healthy' | 'unhealthy'; latency_ms: number; error?: string }>>;
}

export class UnknownProviderError extends Error {
  constructor(
    readonly kind: 'provider' | 'model',
    readonly unknownName: string,
  ) {
    super(`unknown ${kind} '${unknownName}'`);
    this.name = 'UnknownProviderError';
  }
}
