import type { Api } from '../../http/api';
import type { AppContext } from '../../http/context';
import { pumpEvents } from '../../http/sse-pump';
import type { ChatReply } from '../../services/chat';
import type { Runtime } from '../../services/runtime';
import { presentStats, presentStreamEvent, withRetrievalAliases } from '../shared/answer-present';
import { type ChatBody, chatBodySchema, chatEventSchema, chatReplySchema } from './schema';
import { spending } from '../shared/budget-gate';

/** The reply with EdgeQuake's names beside the spec's: `assistant_message_id` (= `id`) and the stats aliases. */
function presentReply(reply: ChatReply) {
  return { ...reply, assistant_message_id: reply.id, stats: presentStats(reply.stats) };
}

/** EdgeQuake's `provider`/`model` are our `llm_provider`/`llm_model`; `max_results` our `max_chunks`. */
function chatInput(body: ChatBody) {
  const { provider, model, ...rest } = withRetrievalAliases(body);
  return { ...rest, llm_provider: rest.llm_provider ?? provider, llm_model: rest.llm_model ?? model };
}

/** Chat completions over stored conversations. */
export function chatRoutes(api: Api, rt: Runtime): void {
  const query = spending(rt, 'query');
  const streamTurn = async (ctx: AppContext, body: ChatBody) => {
    const events = await rt.chat.stream(ctx.state.scope, chatInput(body));
    await pumpEvents(ctx, events, (event) => ({ data: presentStreamEvent(event) }), {
      log: rt.log,
      errorTypeBase: rt.config.errorTypeBase,
    });
  };

  api.route(
    {
      method: 'post',
      path: '/chat/completions',
      // Chatting is querying, on every chat path (docs/api.md §5): viewers chat.
      access: 'viewer',
      tag: 'chat',
      summary: 'Answer a chat message with retrieval, storing the turn in a conversation',
      description:
        'conversation_id null starts a new conversation; an unknown id is 404. Earlier complete turns inform ' +
        'keyword extraction and the prompt. With stream true the answer comes as SSE events: `conversation`, ' +
        '`context`, `token`..., `done` (or `error`). An answer that breaks off is stored with status `failed`.',
      body: chatBodySchema,
      before: query.before,
      responses: {
        200: {
          description: 'The assistant message as JSON; with stream true, a text/event-stream of chat events',
          schema: chatReplySchema,
          alternatives: [{ contentType: 'text/event-stream', schema: chatEventSchema }],
        },
        404: { description: 'Unknown conversation' },
        ...query.budgetResponse,
      },
    },
    async (ctx, { body }) => {
      if (!body.stream) {
        ctx.body = presentReply(await rt.chat.complete(ctx.state.scope, chatInput(body)));
        return;
      }
      await streamTurn(ctx, body);
    },
  );

  api.route(
    {
      method: 'post',
      path: '/chat/completions/stream',
      access: 'viewer',
      tag: 'chat',
      summary: 'Answer a chat message as SSE events (POST /chat/completions with stream true)',
      description: 'The path EdgeQuake clients stream from; the body is that of /chat/completions, and the answer always streams.',
      body: chatBodySchema,
      before: query.before,
      responses: {
        200: { description: 'text/event-stream of chat events', schema: chatEventSchema, contentType: 'text/event-stream' },
        404: { description: 'Unknown conversation' },
        ...query.budgetResponse,
      },
    },
    async (ctx, { body }) => {
      await streamTurn(ctx, body);
    },
  );
}
