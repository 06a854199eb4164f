import { newId } from '../../domain/ids';
import type { ConversationRecord, MessageRecord, Scope } from '../../domain/types';
import type { EventSource } from '../../domain/stream';
import type { ChatMessage } from '../../llm/ports';
import {
  type DocumentFilter,
  answerFromContext,
  type Generation,
  HISTORY_MESSAGES,
  noContextResponse,
  planQuery,
  promptOf,
  type QueryMode,
  type QueryPlan,
  type QueryServiceDeps,
  type QuerySource,
  type QueryStats,
  queryStats,
  retrieve,
  type RetrievedContext,
  streamFromContext,
} from '../../retrieval';
import { findConversation, newConversation, titleOf } from './conversations';

/** A chat turn as the API takes it (docs/api.md §4.4), with the optional retrieval and model settings of /query. */
export interface ChatInput {
  message: string;
  conversation_id?: string | null;
  mode?: QueryMode;
  system_prompt?: string | null;
  document_filter?: DocumentFilter | null;
  llm_provider?: string | null;
  llm_model?: string | null;
  enable_rerank?: boolean;
  rerank_top_k?: number;
  max_entities?: number;
  max_relationships?: number;
  max_chunks?: number;
  temperature?: number;
  max_tokens?: number;
}

export interface ChatReply {
  id: string;
  conversation_id: string;
  user_message_id: string;
  mode: QueryMode;
  role: 'assistant';
  content: string;
  sources: QuerySource[];
  stats: QueryStats;
  /** Retrieval found nothing: `content` is the "no context" response and no model was asked. */
  no_context: boolean;
  created_at: string;
}

export type ChatEvent =
  | { type: 'conversation'; conversation_id: string; user_message_id: string }
  | { type: 'context'; sources: QuerySource[]; query_mode: QueryMode; retrieval_time_ms: number; no_context: boolean }
  | { type: 'token'; content: string }
  | {
      type: 'done';
      no_context: boolean;
      assistant_message_id: string;
      tokens_used: number;
      duration_ms: number;
      llm_provider: string;
      llm_model: string;
    };

/** A chat turn is answered by the same parts as a query. */
export type ChatServiceDeps = QueryServiceDeps;

export interface ChatService {
  /** Answers one turn and stores both messages. */
  complete(scope: Scope, input: ChatInput): Promise<ChatReply>;
  /**
   * Checks the request first (unknown conversation -> 404, unknown model -> 422) without writing anything;
   * the returned source runs the turn as events when pumped (docs/architecture.md, Streams).
   */
  stream(scope: Scope, input: ChatInput): Promise<EventSource<ChatEvent>>;
}

/** A checked turn: nothing is written until it starts. */
interface Turn {
  scope: Scope;
  input: ChatInput;
  existing: ConversationRecord | null;
  plan: QueryPlan;
}

