import type { AppConfig } from '../../config/types';
import { InvalidInputError } from '../../domain/errors';
import type { Scope } from '../../domain/types';
import type { LlmCache } from '../../llm/cache/responses';
import type { LlmProvider, ProviderRegistry } from '../../llm/ports';
import { countTokens } from '../../llm/tokens';
import {
  type Generation,
  type GenerationOptions,
  NO_CONTEXT,
  planQuery,
  promptOf,
  type QueryPlan,
  type Reranker,
  resolveLlm,
  retrieve,
  type RetrievedContext,
  streamFromContext,
  streamGeneration,
} from '../../retrieval';
import type { Stores } from '../../store/ports';
import type { Logger } from '../../logger';
import type { LoadedModels } from './keep-alive';
import { type CompatMode, describeModel, type ModelRef, resolveModel } from './models';
import { type CompatMessage, directMessages, ragTurnOf, splitModePrefix } from './turns';

/** Sampling settings of a compatibility request; a provider ignores those it does not support. */
export interface SamplingSettings {
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  seed?: number;
  stop?: string[];
  json?: boolean;
}

export interface TurnRequest {
  /** The name as the client sent it (a `@workspace` suffix was applied to the scope already). */
  model: string;
  messages: CompatMessage[];
  settings: SamplingSettings;
  /** Milliseconds the model stays listed by `/api/ps`. */
  keepAliveMs: number;
  /** The request field that holds the question, named by errors (`messages`, `prompt`). */
  field: string;
}

/** Durations of one answer in nanoseconds, as a local runtime reports them. */
export interface AnswerDurations {
  total_ns: number;
  /** Until generation started: model resolution, keywords, embedding, retrieval. */
  load_ns: number;
  /** From the start of generation to the first fragment. */
  prompt_eval_ns: number;
  /** From the first fragment to the last. */
  eval_ns: number;
}

export interface CompatAnswer {
  text: string;
  /** `length` when the answer stopped at the client's token limit. */
  finishReason: 'stop' | 'length';
  promptTokens: number;
  completionTokens: number;
  durations: AnswerDurations;
  /** The mode that answered, or `direct` when a provider model answered the conversation as it is. */
  mode: CompatMode | 'direct';
  llm: { provider: string; model: string };
  /** Retrieval found nothing: the text is the "no context" response and no model was asked. */
  noContext?: boolean;
}

/** `no_context: true` on the last object of an answer that is the "no context" response (Ollama and OpenAI shapes). */
export function noContextMark(answer: CompatAnswer): { no_context?: true } {
  return answer.noContext ? { no_context: true } : {};
}

/** A checked request: nothing has run yet; `run` yields the answer's fragments and returns the whole answer. */
export interface PreparedTurn {
  model: ModelRef;
  run(signal: AbortSignal): AsyncGenerator<string, CompatAnswer, void>;
}

export interface AnswerDeps {
  config: AppConfig;
  stores: Stores;
  providers: ProviderRegistry;
  reranker: Reranker | null;
  llmCache: LlmCache;
  loaded: LoadedModels;
  log?: Pick<Logger, 'warn'>;
}

/**
 * Resolves the model and maps the conversation (docs/api.md §4.12): a RAG model answers by retrieval in the mode
 * of the question's prefix, else of its name; a provider model answers the conversation as it is, unless a
 * prefix asks for retrieval, which it then answers. Bad requests are refused here, before any stream opens.
 */
export function prepareTurn(deps: AnswerDeps, scope: Scope, req: TurnRequest): PreparedTurn {
  const startedAt = performance.now();
  const ref = resolveModel(deps.config, req.model);
  if (ref.kind === 'provider' && ref.type === 'embedding') {
    throw InvalidInputError.field('model', `"${req.model}" is an embedding model; it does not support chat or generate`);
  }
  const lastUser = [...req.messages].reverse().find((m) => m.role === 'user');
  const prefixed = lastUser ? splitModePrefix(lastUser.content).mode !== null : false;
  const prepared =
    ref.kind === 'provider' && !prefixed ? prepareDirect(deps, ref, req, startedAt) : prepareRag(deps, scope, ref, req, startedAt);
  deps.loaded.touch(scope, describeModel(deps.config, ref).name, req.keepAliveMs);
  return prepared;
}

function prepareDirect(deps: AnswerDeps, ref: Extract<ModelRef, { kind: 'provider' }>, req: TurnRequest, startedAt: number): PreparedTurn {
  const messages = directMessages(req.messages, req.field);
  const llm = resolveLlm(deps.providers, ref.provider, ref.model);
  return {
    model: ref,
    async *run(signal) {
      const options = { task: undefined, ...samplingOf(req.settings), signal };
      const timing = { startedAt, loadedAt: performance.now(), extraPromptTokens: 0 };
      return yield* generateTimed(llm, streamGeneration(llm, messages, options), timing, req, 'direct');
    },
  };
}

