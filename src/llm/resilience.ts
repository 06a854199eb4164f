import { abortReason, isAbortError, raceAbort, sleep } from '../domain/abort';
import { TimeSlicer } from '../domain/turns';
import { cappedMaxTokens, type LlmBudget } from './budget';
import type {
  ChatMessage,
  Completion,
  CompletionOptions,
  EmbeddingProvider,
  FinishReason,
  LlmProvider,
  StreamEnd,
  TokenUsage,
} from './ports';
import { RepetitionGuard } from './repetition';
import { Semaphore } from './semaphore';
import { taskRank } from './tasks';
import { countMessageTokens, countTokens } from './tokens';
import { closeSpan, openSpan, withSpan } from './tracing/spans';
import { currentUsageContext, type UsageRecorder } from './usage';

/**
 * Wraps a provider with a concurrency limit (its runtime's call slots), a per-attempt timeout and retries of transient
 * failures (exponential backoff with jitter). Streams hold a slot for their whole life and are retried
 * only before their first fragment. Successful calls are reported to the usage recorder.
 *
 * With a `budget` (openai, ollama), completions are streamed too: a call waits at most `idleTimeoutMs` for each
 * fragment and `timeoutMs` in all, so a slow model that keeps writing is never cut by the wait between fragments;
 * a call that reaches the total cap, or stalls after writing, returns what it wrote with finish reason `timeout`;
 * a looping one is stopped early with finish reason `repetition`. Neither is retried: the model wrote, and would
 * again.
 */

