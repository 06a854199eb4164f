import { z } from 'zod';
import { plainText } from '../../http/validate';
import {
  contextEventSchema,
  MAX_QUERY_CHARS,
  modeSchema,
  retrievalFields,
  sourceSchema,
  statsSchema,
  tokenEventSchema,
} from '../shared/answer-schema';

/** Request and response schemas of /query and /query/stream (docs/api.md §4.3, §6.1); chat shares routes/shared/answer-schema.ts. */

export const MAX_HISTORY_MESSAGES = 50;

export const historySchema = z
  .array(
    z.object({
      role: z.enum(['user', 'assistant', 'system'], { error: 'must be one of user, assistant, system' }),
      content: z.string().max(32_000, 'must be at most 32000 characters'),
    }),
  )
  .max(MAX_HISTORY_MESSAGES, `must hold at most ${MAX_HISTORY_MESSAGES} messages`)
  .nullable()
  .optional();

export const queryTextSchema = plainText(
  z.string().trim().min(1, 'must not be empty').max(MAX_QUERY_CHARS, `must be at most ${MAX_QUERY_CHARS} characters`),
);

export const queryBodySchema = z.object({
  query: queryTextSchema,
  ...retrievalFields,
  context_only: z.boolean().optional(),
  prompt_only: z.boolean().optional(),
  conversation_history: historySchema,
  debug: z.boolean().optional(),
});

export const streamBodySchema = queryBodySchema.extend({
  stream_format: z.enum(['v1', 'v2'], { error: 'must be v1 or v2' }).optional(),
});

export type QueryBody = z.output<typeof queryBodySchema>;
export type StreamBody = z.output<typeof streamBodySchema>;

export const queryResponseSchema = z.object({
  answer: z.string().describe("'' for context_only and prompt_only"),
  mode: modeSchema,
  sources: z.array(sourceSchema),
  stats: statsSchema,
  reranked: z.boolean(),
  no_context: z
    .boolean()
    .describe(
      'true when retrieval found nothing: `answer` is the configured "no context" response and no model was asked (never in bypass)',
    ),
  prompt_version: z.number().int().describe('version of the answer prompt'),
  prompt_override: z.string().optional().describe('the answer prompt override used (SERVICE_PROMPTS_DIR), if one was'),
  context: z.string().optional().describe('context_only: the context text the model would read'),
  prompt: z.string().optional().describe('prompt_only: the whole prompt'),
  debug: z
    .object({
      keywords: z.object({ high_level: z.array(z.string()), low_level: z.array(z.string()), origin: z.string() }),
      candidates: z.object({ entities: z.number().int(), relationships: z.number().int(), chunks: z.number().int() }),
      context_items: z.object({ entities: z.number().int(), relationships: z.number().int(), chunks: z.number().int() }),
      keywords_time_ms: z.number().int(),
      reranker: z.string().nullable(),
    })
    .optional(),
});

export const streamEventSchema = z.discriminatedUnion('type', [
  contextEventSchema,
  tokenEventSchema,
  z.object({
    type: z.literal('done'),
    stats: z.object({
      retrieval_time_ms: z.number().int(),
      generation_time_ms: z.number().int(),
      total_time_ms: z.number().int(),
      sources_retrieved: z.number().int(),
      tokens_used: z.number().int(),
      tokens_per_second: z.number(),
      query_mode: modeSchema,
    }),
    llm_provider: z.string(),
    llm_model: z.string(),
    no_context: z.boolean().describe("= the context event's no_context"),
    prompt_version: z.number().int().describe('version of the answer prompt'),
    context: z.string().optional().describe('context_only: the assembled context'),
    prompt: z.string().optional().describe('prompt_only: the rendered prompt'),
    done: z.literal(true).describe('EdgeQuake marker of the last event'),
  }),
  z.object({
    type: z.literal('error'),
    error: z.object({ type: z.string(), title: z.string(), status: z.number().int(), detail: z.string() }),
  }),
]);
