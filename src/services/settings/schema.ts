import { z } from 'zod';
import { QUERY_MODES } from '../../retrieval/recipes';

/**
 * Runtime settings (docs/api.md §4.11): what an operator may change while the service runs. The same schema
 * validates PATCH /settings and documents the fields in the OpenAPI document. Nothing secret lives here.
 */

const int = (min: number, max: number) => z.number().int().min(min).max(max);

export const querySettingsSchema = z.strictObject({
  default_mode: z.enum(QUERY_MODES).describe('Mode of a query that names none'),
  enable_rerank: z.boolean().describe('Whether a query that does not say reranks its chunks'),
  rerank_top_k: int(1, 100).describe('Chunks kept after reranking when a query does not say'),
});

export const ingestSettingsSchema = z.strictObject({
  chunk_tokens: int(16, 100_000).describe('Tokens per chunk of documents ingested from now on'),
  chunk_overlap_tokens: int(0, 99_999).describe('Tokens shared by neighbouring chunks; smaller than chunk_tokens'),
  max_gleaning: int(0, 10).describe('Extra extraction passes per chunk asking for what was missed'),
  summary_entity_fragments: int(1, 1000).describe('Description fragments of an entity above which an LLM summary is written'),
  summary_entity_tokens: int(1, 1_000_000).describe('Description tokens of an entity above which an LLM summary is written'),
  summary_relationship_fragments: int(1, 1000).describe('The same threshold for relationships (fragments)'),
  summary_relationship_tokens: int(1, 1_000_000).describe('The same threshold for relationships (tokens)'),
});

export const rateLimitSettingsSchema = z.strictObject({
  window_ms: int(1000, 86_400_000).describe('Length of the rate-limit window'),
  upload: int(0, 1_000_000).describe('Uploads per window and caller; 0 turns the limit off'),
  query: int(0, 1_000_000).describe('Queries and chat turns per window and caller; 0 turns the limit off'),
  graph: int(0, 1_000_000).describe('Graph reads per window and caller; 0 turns the limit off'),
});

export const settingsSchema = z
  .strictObject({
    query: querySettingsSchema,
    ingest: ingestSettingsSchema,
    rate_limits: rateLimitSettingsSchema,
  })
  .meta({ id: 'Settings' });

/** A change: any subset of the fields of each section. */
export const settingsPatchSchema = z
  .strictObject({
    query: querySettingsSchema.partial().optional(),
    ingest: ingestSettingsSchema.partial().optional(),
    rate_limits: rateLimitSettingsSchema.partial().optional(),
  })
  .meta({ id: 'SettingsPatch' });

export type RuntimeSettings = z.output<typeof settingsSchema>;
export type SettingsPatch = z.output<typeof settingsPatchSchema>;
