import type { Api } from '../../http/api';
import { compatErrorEvent } from '../../http/compat-errors';
import { type Presented, pumpEvents } from '../../http/sse-pump';
import { requestSignal } from '../../http/stream';
import {
  type AnswerEvent,
  answerEvents,
  completionMeta,
  DEFAULT_KEEP_ALIVE_MS,
  openAiChatRequest,
  openAiChunk,
  openAiClosingChunks,
  openAiCompletion,
  openAiEmbeddings,
  openAiEmbeddingTexts,
  openAiModel,
} from '../../services/compat';
import type { Runtime } from '../../services/runtime';
import {
  openAiChatBodySchema,
  openAiChunkSchema,
  openAiCompletionSchema,
  openAiEmbeddingsBodySchema,
  openAiEmbeddingsSchema,
  openAiErrorSchema,
  openAiModelListSchema,
  openAiModelParamsSchema,
  openAiModelSchema,
} from './openai-schema';
import { spending } from '../shared/budget-gate';

const tag = 'compat: OpenAI';
const errors = {
  400: { description: 'Invalid request', schema: openAiErrorSchema },
  404: { description: 'Unknown model', schema: openAiErrorSchema },
};

/** The OpenAI-compatible API (docs/api.md §4.12), for the OpenAI SDKs and the tools built on them. */
export function openAiRoutes(api: Api, rt: Runtime): void {
  const query = spending(rt, 'query');
  api.route(
    {
      method: 'post',
      path: '/v1/chat/completions',
      // A question or an embedding: reading the knowledge, as POST /query.
      access: 'viewer',
      tag,
      summary: 'Answer the last user message from the knowledge graph, as a chat completion (SSE when stream is true)',
      description:
        'Messages map as in /api/chat: the last user message is the question, a /local, /global, /naive, /hybrid, ' +
        '/mix, /bypass or /context prefix or the model kgrag:<mode> picks the mode, a provider model answers the ' +
        'conversation as it is. The stream is `data:` frames only, ending with `data: [DONE]`; ' +
        'stream_options.include_usage adds a last chunk with usage. A failure after the stream began is a last ' +
        'frame `data: {"error": {...}}`.',
      body: openAiChatBodySchema,
      before: query.before,
      responses: {
        ...query.budgetResponse,
        200: {
          description: 'The completion; with stream true, a text/event-stream of chunks',
          schema: openAiCompletionSchema,
          alternatives: [{ contentType: 'text/event-stream', schema: openAiChunkSchema.or(openAiErrorSchema), sentinel: '[DONE]' }],
        },
        ...errors,
        503: { description: 'The model failed', schema: openAiErrorSchema },
      },
    },
    async (ctx, { body }) => {
      const turn = rt.compat.prepare(ctx.state.scope, openAiChatRequest(body));
      const meta = completionMeta(body.model, rt.compat.version);
      if (!body.stream) {
        ctx.body = openAiCompletion(meta, await rt.compat.complete(turn, requestSignal(ctx)));
        return;
      }
      const usage = body.stream_options?.include_usage === true;
      // `data:` frames only (OpenAI clients read no `event:` lines): the role first, the fragments, the closing
      // chunks, then [DONE].
      const present = (event: AnswerEvent): Presented | Presented[] => {
        if (event.type === 'start') return { data: openAiChunk(meta, { role: 'assistant', content: '' }, null, usage) };
        if (event.type === 'fragment') return { data: openAiChunk(meta, { content: event.text }, null, usage) };
        return [...openAiClosingChunks(meta, event.answer, usage).map((data) => ({ data })), { data: '[DONE]', raw: true }];
      };
      return pumpEvents(ctx, ({ signal }) => answerEvents(turn.run(signal)), present, {
        log: rt.log,
        errorTypeBase: rt.config.errorTypeBase,
        presentError: compatErrorEvent('openai'),
      });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/v1/embeddings',
      // A question or an embedding: reading the knowledge, as POST /query.
      access: 'viewer',
      tag,
      summary: "Embed texts with the workspace's embedding model (kgrag models) or a provider embedding model",
      description: 'input: a string, strings, or cl100k token arrays. encoding_format float (default) or base64 (little-endian float32).',
      body: openAiEmbeddingsBodySchema,
      responses: { 200: { description: 'Embeddings', schema: openAiEmbeddingsSchema }, ...errors },
    },
    async (ctx, { body }) => {
      const embedded = await rt.compat.embed(
        ctx.state.scope,
        {
          model: body.model,
          inputs: openAiEmbeddingTexts(body.input),
          truncate: false,
          dimensions: body.dimensions,
          keepAliveMs: DEFAULT_KEEP_ALIVE_MS,
          field: 'input',
        },
        requestSignal(ctx),
      );
      ctx.body = openAiEmbeddings(body.model, embedded, body.encoding_format);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/v1/models',
      tag,
      summary: 'The models: kgrag:<mode> per mode, then the provider models',
      responses: { 200: { description: 'Models', schema: openAiModelListSchema } },
    },
    async (ctx) => {
      ctx.body = { object: 'list', data: (await rt.compat.models(ctx.state.scope)).map(openAiModel) };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/v1/models/*id',
      tag,
      summary: 'One model (ids may hold a slash: openai/gpt-4o-mini)',
      params: openAiModelParamsSchema,
      responses: { 200: { description: 'Model', schema: openAiModelSchema }, 404: errors[404] },
    },
    async (ctx, { params }) => {
      ctx.body = openAiModel(await rt.compat.model(ctx.state.scope, params.id));
    },
  );
}
