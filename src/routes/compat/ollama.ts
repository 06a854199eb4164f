import type { Api } from '../../http/api';
import type { AppContext } from '../../http/context';
import { compatErrorEvent } from '../../http/compat-errors';
import { type Presented, pumpEvents } from '../../http/sse-pump';
import { requestSignal } from '../../http/stream';
import {
  type AnswerEvent,
  answerEvents,
  type CompatAnswer,
  keepAliveMs,
  type PreparedTurn,
  ollamaChatChunk,
  ollamaChatFinal,
  ollamaChatRequest,
  ollamaEmbed,
  ollamaGenerateChunk,
  ollamaGenerateFinal,
  ollamaGenerateRequest,
  ollamaLoadReply,
  ollamaRunning,
  ollamaShow,
  ollamaTag,
} from '../../services/compat';
import type { Runtime } from '../../services/runtime';
import {
  ollamaChatBodySchema,
  ollamaChatReplySchema,
  ollamaEmbedBodySchema,
  ollamaEmbeddingsBodySchema,
  ollamaEmbeddingsReplySchema,
  ollamaEmbedReplySchema,
  ollamaErrorSchema,
  ollamaGenerateBodySchema,
  ollamaGenerateReplySchema,
  ollamaPsSchema,
  ollamaShowBodySchema,
  ollamaShowSchema,
  ollamaTagsSchema,
  ollamaVersionSchema,
} from './ollama-schema';
import { spending } from '../shared/budget-gate';

const tag = 'compat: local runtime (Ollama)';
const errors = {
  400: { description: 'Invalid request: {"error": "..."}', schema: ollamaErrorSchema },
  404: { description: 'Unknown model: {"error": "..."}', schema: ollamaErrorSchema },
};
const answerErrors = { ...errors, 503: { description: 'The model failed: {"error": "..."}', schema: ollamaErrorSchema } };
const NDJSON = 'application/x-ndjson';

/** Streams an answer as NDJSON: a line per fragment, then the last line; a failure is a last line {"error": "..."}. */
function pumpAnswer(
  ctx: AppContext,
  rt: Runtime,
  turn: PreparedTurn,
  chunk: (text: string) => unknown,
  last: (answer: CompatAnswer) => unknown,
): Promise<void> {
  const present = (event: AnswerEvent): Presented =>
    event.type === 'fragment' ? { data: chunk(event.text) } : event.type === 'answer' ? { data: last(event.answer) } : null;
  return pumpEvents(ctx, ({ signal }) => answerEvents(turn.run(signal)), present, {
    log: rt.log,
    errorTypeBase: rt.config.errorTypeBase,
    framing: 'ndjson',
    presentError: compatErrorEvent('ollama'),
  });
}

