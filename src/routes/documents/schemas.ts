import { z } from 'zod';
import { boundedJsonObject, isoDateOrTime, pagingAliases, plainText, queryInt } from '../../http/validate';

const ingestOptionFields = {
  async_processing: z.boolean().default(false).describe('Queue the document as a task instead of processing it within the request'),
  track_id: z.string().max(256).nullish().describe('Client-chosen id echoed in responses and the document'),
  enable_gleaning: z.boolean().default(true).describe('Extra extraction passes asking for missed entities'),
  max_gleaning: z
    .number()
    .int()
    .min(0)
    .max(5)
    .optional()
    .describe('Gleaning passes per chunk (0-5); default: the max_gleaning setting (1)'),
  use_llm_summarization: z.boolean().default(true).describe('Let the LLM merge long entity descriptions'),
};

/**
 * A document's text: not blank, and free of NUL characters, which are refused as binary data exactly as a NUL
 * byte in an uploaded text file is (docs/api.md §8.1).
 */
const documentText = (description: string) =>
  plainText(z.string().regex(/\S/, 'must not be empty'), 'contains binary data (NUL characters), not text').describe(description);

export const createDocumentBody = z.object({
  content: documentText('Document text (at most 10 MB, no NUL characters)'),
  title: plainText(z.string().max(1000)).nullish().describe('Defaults to the first line of the content'),
  source: z.string().max(4096).nullish().describe('Where the text came from; used as file_path'),
  metadata: boundedJsonObject().nullish().describe('Free-form object kept with the document (at most 32 levels deep, 64 KB)'),
  ...ingestOptionFields,
});
export type CreateDocumentBody = z.output<typeof createDocumentBody>;

/** Form text fields arrive as strings. */
const boolText = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0'], { message: "must be 'true' or 'false'" })
    .transform((v) => v === 'true' || v === '1')
    .default(def);

function jsonObjectText<T extends z.ZodType>(shape: T, label: string) {
  return z.string().transform((raw, ctx): z.output<T> => {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      ctx.issues.push({ code: 'custom', input: raw, message: `must be ${label} as JSON text` });
      return z.NEVER;
    }
    const parsed = shape.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
        ctx.issues.push({ code: 'custom', input: raw, message: `${where}${issue.message}` });
      }
      return z.NEVER;
    }
    return parsed.data;
  });
}

const metadataObject = boundedJsonObject('must be a JSON object');
export const pdfConfig = z
  .object({
    enhance_tables: z.boolean().optional(),
    mode: z.string().max(64).optional(),
  })
  .strict();

const uploadOptionFields = {
  title: plainText(z.string().max(1000)).optional().describe('Defaults to the filename'),
  metadata: jsonObjectText(metadataObject, 'an object').optional().describe('JSON text of an object'),
  async_processing: boolText(false).describe("'true' queues the document as a task"),
  track_id: z.string().max(256).optional(),
  enable_gleaning: boolText(true),
  max_gleaning: z.coerce.number({ message: 'must be a whole number' }).int().min(0).max(5).optional(),
  use_llm_summarization: boolText(true),
};

export const uploadFields = z.object({
  ...uploadOptionFields,
  replace_existing: boolText(false).describe(
    "'true' replaces the content of the document uploaded under the same file name in the workspace, if there is one",
  ),
  config: jsonObjectText(pdfConfig, 'an object with enhance_tables (boolean) and mode (string)')
    .optional()
    .describe('PDF processing configuration as JSON text; kept as metadata.pdf_config'),
});
export type UploadFields = z.output<typeof uploadFields>;

export const batchFields = z.object(uploadOptionFields).omit({ title: true });
export type BatchFields = z.output<typeof batchFields>;

const binary = (description: string) => z.string().meta({ format: 'binary', description });

/** For the OpenAPI document: the parts of the upload forms. */
export const uploadForm = z.object({
  file: binary('The document: .pdf (50 MB), .txt, .md or .json (10 MB each)'),
  title: z.string().optional(),
  metadata: z.string().optional().describe('JSON text of an object'),
  config: z.string().optional().describe('JSON text {"enhance_tables": boolean, "mode": string}'),
  async_processing: z.enum(['true', 'false']).optional(),
  track_id: z.string().optional(),
  enable_gleaning: z.enum(['true', 'false']).optional(),
  max_gleaning: z.string().optional().describe('0-5, default 1'),
  use_llm_summarization: z.enum(['true', 'false']).optional(),
  replace_existing: z.enum(['true', 'false']).optional().describe('Replace the document of the same file name (200 with the update)'),
});

export const batchForm = z.object({
  files: z.array(binary('One document per part')).describe('Repeated `files` parts'),
  metadata: z.string().optional().describe('JSON text of an object, applied to every file'),
  async_processing: z.enum(['true', 'false']).optional(),
  track_id: z.string().optional(),
  enable_gleaning: z.enum(['true', 'false']).optional(),
  max_gleaning: z.string().optional(),
  use_llm_summarization: z.enum(['true', 'false']).optional(),
});

