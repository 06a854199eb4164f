import { z } from 'zod';
import { isoDateOrTime, plainText } from '../../http/validate';
import { LIMIT_BOUNDS, QUERY_MODES } from '../../retrieval';

/** Request and response schemas of /query and /query/stream (docs/api.md §4.3, §6.1); chat reuses the shared parts. */

export const MAX_QUERY_CHARS = 8000;
export const MAX_HISTORY_MESSAGES = 50;

export const modeSchema = z.enum(QUERY_MODES, { error: `must be one of ${QUERY_MODES.join(', ')}` });

/** A calendar date (`2024-05-01`) or an ISO 8601 timestamp; impossible dates such as `2024-02-30` are refused. */
export const isoDateSchema = isoDateOrTime();

/** A bare date as an upper bound covers its whole (UTC) day, as the document store reads it. */
function endOf(date: string): number {
  return /^\d{4}-\d{2}-\d{2}$/.test(date) ? Date.parse(date) + 86_399_999 : Date.parse(date);
}

export const documentFilterSchema = z
  .strictObject({
    date_from: isoDateSchema.optional(),
    date_to: isoDateSchema.optional(),
    document_pattern: z.string().max(1000, 'must be at most 1000 characters').optional(),
  })
  .refine((f) => !f.date_from || !f.date_to || Date.parse(f.date_from) <= endOf(f.date_to), {
    path: ['date_to'],
    message: 'must not be before date_from',
  })
  .nullable()
  .optional();

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

const boundedInt = (min: number, max: number) =>
  z.number().int('must be an integer').min(min, `must be between ${min} and ${max}`).max(max, `must be between ${min} and ${max}`);

const retrievalSize = () => boundedInt(LIMIT_BOUNDS.min, LIMIT_BOUNDS.max).optional();

export const queryTextSchema = plainText(
  z.string().trim().min(1, 'must not be empty').max(MAX_QUERY_CHARS, `must be at most ${MAX_QUERY_CHARS} characters`),
);

const providerName = z.string().trim().min(1, 'must not be empty').max(200).nullable().optional();

/** Fields shared by /query, /query/stream and chat: how to retrieve and which model answers. */
export const retrievalFields = {
  mode: modeSchema.optional().describe("default hybrid (chat: the conversation's mode)"),
  system_prompt: z.string().max(32_000, 'must be at most 32000 characters').nullable().optional().describe('prepended to the instructions'),
  document_filter: documentFilterSchema.describe('restricts retrieval to documents by creation date and title; fields AND-ed'),
  llm_provider: providerName.describe('default: the server default provider'),
  llm_model: providerName.describe("default: the provider's default model"),
  enable_rerank: z.boolean().optional().describe('default true'),
  rerank_top_k: boundedInt(1, 100).optional().describe('chunks kept after reranking; default 5'),
  max_entities: retrievalSize().describe('default 20'),
  max_relationships: retrievalSize().describe('default 20'),
  max_chunks: retrievalSize().describe('default 20'),
  max_results: retrievalSize().describe('EdgeQuake name of max_chunks (max_chunks wins when both are given)'),
  temperature: z.number().min(0, 'must be between 0 and 2').max(2, 'must be between 0 and 2').optional().describe('default 0.7'),
  max_tokens: boundedInt(1, 32_768).optional().describe('maximum answer tokens; default 4096'),
};

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

export const chunkSourceSchema = z.object({
  source_type: z.literal('chunk'),
  id: z.string(),
  score: z.number(),
  rerank_score: z.number().optional().describe('present when the chunks were reranked'),
  snippet: z.string(),
  reference_id: z.number().int().describe('the [n] the context and the answer cite'),
  document_id: z.string(),
  document_title: z.string(),
  file_path: z.string(),
  start_line: z.number().int(),
  end_line: z.number().int(),
  chunk_index: z.number().int(),
});

export const entitySourceSchema = z.object({
  source_type: z.literal('entity'),
  id: z.string(),
  name: z.string().optional().describe('the entity name as written; absent from answers stored before names were kept'),
  score: z.number(),
  snippet: z.string().describe('the entity description'),
  reference_id: z.number().int(),
  entity_type: z.string(),
  degree: z.number().int(),
});

export const sourceSchema = z.discriminatedUnion('source_type', [chunkSourceSchema, entitySourceSchema]);

export const statsSchema = z.object({
  embedding_time_ms: z.number().int(),
  retrieval_time_ms: z.number().int().describe('keywords, embedding, search, expansion and reranking'),
  rerank_time_ms: z.number().int(),
  generation_time_ms: z.number().int(),
  total_time_ms: z.number().int(),
  sources_retrieved: z.number().int(),
  tokens_used: z.number().int().describe('input and output tokens of every model call of the request'),
  tokens_per_second: z.number().describe('output tokens per second of generation'),
  llm_provider: z.string(),
  llm_model: z.string(),
  provider: z.string().describe('= llm_provider'),
  model: z.string().describe('= llm_model'),
  total_tokens: z.number().int().describe('= tokens_used'),
  retrieval_count: z.number().int().describe('= sources_retrieved'),
  global_source: z
    .enum(['communities', 'relationships'])
    .nullable()
    .optional()
    .describe(
      'where the global part (global, hybrid, mix) came from: community reports, or relationship search while the ' +
        'workspace has no communities or a document filter applies; null in other modes',
    ),
  community_reports: z.number().int().optional().describe('community reports in the context'),
});

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

/** The first events of every answer stream (query and chat): the sources, then the answer's fragments. */
export const contextEventSchema = z.object({
  type: z.literal('context'),
  sources: z.array(sourceSchema),
  query_mode: modeSchema,
  retrieval_time_ms: z.number().int(),
  no_context: z.boolean().describe('retrieval found nothing: the answer that follows is the "no context" response, not a model\'s'),
});
export const tokenEventSchema = z.object({
  type: z.literal('token'),
  content: z.string(),
  chunk: z.string().describe('= content (EdgeQuake name)'),
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
