import { z } from 'zod';
import { atLeastOneOf } from '../../http/validate';
import type { WorkspaceStats } from '../../graph/workspace-stats';
import { modelName, models, name, slug } from '../shared/workspace';

const updateWorkspaceFields = { name: name.optional(), slug: slug.optional(), description: z.string().max(2000).optional(), ...models };

export const updateWorkspaceSchema = atLeastOneOf(
  z.object(updateWorkspaceFields),
  Object.keys(updateWorkspaceFields),
  'name at least one field to change',
);

export const workspaceStatsSchema = z.object({
  workspace_id: z.string(),
  documents: z.object({
    total: z.number().int(),
    completed: z.number().int(),
    processing: z.number().int(),
    failed: z.number().int(),
  }),
  chunks: z.object({ total: z.number().int(), avg_per_document: z.number() }),
  entities: z.object({ total: z.number().int(), by_type: z.record(z.string(), z.number().int()) }),
  relationships: z.object({ total: z.number().int() }),
  storage: z.object({
    documents_bytes: z.number().int().describe('UTF-8 bytes of document and chunk texts'),
    embeddings_bytes: z.number().int(),
    total_bytes: z.number().int(),
  }),
  extraction: z
    .object({
      documents_with_warnings: z.number().int().describe('completed documents whose extraction has warnings'),
      documents_failed_extraction: z.number().int().describe('failed documents: the model yielded no grounded record, or a chunk failed'),
      records_parsed: z.number().int(),
      records_kept: z.number().int(),
      records_dropped: z.number().int(),
      dropped: z.record(z.string(), z.number().int()).describe('by reason: malformed, self_loop, not_in_text, placeholder, example'),
      truncated_chunks: z.number().int().describe('chunks whose output was cut at the output limit'),
      timed_out_chunks: z.number().int(),
    })
    .optional()
    .describe('extraction health of the documents\' last runs (docs/api.md, "Extraction health")'),
  document_count: z.number().int().describe('= documents.total'),
  chunk_count: z.number().int().describe('= chunks.total'),
  entity_count: z.number().int().describe('= entities.total'),
  relationship_count: z.number().int().describe('= relationships.total'),
  storage_size_bytes: z.number().int().describe('= storage.total_bytes'),
});

/** The statistics with EdgeQuake's flat names beside the spec's (docs/api.md §10). */
export function presentStats(s: WorkspaceStats) {
  return {
    ...s,
    document_count: s.documents.total,
    chunk_count: s.chunks.total,
    entity_count: s.entities.total,
    relationship_count: s.relationships.total,
    storage_size_bytes: s.storage.total_bytes,
  };
}

export const snapshotSchema = z.object({ id: z.string(), created_at: z.string(), stats: workspaceStatsSchema });

export const historyEntrySchema = z.object({
  timestamp: z.string().describe('= created_at of the snapshot'),
  document_count: z.number().int(),
  chunk_count: z.number().int(),
  entity_count: z.number().int(),
  relationship_count: z.number().int(),
  storage_size_bytes: z.number().int(),
});

/** The history, with EdgeQuake's flat `entries` beside the snapshots (docs/api.md §10). */
export function presentHistory<H extends { snapshots: Array<{ created_at: string; stats: WorkspaceStats }> }>(h: H) {
  return {
    ...h,
    snapshots: h.snapshots.map((s) => ({ ...s, stats: presentStats(s.stats) })),
    entries: h.snapshots.map((s): z.input<typeof historyEntrySchema> => {
      const flat = presentStats(s.stats);
      return {
        timestamp: s.created_at,
        document_count: flat.document_count,
        chunk_count: flat.chunk_count,
        entity_count: flat.entity_count,
        relationship_count: flat.relationship_count,
        storage_size_bytes: flat.storage_size_bytes,
      };
    }),
  };
}

/** docs/api.md §4.6 `{embedding_model, embedding_dimension}`; the provider defaults to the workspace's. */
export const rebuildEmbeddingsSchema = z.object({
  embedding_model: modelName,
  embedding_dimension: z.number().int().min(1).max(4096).optional().describe('Default: the catalog dimension of the model'),
  embedding_provider: modelName.optional(),
});

export const rebuildStartedSchema = z.object({
  task_id: z.string(),
  status: z.literal('running'),
  workspace_id: z.string(),
  embedding_provider: z.string(),
  embedding_model: z.string(),
  embedding_dimension: z.number().int(),
});

/** docs/api.md §4.6 `{llm_model}`. */
export const rebuildGraphSchema = z.object({ llm_model: modelName, llm_provider: modelName.optional() });

export const reprocessStartedSchema = z.object({ workspace_id: z.string(), queued: z.number().int(), task_ids: z.array(z.string()) });

export const rebuildGraphStartedSchema = reprocessStartedSchema.extend({ llm_provider: z.string(), llm_model: z.string() });
