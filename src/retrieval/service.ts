import type { Scope } from '../domain/types';
import type { EventSource } from '../domain/stream';
import type { LlmCache } from '../llm/cache/responses';
import type { ChatMessage, LlmProvider, ProviderRegistry } from '../llm/ports';
import type { Stores } from '../store/ports';
import { answerFromContext, DEFAULT_NO_CONTEXT_RESPONSE, noContextResponse, streamFromContext } from './no-context';
import { ANSWER_PROMPT_VERSION } from '../prompts/answer';
import { resolveLlm } from './model';
import { answerPrompt, renderPrompt } from './prompts/answer';
import { DEFAULT_QUERY_MODE, type QueryMode, recipeOf } from './recipes';
import type { Reranker } from './rerank';
import { retrieve } from './retrieve';
import { type QueryStats, queryStats, streamStats } from './stats';
import { DEFAULT_LIMITS, type DocumentFilter, type QuerySource, type RetrievalRequest, type RetrievedContext } from './types';
import { type SpanHandle, closeSpan, openSpan, runInSpan, withSpan } from '../llm/tracing';
import { countTokens } from '../llm/tokens';
import type { Logger } from '../logger';
import { findPromptOverride, type PromptOverride } from '../prompts/overrides';

/** A query as the API takes it (docs/api.md §4.3); omitted fields take the documented defaults. */
export interface QueryInput {
  query: string;
  mode?: QueryMode;
  context_only?: boolean;
  prompt_only?: boolean;
  enable_rerank?: boolean;
  rerank_top_k?: number;
  conversation_history?: ChatMessage[] | null;
  system_prompt?: string | null;
  document_filter?: DocumentFilter | null;
  llm_provider?: string | null;
  llm_model?: string | null;
  max_entities?: number;
  max_relationships?: number;
  max_chunks?: number;
  temperature?: number;
  max_tokens?: number;
  debug?: boolean;
}

export const QUERY_DEFAULTS = { rerank_top_k: 5, temperature: 0.7, max_tokens: 4096 } as const;

export interface QueryDebug {
  keywords: { high_level: string[]; low_level: string[]; origin: string };
  candidates: { entities: number; relationships: number; chunks: number };
  context_items: { entities: number; relationships: number; chunks: number };
  keywords_time_ms: number;
  reranker: string | null;
}

export interface QueryResult {
  answer: string;
  mode: QueryMode;
  sources: QuerySource[];
  stats: QueryStats;
  reranked: boolean;
  /** Retrieval found nothing: the answer is the fixed "no context" response and no model was asked. */
  no_context: boolean;
  /** Version of the answer prompt (src/prompts/answer.ts). */
  prompt_version: number;
  /** The answer prompt override used (src/prompts/overrides.ts), if one was. */
  prompt_override?: string;
  /** context_only: the context text the model would have been given. */
  context?: string;
  /** prompt_only: the whole prompt. */
  prompt?: string;
  debug?: QueryDebug;
}

export type QueryEvent =
  | { type: 'context'; sources: QuerySource[]; query_mode: QueryMode; retrieval_time_ms: number; no_context: boolean }
  | { type: 'token'; content: string }
  | {
      type: 'done';
      stats: ReturnType<typeof streamStats>;
      llm_provider: string;
      llm_model: string;
      no_context: boolean;
      prompt_version: number;
      context?: string;
      prompt?: string;
    };

export interface QueryServiceDeps {
  stores: Stores;
  providers: ProviderRegistry;
  reranker: Reranker | null;
  llmCache: LlmCache;
  /** The answer when retrieval finds nothing; the built-in one when absent. */
  noContextResponse?: string | null;
  /** Prompt overrides (src/prompts/overrides.ts). */
  promptsDir?: string | null;
  log?: Pick<Logger, 'warn'>;
}

/** What of the configuration shapes an answer: the "no context" response, the prompt overrides. */
export interface AnswerSettings {
  noContextResponse?: string | null;
  promptsDir?: string | null;
}

export interface QueryService {
  answer(scope: Scope, input: QueryInput, signal?: AbortSignal): Promise<QueryResult>;
  /**
   * Checks the request at once (unknown model -> 422, before a stream opens); the events are produced when
   * the returned source is pumped (docs/architecture.md, Streams).
   */
  stream(scope: Scope, input: QueryInput): EventSource<QueryEvent>;
}

/** What a query resolves to before anything runs: the model, the retrieval request, the generation options. */
export interface QueryPlan {
  startedAt: number;
  llm: LlmProvider;
  retrieval: Omit<RetrievalRequest, 'signal'>;
  systemPrompt: string | null;
  temperature: number;
  maxTokens: number;
  /** The answer when retrieval finds nothing. */
  noContextResponse: string;
  /** A file's answer instructions for this workspace or model family, if any. */
  answerOverride: PromptOverride | null;
}

export function planQuery(providers: ProviderRegistry, scope: Scope, input: QueryInput, settings: AnswerSettings = {}): QueryPlan {
  const startedAt = performance.now();
  const llm = resolveLlm(providers, input.llm_provider, input.llm_model);
  return {
    startedAt,
    llm,
    retrieval: {
      scope,
      query: input.query.trim(),
      mode: input.mode ?? DEFAULT_QUERY_MODE,
      history: input.conversation_history ?? [],
      filter: input.document_filter ?? null,
      limits: {
        maxEntities: input.max_entities ?? DEFAULT_LIMITS.maxEntities,
        maxRelationships: input.max_relationships ?? DEFAULT_LIMITS.maxRelationships,
        maxChunks: input.max_chunks ?? DEFAULT_LIMITS.maxChunks,
      },
      rerank: { enabled: input.enable_rerank ?? true, topK: input.rerank_top_k ?? QUERY_DEFAULTS.rerank_top_k },
      llm,
    },
    systemPrompt: input.system_prompt ?? null,
    temperature: input.temperature ?? QUERY_DEFAULTS.temperature,
    maxTokens: input.max_tokens ?? QUERY_DEFAULTS.max_tokens,
    noContextResponse: settings.noContextResponse ?? DEFAULT_NO_CONTEXT_RESPONSE,
    answerOverride: findPromptOverride(settings.promptsDir, 'answer', { workspaceId: scope.workspaceId, model: llm.model }),
  };
}

