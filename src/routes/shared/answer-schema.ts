import { z } from 'zod';
import { LIMIT_BOUNDS, QUERY_MODES } from '../../retrieval';
import { isoDateSchema } from './params';

/** What the answer routes share: /query and /query/stream, chat, stored conversations (docs/api.md §4.3, §4.4, §6). */

export const MAX_QUERY_CHARS = 8000;

export const modeSchema = z.enum(QUERY_MODES, { error: `must be one of ${QUERY_MODES.join(', ')}` });

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

const boundedInt = (min: number, max: number) =>
  z.number().int('must be an integer').min(min, `must be between ${min} and ${max}`).max(max, `must be between ${min} and ${max}`);

const retrievalSize = () => boundedInt(LIMIT_BOUNDS.min, LIMIT_BOUNDS.max).optional();

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