export const scanBody = z.object({
  path: z.string().min(1).describe('Absolute server directory under one of the scan roots (SERVICE_SCAN_ROOTS)'),
  recursive: z.boolean().default(true),
  extensions: z.array(z.string().min(1).max(16)).max(16).optional().describe('e.g. [".md", ".txt"]; all supported when absent'),
  max_files: z.number().int().min(1).max(10_000).default(1000),
});

const isoDate = isoDateOrTime();

export const listQuery = z.object({
  limit: queryInt(50, 1, 1000),
  offset: queryInt(0, 0, Number.MAX_SAFE_INTEGER),
  ...pagingAliases,
  status: z.enum(['processing', 'completed', 'failed', 'all']).default('all'),
  date_from: isoDate.optional().describe('Created on or after (inclusive)'),
  date_to: isoDate.optional().describe('Created on or before (inclusive; a bare date covers the whole day)'),
  document_pattern: z.string().max(1000).optional().describe('Comma-separated title terms, case-insensitive, any may match'),
});

export const idParams = z.object({ id: z.string().min(1).max(256) });
export const trackParams = z.object({ task_id: z.string().min(1).max(256) });

const timestamp = z.string().describe('ISO 8601 timestamp');
const documentStatus = z.enum(['processing', 'completed', 'failed']);

const warningSchema = z.object({
  code: z.enum(['records_dropped', 'output_truncated', 'output_looped', 'completion_marker_missing', 'empty_output', 'no_entities']),
  message: z.string(),
});
const warningsField = z.array(warningSchema).describe('What a user should know of the extraction (docs/api.md, "Extraction health")');

const chunkIndexes = z.array(z.number().int());
export const extractionSchema = z
  .object({
    chunks: z.number().int(),
    chunks_with_records: z.number().int().describe('Chunks with at least one record grounded in their text'),
    records_parsed: z.number().int(),
    records_kept: z.number().int(),
    records_dropped: z.number().int(),
    dropped: z
      .record(z.string(), z.number().int())
      .describe('Dropped records by reason: malformed, self_loop, not_in_text, placeholder, example'),
    truncated_chunks: chunkIndexes.describe('Chunks whose output was cut at the output limit (at most 50 listed)'),
    unmarked_chunks: chunkIndexes.describe('Chunks whose output did not end with the completion marker'),
    looping_chunks: chunkIndexes.describe('Chunks whose output repeated itself'),
    timed_out_chunks: chunkIndexes.describe('Chunks whose extraction call timed out'),
    passes: z.number().int(),
    empty_outputs: z.number().int(),
    prompt_version: z.number().int().nullable(),
    prompt_override: z.string().nullable().describe('the extraction prompt override used (SERVICE_PROMPTS_DIR), if one was'),
    warnings: z.array(warningSchema),
  })
  .nullable()
  .describe('Extraction health of the last run; null before a run finished');

export const syncCreatedSchema = z.object({
  id: z.string(),
  document_id: z.string().describe('= id'),
  title: z.string(),
  status: z.enum(['completed', 'failed']).describe('`failed` when processing failed within the request; see `error`'),
  content_hash: z.string(),
  chunk_count: z.number().int(),
  entity_count: z.number().int(),
  relationship_count: z.number().int(),
  created_at: timestamp,
  processing_time_ms: z.number().int(),
  error: z.string().nullable(),
  track_id: z.string().nullable(),
  warnings: warningsField,
});

export const asyncCreatedSchema = z.object({
  id: z.string(),
  document_id: z.string().describe('= id'),
  title: z.string(),
  status: z.literal('processing'),
  task_id: z.string(),
  message: z.string(),
  track_id: z.string().describe('the client-chosen track_id, else the task id'),
});

export const batchItemSchema = z.object({
  filename: z.string(),
  document_id: z.string().nullable(),
  status: z.enum(['success', 'duplicate', 'failed']),
  chunk_count: z.number().int().nullable().describe('null while the document is queued'),
  duplicate_of: z.string().nullable(),
  error: z.string().nullable(),
  task_id: z.string().nullable(),
});

export const batchSchema = z.object({
  results: z.array(batchItemSchema),
  processed: z.number().int(),
  duplicates: z.number().int(),
  failed: z.number().int(),
  total_files: z.number().int(),
});

export const scanSchema = batchSchema.omit({ total_files: true }).extend({
  path: z.string(),
  files_found: z.number().int(),
  skipped: z.number().int().describe('Files found but not ingested: other extensions, links outside the roots, beyond max_files'),
  files_queued: z.number().int().describe('Files admitted (queued)'),
  files_skipped: z.number().int().describe('= skipped'),
});

export const listItemSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: documentStatus,
  chunk_count: z.number().int(),
  created_at: timestamp,
  entity_count: z.number().int(),
  relationship_count: z.number().int(),
  file_size: z.number().int(),
  updated_at: timestamp,
  track_id: z.string().nullable(),
  error_message: z.string().nullable(),
  warnings: warningsField,
});

export const listSchema = z.object({
  documents: z.array(listItemSchema),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
  total_pages: z.number().int(),
  has_more: z.boolean(),
});