export function promptOf(plan: QueryPlan, context: RetrievedContext): ChatMessage[] {
  return answerPrompt({
    query: plan.retrieval.query,
    context: context.contextText,
    systemPrompt: plan.systemPrompt,
    history: plan.retrieval.history,
    direct: recipeOf(plan.retrieval.mode).llmOnly,
    override: plan.answerOverride,
  });
}

export function createQueryService(deps: QueryServiceDeps): QueryService {
  const retrieveFor = (plan: QueryPlan, signal?: AbortSignal) =>
    retrieve(
      { stores: deps.stores, embedder: deps.providers.embedding(), reranker: deps.reranker, llmCache: deps.llmCache, log: deps.log },
      { ...plan.retrieval, signal },
    );
  const debugOf = (context: RetrievedContext): QueryDebug => ({
    keywords: { high_level: context.keywords.high, low_level: context.keywords.low, origin: context.keywords.origin },
    candidates: context.candidates,
    context_items: {
      entities: context.entities.length,
      relationships: context.relationships.length,
      chunks: context.chunks.length,
    },
    keywords_time_ms: Math.round(context.timings.keywords_ms),
    reranker: context.reranked ? (deps.reranker?.name ?? null) : null,
  });

  return {
    async answer(scope, input, signal) {
      const plan = planQuery(deps.providers, scope, input, deps);
      return withSpan('query', spanAttributes(plan), () => answerPlan(plan, input, signal));
    },

    stream(scope, input) {
      const plan = planQuery(deps.providers, scope, input, deps);
      return async function* events({ signal }) {
        const span = openSpan('query', { ...spanAttributes(plan), streamed: true });
        let failed: unknown;
        try {
          yield* streamPlan(plan, input, signal, span);
        } catch (err) {
          failed = err;
          throw err;
        } finally {
          closeSpan(span, failed);
        }
      };
    },
  };

  async function answerPlan(plan: QueryPlan, input: QueryInput, signal?: AbortSignal): Promise<QueryResult> {
    const context = await withSpan('query.retrieve', { mode: plan.retrieval.mode }, () => retrieveFor(plan, signal));
    const messages = promptOf(plan, context);
    const skipAnswer = input.context_only || input.prompt_only;
    const generation = skipAnswer
      ? null
      : await withSpan('query.generate', { model: plan.llm.model }, () =>
          answerFromContext(plan, context, messages, { task: 'answer', temperature: plan.temperature, maxTokens: plan.maxTokens, signal }),
        );
    const result: QueryResult = {
      answer: generation?.text ?? '',
      mode: context.mode,
      sources: context.sources,
      stats: queryStats(plan.startedAt, context, generation, plan.llm),
      reranked: context.reranked,
      no_context: noContextResponse(plan, context) !== null,
      prompt_version: ANSWER_PROMPT_VERSION,
      ...(plan.answerOverride ? { prompt_override: plan.answerOverride.id } : {}),
    };
    if (input.context_only) result.context = context.contextText;
    if (input.prompt_only) result.prompt = renderPrompt(messages);
    if (input.debug) result.debug = debugOf(context);
    return result;
  }

  async function* streamPlan(
    plan: QueryPlan,
    input: QueryInput,
    signal: AbortSignal,
    span: SpanHandle | null,
  ): AsyncGenerator<QueryEvent, void, void> {
    const context = await runInSpan(span, () => withSpan('query.retrieve', { mode: plan.retrieval.mode }, () => retrieveFor(plan, signal)));
    yield {
      type: 'context',
      sources: context.sources,
      query_mode: context.mode,
      retrieval_time_ms: Math.round(context.timings.retrieval_ms),
      no_context: noContextResponse(plan, context) !== null,
    };
    const messages = promptOf(plan, context);
    let generation = null;
    if (!input.context_only && !input.prompt_only) {
      const options = { task: 'answer' as const, temperature: plan.temperature, maxTokens: plan.maxTokens, signal };
      const generating = runInSpan(span, () => openSpan('query.generate', { model: plan.llm.model, streamed: true }));
      const fragments = streamFromContext(plan, context, messages, options);
      for (;;) {
        const next = await runInSpan(generating, () => fragments.next()).catch((err: unknown) => {
          closeSpan(generating, err);
          throw err;
        });
        if (next.done) {
          closeSpan(generating);
          generation = next.value;
          break;
        }
        yield { type: 'token', content: next.value };
      }
    }
    const stats = queryStats(plan.startedAt, context, generation, plan.llm);
    yield {
      type: 'done',
      stats: streamStats(stats, context.mode),
      llm_provider: stats.llm_provider,
      llm_model: stats.llm_model,
      no_context: noContextResponse(plan, context) !== null,
      prompt_version: ANSWER_PROMPT_VERSION,
      ...(input.context_only ? { context: context.contextText } : {}),
      ...(input.prompt_only ? { prompt: renderPrompt(messages) } : {}),
    };
  }
}

function spanAttributes(plan: QueryPlan) {
  return {
    mode: plan.retrieval.mode,
    workspace_id: plan.retrieval.scope.workspaceId,
    model: plan.llm.model,
    query_tokens: countTokens(plan.retrieval.query),
  };
}