export function createChatService(deps: ChatServiceDeps): ChatService {
  const { stores } = deps;
  const conversations = stores.conversations;

  async function prepare(scope: Scope, input: ChatInput): Promise<Turn> {
    const existing = input.conversation_id ? await findConversation(conversations, scope, input.conversation_id) : null;
    const mode = input.mode ?? (existing?.mode as QueryMode | undefined) ?? 'hybrid';
    const history = existing ? await earlierTurns(scope, existing.id) : [];
    const plan = planQuery(
      deps.providers,
      scope,
      {
        ...input,
        query: input.message,
        mode,
        conversation_history: history,
      },
      deps,
    );
    return { scope, input, existing, plan };
  }

  /** The latest complete turns; failed or unfinished answers are not fed back to the model. */
  async function earlierTurns(scope: Scope, conversationId: string): Promise<ChatMessage[]> {
    const window = HISTORY_MESSAGES * 2;
    const { total } = await conversations.listMessages(scope, conversationId, { limit: 0, offset: 0 });
    const page = await conversations.listMessages(scope, conversationId, { limit: window, offset: Math.max(0, total - window) });
    return page.items.filter((m) => m.status === 'complete' && m.role !== 'system').map((m) => ({ role: m.role, content: m.content }));
  }

  /** Creates the conversation when new and stores the user's message. */
  async function begin(turn: Turn): Promise<{ conversation: ConversationRecord; userMessage: MessageRecord }> {
    const { scope, input } = turn;
    let conversation = turn.existing;
    if (!conversation) {
      conversation = newConversation(input.message, turn.plan.retrieval.mode);
      await conversations.create(scope, conversation);
    } else if (!conversation.title) {
      conversation.title = titleOf(input.message);
    }
    const userMessage = message(conversation.id, 'user', input.message.trim(), 'complete');
    await conversations.addMessage(scope, userMessage);
    await touch(scope, conversation);
    return { conversation, userMessage };
  }

  /** Counts the stored messages rather than adding to a copy, so that concurrent turns do not lose counts. */
  async function touch(scope: Scope, conversation: ConversationRecord): Promise<void> {
    const { total } = await conversations.listMessages(scope, conversation.id, { limit: 0, offset: 0 });
    conversation.message_count = total;
    conversation.updated_at = new Date().toISOString();
    await conversations.update(scope, conversation.id, {
      title: conversation.title,
      message_count: conversation.message_count,
      updated_at: conversation.updated_at,
    });
  }

  const retrieveFor = (turn: Turn, signal?: AbortSignal) =>
    retrieve(
      { stores, embedder: deps.providers.embedding(), reranker: deps.reranker, llmCache: deps.llmCache, log: deps.log },
      { ...turn.plan.retrieval, signal },
    );

  const generationOptions = (plan: QueryPlan, signal?: AbortSignal) => ({
    task: 'chat' as const,
    temperature: plan.temperature,
    maxTokens: plan.maxTokens,
    signal,
  });

  return {
    async complete(scope, input) {
      const turn = await prepare(scope, input);
      const { conversation, userMessage } = await begin(turn);
      let context: RetrievedContext | null = null;
      let generation: Generation;
      try {
        context = await retrieveFor(turn);
        generation = await answerFromContext(turn.plan, context, promptOf(turn.plan, context), generationOptions(turn.plan));
      } catch (err) {
        await conversations.addMessage(scope, message(conversation.id, 'assistant', '', 'failed', context?.sources));
        await touch(scope, conversation);
        throw err;
      }
      const reply = message(conversation.id, 'assistant', generation.text, 'complete', context.sources);
      await conversations.addMessage(scope, reply);
      await touch(scope, conversation);
      return {
        id: reply.id,
        conversation_id: conversation.id,
        user_message_id: userMessage.id,
        mode: turn.plan.retrieval.mode,
        role: 'assistant',
        content: reply.content,
        sources: context.sources,
        stats: queryStats(turn.plan.startedAt, context, generation, turn.plan.llm),
        no_context: generation.no_context === true,
        created_at: reply.created_at,
      };
    },

    async stream(scope, input) {
      const turn = await prepare(scope, input);
      return async function* events({ signal }) {
        const { conversation, userMessage } = await begin(turn);
        yield { type: 'conversation', conversation_id: conversation.id, user_message_id: userMessage.id };
        const reply = message(conversation.id, 'assistant', '', 'streaming');
        const partial = { text: '' };
        let stored = false;
        let finished = false;
        try {
          const context = await retrieveFor(turn, signal);
          yield {
            type: 'context',
            sources: context.sources,
            query_mode: context.mode,
            retrieval_time_ms: Math.round(context.timings.retrieval_ms),
            no_context: noContextResponse(turn.plan, context) !== null,
          };
          reply.sources = context.sources;
          await touch(scope, conversation);
          const fragments = streamFromContext(
            turn.plan,
            context,
            promptOf(turn.plan, context),
            generationOptions(turn.plan, signal),
            partial,
          );
          let generation: Generation;
          for (;;) {
            const next = await fragments.next();
            if (next.done) {
              generation = next.value;
              break;
            }
            // The answer is stored from its first fragment on (`streaming`), so a stream that ends before any leaves none.
            if (!stored) {
              await conversations.addMessage(scope, reply);
              stored = true;
            }
            yield { type: 'token', content: next.value };
          }
          if (stored) await conversations.updateMessage(scope, reply.id, { content: generation.text, status: 'complete' });
          else await conversations.addMessage(scope, { ...reply, content: generation.text, status: 'complete' });
          finished = true;
          // The conversation counts the answer it now holds.
          await touch(scope, conversation);
          const stats = queryStats(turn.plan.startedAt, context, generation, turn.plan.llm);
          yield {
            type: 'done',
            no_context: generation.no_context === true,
            assistant_message_id: reply.id,
            tokens_used: stats.tokens_used,
            duration_ms: stats.total_time_ms,
            llm_provider: stats.llm_provider,
            llm_model: stats.llm_model,
          };
        } finally {
          // A failure, or a client that left: the half answer is kept, marked as failed, never as complete; a client
          // that left before any of it leaves no empty answer behind. A failure with nothing produced is recorded.
          if (!finished) {
            if (stored) {
              await conversations.updateMessage(scope, reply.id, { content: partial.text, status: 'failed' });
              await touch(scope, conversation);
            } else if (!signal.aborted) {
              await conversations.addMessage(scope, { ...reply, status: 'failed' });
              await touch(scope, conversation);
            }
          }
        }
      };
    },
  };
}

function message(
  conversationId: string,
  role: MessageRecord['role'],
  content: string,
  status: MessageRecord['status'],
  sources: QuerySource[] = [],
): MessageRecord {
  return { id: newId(), conversation_id: conversationId, role, content, sources, status, created_at: new Date().toISOString() };
}