export const detailSchema = listItemSchema.extend({
  content: z.string(),
  file_name: z.string(),
  file_type: z.string(),
  completed_at: timestamp.nullable(),
  content_hash: z.string(),
  entity_count: z.number().int(),
  relationship_count: z.number().int(),
  file_path: z.string(),
  file_size: z.number().int(),
  document_type: z.string(),
  source: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  updated_at: timestamp,
  processed_at: timestamp.nullable(),
  processing_time_ms: z.number().int().nullable(),
  error: z.string().nullable(),
  track_id: z.string().nullable(),
  task_id: z.string().nullable(),
  version: z.number().int().describe('1 at upload, one more at every content change (PUT /documents/{id})'),
  extraction: extractionSchema,
});

export const metadataSchema = z.object({
  id: z.string(),
  title: z.string(),
  document_type: z.string(),
  file_path: z.string(),
  file_size_bytes: z.number().int(),
  sha256_checksum: z.string().describe('hex digest of the uploaded bytes (of the text for JSON uploads)'),
  page_count: z.number().int().optional().describe('PDF only'),
  pdf_id: z.string().optional().describe('PDF only'),
  status: documentStatus,
  created_at: timestamp,
  processed_at: timestamp.nullable(),
  llm_model: z.string().nullable(),
  embedding_model: z.string().nullable(),
  chunk_count: z.number().int(),
  source: z.string().nullable(),
  track_id: z.string().nullable(),
  custom: z.record(z.string(), z.unknown()).describe('The metadata object given at upload'),
});

export const deletionImpactSchema = z.object({
  document_id: z.string(),
  entities_affected: z.number().int(),
  entities_to_delete: z.number().int(),
  entities_to_update: z.number().int(),
  relationships_affected: z.number().int(),
  relationships_to_delete: z.number().int(),
  relationships_to_update: z.number().int(),
  entity_count: z.number().int().describe('= entities_affected'),
  relationship_count: z.number().int().describe('= relationships_affected'),
  chunk_count: z.number().int().describe('Chunks deleted with the document'),
  exclusive_entities: z.number().int().describe('= entities_to_delete'),
  exclusive_relationships: z.number().int().describe('= relationships_to_delete'),
});

export const requeuedSchema = (countField: 'queued' | 'recovered') =>
  z.object({ [countField]: z.number().int(), task_ids: z.array(z.string()), message: z.string() });

export const retryChunksSchema = z.object({
  document_id: z.string(),
  task_id: z.string(),
  failed_chunks: z.number().int().describe('How many failed chunks the task retries'),
  message: z.string(),
});

export const failedChunksSchema = z.object({
  document_id: z.string(),
  failed_chunks: z.array(z.object({ chunk_id: z.string(), index: z.number().int(), error: z.string().nullable() })),
  total: z.number().int(),
});

export const updateDocumentBody = z.object({
  content: documentText('The new text (at most 10 MB, no NUL characters)'),
  title: plainText(z.string().max(1000)).nullish().describe('A new title; the current one is kept when absent'),
  metadata: boundedJsonObject().nullish().describe('Replaces the metadata when given (at most 32 levels deep, 64 KB)'),
  expected_version: z.number().int().min(1).optional().describe('Refuse with 409 unless the document is at this version'),
});
export type UpdateDocumentBody = z.output<typeof updateDocumentBody>;

const callCount = z.number().int();

export const updateAccountSchema = z.object({
  chunks_total: z.number().int(),
  chunks_reused: z.number().int().describe('Chunks whose text was already there: their extraction is reused'),
  chunks_extracted: z.number().int(),
  chunks_removed: z.number().int().describe('Previous chunks whose text is gone'),
  llm_calls: z.number().int().describe('LLM provider calls of the update, every kind (cached answers are not calls)'),
  llm_calls_by_kind: z.object({
    extraction: callCount,
    gleaning: callCount,
    summary: callCount,
    resolution: callCount,
    community_report: callCount,
    other: callCount,
  }),
  usage: z.object({ input_tokens: z.number().int(), output_tokens: z.number().int() }),
  records_resummarised: z.number().int().describe('Entities and relationships given a new LLM summary'),
  entities_resolved: z.number().int().describe('Entities new to the graph matched by entity resolution'),
  chunks_embedded: z.number().int().describe('Chunks embedded: those whose text is new'),
  records_reembedded: z.number().int().describe('Entities and relationships re-embedded: their text or documents changed'),
});

export const updatedSchema = z.object({
  id: z.string(),
  document_id: z.string().describe('= id'),
  title: z.string(),
  status: z.literal('completed'),
  content_hash: z.string(),
  version: z.number().int().describe('1 at upload, one more at every content change'),
  chunk_count: z.number().int(),
  entity_count: z.number().int(),
  relationship_count: z.number().int(),
  created_at: timestamp,
  updated_at: timestamp,
  processing_time_ms: z.number().int(),
  update: updateAccountSchema,
});

export const historySchema = z.object({
  document_id: z.string(),
  history: z.array(
    updateAccountSchema.extend({
      version: z.number().int().describe('The version the update made'),
      at: timestamp,
      processing_time_ms: z.number().int(),
    }),
  ),
});
