import { z } from 'zod';
import { atLeastOneOf } from '../../http/validate';

/**
 * Request and response schemas of the local-runtime (Ollama) API. Objects are loose, as the runtime's are:
 * fields this service does not use are accepted and ignored.
 */

/** A name, then optionally `@<workspace>` after the last `@` (services/compat/models.ts reads it so). */
const MODEL_NAME = /^[^@\s](?:[^@]*|[\s\S]*@[A-Za-z0-9][A-Za-z0-9._-]{0,127})$/;

const modelName = z
  .string()
  .trim()
  .min(1, 'required')
  .regex(MODEL_NAME, 'a model name, then optionally @<workspace> (1-128 letters, digits, ".", "_" or "-")')
  .describe('`kgrag:<mode>` (RAG), `<provider>/<model>` (a provider model); `@<workspace>` selects the workspace');

/** Sampling options; a member sent as null is skipped, as the runtime skips it (LangChain's clients send them). */
export const ollamaOptionsSchema = z.looseObject({
  temperature: z.number().min(0).nullish(),
  num_predict: z.number().int().nullish().describe('maximum tokens to generate; -1 or -2: no limit'),
  top_p: z.number().min(0).max(1).nullish(),
  seed: z.number().int().nullish(),
  stop: z.array(z.string()).nullish(),
});

/** Seconds (`300`, `-1`) or a duration (`5m`, `1h30m`), as services/compat/keep-alive.ts reads them; empty: the default. */
const KEEP_ALIVE = /^(?:|\s*(?:-?\d+(?:\.\d+)?|[-+]?(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+)\s*)$/;

const keepAlive = z
  .union([z.string().regex(KEEP_ALIVE, 'is not a duration (e.g. 5m, 30s, 1h, -1)'), z.number()])
  .nullish()
  .describe('how long /api/ps lists the model: 5m (default), 0 unloads, -1 keeps');
const format = z.union([z.literal(''), z.literal('json'), z.record(z.string(), z.unknown())]).nullish();
const images = z.array(z.string()).nullish();
const think = z.union([z.boolean(), z.enum(['high', 'medium', 'low'])]).nullish();

export const ollamaMessageSchema = z.looseObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().default(''),
  images,
});

export const ollamaChatBodySchema = z.looseObject({
  model: modelName,
  messages: z
    .array(ollamaMessageSchema)
    .nullish()
    .describe('the last user message is the question; a /local, /global, ... prefix picks the mode'),
  stream: z.boolean().nullish().describe('NDJSON stream unless false'),
  format,
  options: ollamaOptionsSchema.nullish(),
  keep_alive: keepAlive,
  tools: z.array(z.unknown()).nullish(),
  think,
});

export const ollamaGenerateBodySchema = z.looseObject({
  model: modelName,
  prompt: z.string().default(''),
  suffix: z.string().nullish(),
  system: z.string().nullish(),
  template: z.string().nullish(),
  context: z.array(z.number().int()).nullish().describe('the `context` of the previous answer, to continue the conversation'),
  stream: z.boolean().nullish(),
  raw: z.boolean().nullish(),
  format,
  images,
  options: ollamaOptionsSchema.nullish(),
  keep_alive: keepAlive,
  think,
});

export const ollamaShowBodySchema = atLeastOneOf(
  z.looseObject({ model: modelName.optional(), name: modelName.optional(), verbose: z.boolean().nullish() }),
  ['model', 'name'],
  'required',
  ['model'],
).transform((b) => ({ model: (b.model ?? b.name) as string }));

export const ollamaEmbedBodySchema = z.looseObject({
  model: modelName,
  input: z.union([z.string(), z.array(z.string())]),
  truncate: z.boolean().nullish().describe('cut inputs longer than the context length (else 400); default (and null) true'),
  dimensions: z.number().int().min(1).nullish(),
  keep_alive: keepAlive,
  options: ollamaOptionsSchema.nullish(),
});

export const ollamaEmbeddingsBodySchema = z.looseObject({
  model: modelName,
  prompt: z.string().default(''),
  keep_alive: keepAlive,
  options: ollamaOptionsSchema.nullish(),
});

const details = z.object({
  parent_model: z.string(),
  format: z.string(),
  family: z.string(),
  families: z.array(z.string()),
  parameter_size: z.string(),
  quantization_level: z.string(),
});

const finalFields = {
  done: z.boolean(),
  done_reason: z.enum(['stop', 'length', 'load', 'unload']).optional(),
  total_duration: z.number().int().optional().describe('nanoseconds'),
  load_duration: z.number().int().optional().describe('nanoseconds until generation started (retrieval included)'),
  prompt_eval_count: z.number().int().optional(),
  prompt_eval_duration: z.number().int().optional().describe('nanoseconds to the first token'),
  eval_count: z.number().int().optional(),
  eval_duration: z.number().int().optional(),
  no_context: z
    .literal(true)
    .optional()
    .describe('present when retrieval found nothing: the answer is the "no context" response and no model was asked'),
};

export const ollamaVersionSchema = z.object({ version: z.string() });

export const ollamaTagsSchema = z.object({
  models: z.array(
    z.object({ name: z.string(), model: z.string(), modified_at: z.string(), size: z.number().int(), digest: z.string(), details }),
  ),
});

export const ollamaPsSchema = z.object({
  models: z.array(
    z.object({
      name: z.string(),
      model: z.string(),
      size: z.number().int(),
      digest: z.string(),
      details,
      expires_at: z.string(),
      size_vram: z.number().int(),
      context_length: z.number().int(),
    }),
  ),
});

export const ollamaShowSchema = z.object({
  license: z.string(),
  modelfile: z.string(),
  parameters: z.string(),
  template: z.string(),
  system: z.string(),
  details,
  model_info: z.record(z.string(), z.union([z.string(), z.number()])),
  capabilities: z.array(z.string()),
  modified_at: z.string(),
});

export const ollamaChatReplySchema = z
  .object({ model: z.string(), created_at: z.string(), message: z.object({ role: z.string(), content: z.string() }), ...finalFields })
  .describe('one object (stream false), or one NDJSON line per fragment and a last one with done true');

export const ollamaGenerateReplySchema = z
  .object({
    model: z.string(),
    created_at: z.string(),
    response: z.string(),
    ...finalFields,
    context: z.array(z.number().int()).optional(),
  })
  .describe('one object (stream false), or one NDJSON line per fragment and a last one with done true and context');

export const ollamaEmbedReplySchema = z.object({
  model: z.string(),
  embeddings: z.array(z.array(z.number())),
  total_duration: z.number().int(),
  load_duration: z.number().int(),
  prompt_eval_count: z.number().int(),
});

export const ollamaEmbeddingsReplySchema = z.object({ embedding: z.array(z.number()) });

export const ollamaErrorSchema = z.object({ error: z.string() });
