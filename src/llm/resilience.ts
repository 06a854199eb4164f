import { abortReason, isAbortError, raceAbort, sleep } from '../domain/abort';
import { TimeSlicer } from '../domain/turns';
import type { ChatMessage, Completion, CompletionOptions, EmbeddingProvider, LlmProvider, TokenUsage } from './ports';
import { type Semaphore, sharedSemaphore } from './semaphore';
import { countTokens } from './tokens';
import { closeSpan, openSpan, withSpan } from './tracing/spans';
import { currentUsageContext, type UsageRecorder } from './usage';

/**
 * Wraps a provider with a process-wide concurrency limit, a per-attempt timeout and retries of transient
 * failures (exponential backoff with jitter). Streams hold a slot for their whole life and are retried
 * only before their first fragment. Successful calls are reported to the usage recorder.
 */

export interface ResilienceOptions {
  concurrency: number;
  timeoutMs: number;
  retries: number;
  /** Defaults to the process-wide semaphore of the provider's kind. */
  semaphore?: Semaphore;
  /** First backoff delay; doubles per attempt (plus up to the same again of jitter). */
  backoffMs?: number;
  maxBackoffMs?: number;
  recorder?: UsageRecorder;
}

/**
 * Why an attempt's signal fires once the attempt is over, to stop what the provider may still be doing for it.
 * One instance for every attempt: a DOMException takes a stack trace, which every query's embedding paid for.
 */
const ATTEMPT_FINISHED = new DOMException('attempt finished', 'AbortError');

/** The provider did not answer within the timeout. Not retried: a model that took this long will again. */
export class ProviderTimeoutError extends Error {
  override readonly name = 'TimeoutError';
  constructor(
    readonly provider: string,
    readonly model: string,
    readonly timeoutMs: number,
  ) {
    super(`${provider}/${model} did not answer within ${timeoutMs} ms`);
  }
}

/** HTTP-like status of an error from OpenAI/Ollama clients or fetch wrappers, if any. */
export function errorStatus(err: unknown): number | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const e = err as { status?: unknown; statusCode?: unknown; status_code?: unknown; response?: { status?: unknown } };
  const status = e.status ?? e.statusCode ?? e.status_code ?? e.response?.status;
  return typeof status === 'number' ? status : undefined;
}

/** Worth another try: not an abort or timeout, and not a client error other than 408 and 429. */
export function isTransient(err: unknown): boolean {
  if (isAbortError(err) || err instanceof ProviderTimeoutError) return false;
  const status = errorStatus(err);
  if (status !== undefined && status >= 400 && status < 500) return status === 408 || status === 429;
  return true;
}

export function withResilience(provider: LlmProvider, options: ResilienceOptions): LlmProvider;
export function withResilience(provider: EmbeddingProvider, options: ResilienceOptions): EmbeddingProvider;
export function withResilience(provider: LlmProvider | EmbeddingProvider, options: ResilienceOptions): LlmProvider | EmbeddingProvider {
  if ('embed' in provider) return new ResilientEmbeddings(provider, options);
  return new ResilientLlm(provider, options);
}

abstract class Resilient {
  protected readonly semaphore: Semaphore;

  constructor(
    protected readonly options: ResilienceOptions,
    kind: 'llm' | 'embedding',
  ) {
    this.semaphore = options.semaphore ?? sharedSemaphore(kind, options.concurrency);
  }

  protected abstract get label(): { provider: string; model: string };

  /** One slot, one timeout per attempt; retries after backoff outside the slot. */
  protected async run<T>(fn: (signal: AbortSignal) => Promise<T>, caller?: AbortSignal): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const release = await this.semaphore.acquire(caller);
      let failure: unknown;
      const attemptSignal = this.attemptSignal(caller);
      try {
        return await raceAbort(fn(attemptSignal.signal), attemptSignal.signal);
      } catch (err) {
        failure = attemptSignal.translate(err);
      } finally {
        attemptSignal.dispose();
        release();
      }
      if (attempt >= this.options.retries || !isTransient(failure) || caller?.aborted) throw failure;
      await sleep(this.backoff(attempt), caller);
    }
  }

  /** An AbortSignal that fires on the caller's abort or on the timeout (re-armable for streams). */
  protected attemptSignal(caller?: AbortSignal) {
    const controller = new AbortController();
    const { provider, model } = this.label;
    const timeoutMs = this.options.timeoutMs;
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new ProviderTimeoutError(provider, model, timeoutMs));
      }, timeoutMs);
    };
    const onCallerAbort = () => controller.abort(abortReason(caller!));
    if (caller?.aborted) onCallerAbort();
    else caller?.addEventListener('abort', onCallerAbort, { once: true });
    arm();
    return {
      signal: controller.signal,
      rearm: arm,
      pause: () => clearTimeout(timer),
      /** The provider may reject with its own AbortError; report what actually happened. */
      translate: (err: unknown): unknown => {
        if (timedOut) return new ProviderTimeoutError(provider, model, timeoutMs);
        if (caller?.aborted) return abortReason(caller);
        return err;
      },
      dispose: () => {
        clearTimeout(timer);
        caller?.removeEventListener('abort', onCallerAbort);
        if (!controller.signal.aborted) controller.abort(ATTEMPT_FINISHED);
      },
    };
  }

  protected backoff(attempt: number): number {
    const base = this.options.backoffMs ?? 500;
    const delay = Math.min(base * 2 ** attempt, this.options.maxBackoffMs ?? 10_000);
    return delay + Math.random() * delay;
  }

  protected record(kind: 'llm' | 'embedding', usage: TokenUsage, task?: string): void {
    const recorder = this.options.recorder;
    if (!recorder) return;
    try {
      recorder.record({ ...this.label, kind, task, ...usage, ...currentUsageContext(), at: new Date() });
    } catch {
      // Accounting must never fail the call it accounts for.
    }
  }
}