/** The local-runtime API (docs/api.md §4.12), for chat clients that speak it. */
export function ollamaRoutes(api: Api, rt: Runtime): void {
  const query = spending(rt, 'query');
  api.route(
    {
      method: 'get',
      path: '/api/version',
      // Public, as the runtime's: clients (Open WebUI) ask it before they send a key.
      access: 'public',
      tag,
      summary: 'The service version (no credentials needed)',
      responses: { 200: { description: 'Version', schema: ollamaVersionSchema } },
    },
    (ctx) => {
      ctx.body = { version: rt.compat.version };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/tags',
      tag,
      summary: 'The models: one RAG model per mode (kgrag:<mode>), then the provider models',
      responses: { 200: { description: 'Models', schema: ollamaTagsSchema } },
    },
    async (ctx) => {
      ctx.body = { models: (await rt.compat.models(ctx.state.scope)).map(ollamaTag) };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/ps',
      tag,
      summary: 'The models the workspace used within their keep-alive',
      responses: { 200: { description: 'Running models', schema: ollamaPsSchema } },
    },
    async (ctx) => {
      ctx.body = { models: (await rt.compat.running(ctx.state.scope)).map((r) => ollamaRunning(r.entry, r.expiresAt)) };
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/show',
      // A question or an embedding: reading the knowledge, as POST /query.
      access: 'viewer',
      tag,
      summary: 'A model: details, parameters, capabilities, and for RAG models the workspace graph',
      body: ollamaShowBodySchema,
      responses: { 200: { description: 'Model information', schema: ollamaShowSchema }, ...errors },
    },
    async (ctx, { body }) => {
      ctx.body = ollamaShow(await rt.compat.show(ctx.state.scope, body.model));
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/chat',
      // A question or an embedding: reading the knowledge, as POST /query.
      access: 'viewer',
      tag,
      summary: 'Answer the last user message from the knowledge graph (NDJSON stream unless stream is false)',
      description:
        'The last user message is the question and earlier messages the history. A leading /local, /global, ' +
        '/naive, /hybrid, /mix, /bypass or /context picks the mode, else the model name does (kgrag:<mode>); a ' +
        'provider model answers the conversation as it is unless a prefix asks for retrieval. No messages: the ' +
        'model is loaded (done_reason load). A failure after the stream began is a last line {"error": "..."}.',
      body: ollamaChatBodySchema,
      before: query.before,
      responses: {
        200: {
          description: 'The answer: NDJSON lines, or one JSON object (stream false, or loading the model)',
          schema: ollamaChatReplySchema,
          contentType: NDJSON,
          alternatives: [{ contentType: 'application/json', schema: ollamaChatReplySchema }],
        },
        ...answerErrors,
        ...query.budgetResponse,
      },
    },
    async (ctx, { body }) => {
      const { scope } = ctx.state;
      if (!body.messages?.length) {
        ctx.body = ollamaLoadReply('chat', body.model, rt.compat.load(scope, body.model, keepAliveMs(body.keep_alive)));
        return;
      }
      const turn = rt.compat.prepare(scope, ollamaChatRequest(body));
      if (body.stream === false) {
        const answer = await rt.compat.complete(turn, requestSignal(ctx));
        ctx.body = ollamaChatFinal(body.model, answer, answer.text);
        return;
      }
      return pumpAnswer(
        ctx,
        rt,
        turn,
        (text) => ollamaChatChunk(body.model, text),
        (answer) => ollamaChatFinal(body.model, answer, ''),
      );
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/generate',
      // A question or an embedding: reading the knowledge, as POST /query.
      access: 'viewer',
      tag,
      summary: 'Answer a prompt from the knowledge graph (NDJSON stream unless stream is false)',
      description:
        'The prompt is the question (a mode prefix applies as in /api/chat); `system` is the system prompt and ' +
        '`context` (returned by the previous answer) the conversation so far. An empty prompt loads the model.',
      body: ollamaGenerateBodySchema,
      before: query.before,
      responses: {
        200: {
          description: 'The answer: NDJSON lines, or one JSON object (stream false, or loading the model)',
          schema: ollamaGenerateReplySchema,
          contentType: NDJSON,
          alternatives: [{ contentType: 'application/json', schema: ollamaGenerateReplySchema }],
        },
        ...answerErrors,
        ...query.budgetResponse,
      },
    },
    async (ctx, { body }) => {
      const { scope } = ctx.state;
      if (!body.prompt.trim()) {
        ctx.body = ollamaLoadReply('generate', body.model, rt.compat.load(scope, body.model, keepAliveMs(body.keep_alive)));
        return;
      }
      const { request, conversation } = ollamaGenerateRequest(body);
      const turn = rt.compat.prepare(scope, request);
      if (body.stream === false) {
        const answer = await rt.compat.complete(turn, requestSignal(ctx));
        ctx.body = ollamaGenerateFinal(body.model, answer, answer.text, conversation(answer.text));
        return;
      }
      return pumpAnswer(
        ctx,
        rt,
        turn,
        (text) => ollamaGenerateChunk(body.model, text),
        (answer) => ollamaGenerateFinal(body.model, answer, '', conversation(answer.text)),
      );
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/embed',
      // A question or an embedding: reading the knowledge, as POST /query.
      access: 'viewer',
      tag,
      summary: "Embed texts with the workspace's embedding model (kgrag models) or a provider embedding model",
      body: ollamaEmbedBodySchema,
      responses: { 200: { description: 'Embeddings', schema: ollamaEmbedReplySchema }, ...errors },
    },
    async (ctx, { body }) => {
      const inputs = typeof body.input === 'string' ? (body.input ? [body.input] : []) : body.input;
      const embedded = await rt.compat.embed(
        ctx.state.scope,
        {
          model: body.model,
          inputs,
          truncate: body.truncate ?? true,
          dimensions: body.dimensions ?? undefined,
          keepAliveMs: keepAliveMs(body.keep_alive),
          field: 'input',
        },
        requestSignal(ctx),
      );
      ctx.body = ollamaEmbed(body.model, embedded);
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/embeddings',
      // A question or an embedding: reading the knowledge, as POST /query.
      access: 'viewer',
      tag,
      summary: 'Embed one prompt (the older form of /api/embed)',
      body: ollamaEmbeddingsBodySchema,
      responses: { 200: { description: 'Embedding', schema: ollamaEmbeddingsReplySchema }, ...errors },
    },
    async (ctx, { body }) => {
      const inputs = body.prompt ? [body.prompt] : [];
      const embedded = await rt.compat.embed(
        ctx.state.scope,
        { model: body.model, inputs, truncate: true, keepAliveMs: keepAliveMs(body.keep_alive), field: 'prompt' },
        requestSignal(ctx),
      );
      ctx.body = { embedding: embedded.vectors[0] ?? [] };
    },
  );
}