function prepareRag(deps: AnswerDeps, scope: Scope, ref: ModelRef, req: TurnRequest, startedAt: number): PreparedTurn {
  const turn = ragTurnOf(req.messages, req.field);
  const mode: CompatMode = turn.prefixMode ?? (ref.kind === 'rag' ? ref.mode : 'hybrid');
  const plan = planQuery(
    deps.providers,
    scope,
    {
      query: turn.query,
      mode: mode === 'context' ? 'hybrid' : mode,
      conversation_history: turn.history,
      system_prompt: turn.systemPrompt,
      llm_provider: ref.kind === 'provider' ? ref.provider : null,
      llm_model: ref.kind === 'provider' ? ref.model : null,
      temperature: req.settings.temperature,
      max_tokens: req.settings.maxTokens,
    },
    deps.config,
  );
  return {
    model: ref,
    async *run(signal) {
      const context = await retrieve(
        { stores: deps.stores, embedder: deps.providers.embedding(), reranker: deps.reranker, llmCache: deps.llmCache, log: deps.log },
        { ...plan.retrieval, signal },
      );
      const loadedAt = performance.now();
      if (mode === 'context') return yield* contextOnly(plan, context, { startedAt, loadedAt });
      const options = {
        ...samplingOf(req.settings),
        task: 'chat' as const,
        temperature: plan.temperature,
        maxTokens: plan.maxTokens,
        signal,
      };
      const timing = { startedAt, loadedAt, extraPromptTokens: context.keywordTokens };
      return yield* generateTimed(plan.llm, streamFromContext(plan, context, promptOf(plan, context), options), timing, req, mode);
    },
  };
}

/** `/context`: the retrieved context is the answer. */
async function* contextOnly(
  plan: QueryPlan,
  context: RetrievedContext,
  timing: { startedAt: number; loadedAt: number },
): AsyncGenerator<string, CompatAnswer, void> {
  const text = context.contextText || `${NO_CONTEXT} for this question.`;
  yield text;
  const end = performance.now();
  return {
    text,
    finishReason: 'stop',
    promptTokens: countTokens(plan.retrieval.query) + context.keywordTokens,
    completionTokens: countTokens(text),
    durations: durationsOf(timing.startedAt, timing.loadedAt, end, end),
    mode: 'context',
    llm: { provider: plan.llm.provider, model: plan.llm.model },
  };
}

async function* generateTimed(
  llm: LlmProvider,
  fragments: AsyncGenerator<string, Generation, void>,
  timing: { startedAt: number; loadedAt: number; extraPromptTokens: number },
  req: TurnRequest,
  mode: CompatAnswer['mode'],
): AsyncGenerator<string, CompatAnswer, void> {
  let first: number | null = null;
  let generation: Generation | null = null;
  try {
    for (;;) {
      const next = await fragments.next();
      if (next.done) {
        generation = next.value;
        break;
      }
      first ??= performance.now();
      yield next.value;
    }
  } finally {
    // The consumer stopped reading (the client left): end the model's stream too.
    if (!generation) await fragments.return(undefined as never).catch(() => undefined);
  }
  const end = performance.now();
  const completionTokens = generation.usage.output_tokens;
  const limit = req.settings.maxTokens;
  return {
    text: generation.text,
    finishReason: limit !== undefined && completionTokens >= limit ? 'length' : 'stop',
    promptTokens: generation.usage.input_tokens + timing.extraPromptTokens,
    completionTokens,
    durations: durationsOf(timing.startedAt, timing.loadedAt, first ?? end, end),
    mode,
    llm: { provider: llm.provider, model: llm.model },
    ...(generation.no_context ? { noContext: true } : {}),
  };
}

function samplingOf(s: SamplingSettings): Omit<GenerationOptions, 'task'> {
  const out: Omit<GenerationOptions, 'task'> = {};
  if (s.temperature !== undefined) out.temperature = s.temperature;
  if (s.maxTokens !== undefined) out.maxTokens = s.maxTokens;
  if (s.topP !== undefined) out.topP = s.topP;
  if (s.seed !== undefined) out.seed = s.seed;
  if (s.stop?.length) out.stop = s.stop;
  if (s.json) out.json = true;
  return out;
}

const ns = (ms: number) => Math.max(0, Math.round(ms * 1e6));

function durationsOf(startedAt: number, loadedAt: number, firstAt: number, end: number): AnswerDurations {
  return {
    total_ns: ns(end - startedAt),
    load_ns: ns(loadedAt - startedAt),
    prompt_eval_ns: ns(firstAt - loadedAt),
    eval_ns: ns(end - firstAt),
  };
}

/** Runs a prepared turn to its end: the answer of a request that does not stream. */
export async function completeTurn(turn: PreparedTurn, signal: AbortSignal): Promise<CompatAnswer> {
  const run = turn.run(signal);
  for (;;) {
    const next = await run.next();
    if (next.done) return next.value;
  }
}
