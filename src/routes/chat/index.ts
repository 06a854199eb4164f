import { z } from 'zod';
import type { Api } from '../../http/api';
import type { Runtime } from '../../services/runtime';
import { pumpEvents } from '../../http/sse-pump';
import { chatBodySchema, chatEventSchema, chatReplySchema } from './schema';

/** Chat completions over stored conversations. */
export function chatRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'post',
      path: '/chat/completions',
      tag: 'chat',
      summary: 'Answer a chat message with retrieval, storing the turn in a conversation',
      description:
        'conversation_id null starts a new conversation; an unknown id is 404. Earlier complete turns inform ' +
        'keyword extraction and the prompt. With stream true the answer comes as SSE events: `conversation`, ' +
        '`context`, `token`..., `done` (or `error`). An answer that breaks off is stored with status `failed`.',
      body: chatBodySchema,
      responses: {
        200: {
          description: 'The assistant message as JSON; with stream true, a text/event-stream of chat events',
          schema: z.union([chatReplySchema, chatEventSchema.describe('one SSE event (stream true)')]),
        },
        404: { description: 'Unknown conversation' },
      },
    },
    async (ctx, { body }) => {
      if (!body.stream) {
        ctx.body = await rt.chat.complete(ctx.state.scope, body);
        return;
      }
      const events = await rt.chat.stream(ctx.state.scope, body);
      pumpEvents(ctx, { log: rt.log, errorTypeBase: rt.config.errorTypeBase }, events, (event) => ({ data: event }));
    },
  );
}