class ResilientLlm extends Resilient implements LlmProvider {
  constructor(
    private readonly inner: LlmProvider,
    options: ResilienceOptions,
  ) {
    super(options, 'llm');
  }

  get provider(): string {
    return this.inner.provider;
  }

  get model(): string {
    return this.inner.model;
  }

  protected get label() {
    return { provider: this.inner.provider, model: this.inner.model };
  }

  async complete(messages: ChatMessage[], options: CompletionOptions = {}): Promise<Completion> {
    // One generation record per call (retries included), with its token counts.
    return withSpan(
      `llm.${options.task ?? 'complete'}`,
      { provider: this.inner.provider, model: this.inner.model, task: options.task },
      async (span) => {
        const result = await this.run((signal) => this.inner.complete(messages, { ...options, signal }), options.signal);
        span?.generation({ model: this.inner.model, input_tokens: result.usage.input_tokens, output_tokens: result.usage.output_tokens });
        this.record('llm', result.usage, options.task);
        return result;
      },
      'generation',
    );
  }

  async *stream(messages: ChatMessage[], options: CompletionOptions = {}): AsyncGenerator<string, TokenUsage, void> {
    const span = openSpan(
      `llm.${options.task ?? 'stream'}`,
      { provider: this.inner.provider, model: this.inner.model, task: options.task, streamed: true },
      'generation',
    );
    let failed: unknown;
    try {
      const usage = yield* this.streamAttempts(messages, options);
      span?.generation({ model: this.inner.model, input_tokens: usage.input_tokens, output_tokens: usage.output_tokens });
      return usage;
    } catch (err) {
      failed = err;
      throw err;
    } finally {
      closeSpan(span, failed);
    }
  }

  private async *streamAttempts(messages: ChatMessage[], options: CompletionOptions): AsyncGenerator<string, TokenUsage, void> {
    const caller = options.signal;
    for (let attempt = 0; ; attempt++) {
      const release = await this.semaphore.acquire(caller);
      const attemptSignal = this.attemptSignal(caller);
      const source = this.inner.stream(messages, { ...options, signal: attemptSignal.signal });
      let yielded = false;
      let finished = false;
      let failure: unknown;
      try {
        for (;;) {
          attemptSignal.rearm();
          const step = await raceAbort(source.next(), attemptSignal.signal);
          // The consumer's time between fragments does not count against the timeout.
          attemptSignal.pause();
          if (step.done) {
            finished = true;
            this.record('llm', step.value, options.task);
            return step.value;
          }
          yielded = true;
          yield step.value;
        }
      } catch (err) {
        failure = attemptSignal.translate(err);
      } finally {
        attemptSignal.dispose();
        release();
        if (!finished) void source.return(undefined as never).catch(() => undefined);
      }
      if (yielded || attempt >= this.options.retries || !isTransient(failure) || caller?.aborted) throw failure;
      await sleep(this.backoff(attempt), caller);
    }
  }
}

class ResilientEmbeddings extends Resilient implements EmbeddingProvider {
  constructor(
    private readonly inner: EmbeddingProvider,
    options: ResilienceOptions,
  ) {
    super(options, 'embedding');
  }

  get provider(): string {
    return this.inner.provider;
  }

  get model(): string {
    return this.inner.model;
  }

  get dimension(): number {
    return this.inner.dimension;
  }

  get batchSize(): number | undefined {
    return this.inner.batchSize;
  }

  protected get label() {
    return { provider: this.inner.provider, model: this.inner.model };
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    return withSpan('embedding', { provider: this.inner.provider, model: this.inner.model, texts: texts.length }, async (span) => {
      const vectors = await this.run((s) => this.inner.embed(texts, s), signal);
      if (this.options.recorder || span) {
        let tokens = 0;
        // A batch of long texts takes a while to count: the count gives way to I/O between texts.
        const slicer = new TimeSlicer();
        for (const t of texts) {
          await slicer.tick();
          tokens += countTokens(t);
        }
        span?.set({ input_tokens: tokens });
        this.record('embedding', { input_tokens: tokens, output_tokens: 0 });
      }
      return vectors;
    });
  }
}
