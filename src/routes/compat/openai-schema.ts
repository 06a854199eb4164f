import { z } from 'zod';

/** Request and response schemas of the OpenAI-compatible API; unknown request fields are accepted and ignored. */

const modelName = z
  .string()
  .trim()
  .min(1, 'required')
  .describe('`kgrag:<mode>` (RAG), `<provider>/<model>` (a provider model); `@<workspace>` selects the workspace');

const contentPart = z.looseObject({ type: z.string(), text: z.string().optional() });

export const openAiMessageSchema = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z.union([z.string(), z.array(contentPart)]).nullish(),
  name: z.string().optional(),
});

export const openAiChatBodySchema = z.looseObject({
  model: modelName,
  messages: z.array(openAiMessageSchema).min(1, 'must hold at least one message'),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  max_tokens: z.number().int().min(1).nullish(),
  max_completion_tokens: z.number().int().min(1).nullish(),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullish(),
  seed: z.number().int().nullish(),
  n: z.number().int().min(1).nullish(),
  response_format: z.looseObject({ type: z.enum(['text', 'json_object', 'json_schema']) }).nullish(),
  tools: z.array(z.unknown()).nullish(),
});

const tokenIds = z.array(z.number().int().min(0));

export const openAiEmbeddingsBodySchema = z.looseObject({
  model: modelName,
  input: z.union([z.string().min(1, 'must not be empty'), z.array(z.string()), tokenIds, z.array(tokenIds)]),
  encoding_format: z.enum(['float', 'base64']).default('float'),
  dimensions: z.number().int().min(1).optional(),
  user: z.string().optional(),
});

export const openAiModelParamsSchema = z.object({ id: z.string().min(1) });

const usage = z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() });
const finishReason = z.enum(['stop', 'length']);
const identity = { id: z.string(), created: z.number().int(), model: z.string(), system_fingerprint: z.string() };

export const openAiCompletionSchema = z.object({
  ...identity,
  object: z.literal('chat.completion'),
  choices: z.array(
    z.object({
      index: z.number().int(),
      message: z.object({ role: z.literal('assistant'), content: z.string(), refusal: z.null(), annotations: z.array(z.unknown()) }),
      logprobs: z.null(),
      finish_reason: finishReason,
    }),
  ),
  usage,
  no_context: z
    .literal(true)
    .optional()
    .describe('present when retrieval found nothing: the answer is the "no context" response and no model was asked'),
});

export const openAiChunkSchema = z
  .object({
    ...identity,
    object: z.literal('chat.completion.chunk'),
    choices: z.array(
      z.object({
        index: z.number().int(),
        delta: z.object({ role: z.literal('assistant').optional(), content: z.string().optional() }),
        logprobs: z.null(),
        finish_reason: finishReason.nullable(),
      }),
    ),
    usage: usage.nullable().optional(),
    no_context: z
      .literal(true)
      .optional()
      .describe('present when retrieval found nothing: the answer is the "no context" response and no model was asked'),
  })
  .describe('one `data:` frame; the stream ends with `data: [DONE]`');

export const openAiModelSchema = z.object({ id: z.string(), object: z.literal('model'), created: z.number().int(), owned_by: z.string() });
export const openAiModelListSchema = z.object({ object: z.literal('list'), data: z.array(openAiModelSchema) });

export const openAiEmbeddingsSchema = z.object({
  object: z.literal('list'),
  data: z.array(
    z.object({
      object: z.literal('embedding'),
      index: z.number().int(),
      embedding: z.union([z.array(z.number()), z.string().describe('base64 of little-endian float32')]),
    }),
  ),
  model: z.string(),
  usage: z.object({ prompt_tokens: z.number().int(), total_tokens: z.number().int() }),
});

export const openAiErrorSchema = z.object({
  error: z.object({ message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string().nullable() }),
});