export interface ResilienceOptions {
  concurrency: number;
  timeoutMs: number;
  retries: number;
  /** The slots of the provider's kind it shares with the runtime's other providers; one of its own (`concurrency`) without. */
  semaphore?: Semaphore;
  /** LLMs: streamed completions under these caps, and a slot of `modelSemaphore` before the shared one. */
  budget?: LlmBudget;
  modelSemaphore?: Semaphore;
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
    /** `idle`: no fragment came for `timeoutMs`; `total`: the call's total cap was reached. */
    readonly kind: 'idle' | 'total' = 'total',
  ) {
    super(
      kind === 'idle'
        ? `${provider}/${model} wrote nothing for ${timeoutMs} ms`
        : `${provider}/${model} did not answer within ${timeoutMs} ms`,
    );
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

/** Retries, timeouts and slots around a provider `inner`, which answers for its name and model. */
abstract class Resilient<P extends LlmProvider | EmbeddingProvider> {
  protected readonly semaphore: Semaphore;

  constructor(
    protected readonly inner: P,
    protected readonly options: ResilienceOptions,
  ) {
    this.semaphore = options.semaphore ?? new Semaphore(options.concurrency);
  }

  get provider(): string {
    return this.inner.provider;
  }

  get model(): string {
    return this.inner.model;
  }

  protected get label(): { provider: string; model: string } {
    return { provider: this.inner.provider, model: this.inner.model };
  }

  /** A slot of the model's semaphore (when it has one), then of the shared one; `rank` as in ./tasks.ts. */
  protected async acquire(caller?: AbortSignal, rank = 0): Promise<() => void> {
    const model = this.options.modelSemaphore;
    if (!model) return this.semaphore.acquire(caller, rank);
    const releaseModel = await model.acquire(caller, rank);
    try {
      const releaseShared = await this.semaphore.acquire(caller, rank);
      return () => {
        releaseShared();
        releaseModel();
      };
    } catch (err) {
      releaseModel();
      throw err;
    }
  }

  /** One slot, one timeout per attempt; retries after backoff outside the slot. */
  protected async run<T>(fn: (signal: AbortSignal) => Promise<T>, caller?: AbortSignal, rank = 0): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const release = await this.acquire(caller, rank);
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

  /**
   * An AbortSignal that fires on the caller's abort, on the idle timeout (re-armed at each fragment of a stream)
   * or on the total cap (armed once; only with a budget).
   */
  protected attemptSignal(caller?: AbortSignal) {
    const controller = new AbortController();
    const { provider, model } = this.label;
    const budget = this.options.budget;
    const idleMs = budget?.idleTimeoutMs ?? this.options.timeoutMs;
    let timedOut: ProviderTimeoutError | undefined;
    const fire = (error: ProviderTimeoutError) => {
      timedOut ??= error;
      controller.abort(error);
    };
    let idle: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(idle);
      idle = setTimeout(() => fire(new ProviderTimeoutError(provider, model, idleMs, budget ? 'idle' : 'total')), idleMs);
    };
    const total = budget
      ? setTimeout(() => fire(new ProviderTimeoutError(provider, model, budget.timeoutMs, 'total')), budget.timeoutMs)
      : undefined;
    const onCallerAbort = () => controller.abort(abortReason(caller!));
    if (caller?.aborted) onCallerAbort();
    else caller?.addEventListener('abort', onCallerAbort, { once: true });
    arm();
    return {
      signal: controller.signal,
      rearm: arm,
      pause: () => clearTimeout(idle),
      /** The provider may reject with its own AbortError; report what actually happened. */
      translate: (err: unknown): unknown => {
        if (timedOut) return timedOut;
        if (caller?.aborted) return abortReason(caller);
        return err;
      },
      dispose: () => {
        clearTimeout(idle);
        clearTimeout(total);
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

  protected record(kind: 'llm' | 'embedding', usage: StreamEnd, task?: string): void {
    const recorder = this.options.recorder;
    if (!recorder) return;
    try {
      const { input_tokens, output_tokens, finish_reason } = usage;
      const finish = finish_reason ? { finish_reason } : {};
      recorder.record({ ...this.label, kind, task, input_tokens, output_tokens, ...finish, ...currentUsageContext(), at: new Date() });
    } catch {
      // Accounting must never fail the call it accounts for.
    }
  }
}

class ResilientLlm extends Resilient<LlmProvider> implements LlmProvider {
  async complete(messages: ChatMessage[], options: CompletionOptions = {}): Promise<Completion> {
    // One generation record per call (retries included), with its token counts.
    return withSpan(
      `llm.${options.task ?? 'complete'}`,
      { provider: this.inner.provider, model: this.inner.model, task: options.task },
      async (span) => {
        const result = this.options.budget
          ? await this.collect(messages, this.capped(options))
          : await this.run((signal) => this.inner.complete(messages, { ...options, signal }), options.signal, taskRank(options.task));
        span?.generation({ model: this.inner.model, input_tokens: result.usage.input_tokens, output_tokens: result.usage.output_tokens });
        if (result.finish_reason) span?.set({ finish_reason: result.finish_reason });
        // A streamed completion was recorded when its stream ended.
        if (!this.options.budget) this.record('llm', result.usage, options.task);
        return result;
      },
      'generation',
    );
  }

  async *stream(messages: ChatMessage[], options: CompletionOptions = {}): AsyncGenerator<string, StreamEnd, void> {
    const span = openSpan(
      `llm.${options.task ?? 'stream'}`,
      { provider: this.inner.provider, model: this.inner.model, task: options.task, streamed: true },
      'generation',
    );
    let failed: unknown;
    try {
      const end = yield* this.streamAttempts(messages, this.capped(options));
      span?.generation({ model: this.inner.model, input_tokens: end.input_tokens, output_tokens: end.output_tokens });
      return end;
    } catch (err) {
      failed = err;
      throw err;
    } finally {
      closeSpan(span, failed);
    }
  }

  /** The caller's options with the budget's output cap. */
  private capped(options: CompletionOptions): CompletionOptions {
    const maxTokens = cappedMaxTokens(options.maxTokens, this.options.budget?.maxOutputTokens);
    return maxTokens === options.maxTokens ? options : { ...options, maxTokens };
  }

  /** A completion read from the provider's stream under the budget: what the model wrote and why it ended. */
  private async collect(messages: ChatMessage[], options: CompletionOptions): Promise<Completion> {
    let text = '';
    const source = this.streamAttempts(messages, options, { keepOnTimeout: true });
    for (;;) {
      const step = await source.next();
      if (step.done) {
        const { finish_reason, ...usage } = step.value;
        return { text, usage, finish_reason: finish_reason ?? 'stop' };
      }
      text += step.value;
    }
  }

  /**
   * Attempts of one stream. A stream that wrote something and then reached a cap ends with finish reason
   * `timeout` when `keepOnTimeout` (a completion keeps what it wrote), else fails; a looping one ends with
   * `repetition`. Retried only before its first fragment.
   */
  private async *streamAttempts(
    messages: ChatMessage[],
    options: CompletionOptions,
    { keepOnTimeout = false } = {},
  ): AsyncGenerator<string, StreamEnd, void> {
    const caller = options.signal;
    for (let attempt = 0; ; attempt++) {
      const release = await this.acquire(caller, taskRank(options.task));
      const attemptSignal = this.attemptSignal(caller);
      const source = this.inner.stream(messages, { ...options, signal: attemptSignal.signal });
      const guard = this.options.budget ? new RepetitionGuard() : null;
      let written = '';
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
            const end = this.options.budget
              ? { ...step.value, finish_reason: step.value.finish_reason ?? reachedCap(step.value, options) }
              : step.value;
            this.record('llm', end, options.task);
            return end;
          }
          written += step.value;
          yield step.value;
          if (guard?.push(step.value)) return this.cut(messages, written, 'repetition', options.task);
        }
      } catch (err) {
        failure = attemptSignal.translate(err);
      } finally {
        attemptSignal.dispose();
        release();
        if (!finished) void source.return(undefined as never).catch(() => undefined);
      }
      if (keepOnTimeout && written && failure instanceof ProviderTimeoutError) return this.cut(messages, written, 'timeout', options.task);
      if (written || attempt >= this.options.retries || !isTransient(failure) || caller?.aborted) throw failure;
      await sleep(this.backoff(attempt), caller);
    }
  }

  /** The end of a stream stopped before the provider finished: estimated usage, recorded like any call. */
  private cut(messages: ChatMessage[], written: string, finish_reason: FinishReason, task?: string): StreamEnd {
    const end = { input_tokens: countMessageTokens(messages), output_tokens: countTokens(written), finish_reason };
    this.record('llm', end, task);
    return end;
  }
}

/** `length` when the stream wrote as many tokens as it was allowed, else `stop`. */
function reachedCap(usage: TokenUsage, options: CompletionOptions): FinishReason {
  return options.maxTokens !== undefined && options.maxTokens >= 0 && usage.output_tokens >= options.maxTokens ? 'length' : 'stop';
}

class ResilientEmbeddings extends Resilient<EmbeddingProvider> implements EmbeddingProvider {
  get dimension(): number {
    return this.inner.dimension;
  }

  get batchSize(): number | undefined {
    return this.inner.batchSize;
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
