import type { Api } from '../../http/api';
import type { QueryEvent } from '../../retrieval';
import type { Runtime } from '../../services/runtime';
import { queryBodySchema, queryResponseSchema, streamBodySchema, streamEventSchema } from './schema';
import { type Presented, pumpEvents } from '../../http/sse-pump';
import { presentQueryResult, presentStreamEvent, withRetrievalAliases } from '../shared/answer-present';
import { spending } from '../shared/budget-gate';

const tag = 'query';

/** Retrieval-augmented answers (docs/api.md §4.3) and their SSE form (docs/api.md §6.1). */
export function queryRoutes(api: Api, rt: Runtime): void {
  const query = spending(rt, 'query');
  api.route(
    {
      method: 'post',
      path: '/query',
      access: 'viewer',
      tag,
      summary: 'Answer a question from the knowledge graph and documents',
      description:
        'Modes: naive (chunk vectors), local (entities), global (relationships), hybrid (local + global, default), ' +
        'mix (hybrid fused with chunk vectors), bypass (the model alone). context_only returns the retrieved ' +
        'context without an answer; prompt_only returns the prompt without calling the model.',
      body: queryBodySchema,
      before: query.before,
      responses: {
        200: { description: 'The answer with its sources and measured stats', schema: queryResponseSchema },
        ...query.budgetResponse,
      },
    },
    async (ctx, { body }) => {
      ctx.body = presentQueryResult(await rt.query.answer(ctx.state.scope, withRetrievalAliases(body)));
    },
  );

  api.route(
    {
      method: 'post',
      path: '/query/stream',
      access: 'viewer',
      tag,
      summary: 'Answer a question as Server-Sent Events',
      description:
        'stream_format v2 (default): a `context` event, then `token` events, then `done` with stats; a failure ' +
        'after the stream opened is an `error` event {type, error{type, title, status, detail}} and ends the ' +
        'stream. v1: every `data:` line carries raw answer text; the end of the stream marks the end of the ' +
        'answer (no [DONE] sentinel, which raw-text clients would print). Invalid requests are answered with ' +
        'problem details before the stream opens.',
      body: streamBodySchema,
      before: query.before,
      responses: {
        200: {
          description: 'SSE stream of answer events',
          schema: streamEventSchema,
          contentType: 'text/event-stream',
          rawText: 'stream_format v1: a piece of the answer as raw text',
        },
        ...query.budgetResponse,
      },
    },
    (ctx, { body }) => {
      const events = rt.query.stream(ctx.state.scope, withRetrievalAliases(body));
      return pumpEvents(ctx, events, body.stream_format === 'v1' ? presentV1 : presentV2, {
        log: rt.log,
        errorTypeBase: rt.config.errorTypeBase,
      });
    },
  );
}

function presentV2(event: QueryEvent): Presented {
  return { data: presentStreamEvent(event) };
}

/** Raw text only: the context and the stats have no place in the v1 format. */
function presentV1(event: QueryEvent): Presented {
  return event.type === 'token' ? { data: event.content, raw: true } : null;
}
