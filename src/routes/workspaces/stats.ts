import { z } from 'zod';
import type { Api } from '../../http/api';
import type { WorkspaceStats } from '../../graph/workspace-stats';
import type { Runtime } from '../../services/runtime';

const workspaceStatsSchema = z.object({
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
  document_count: z.number().int().describe('= documents.total'),
  chunk_count: z.number().int().describe('= chunks.total'),
  entity_count: z.number().int().describe('= entities.total'),
  relationship_count: z.number().int().describe('= relationships.total'),
  storage_size_bytes: z.number().int().describe('= storage.total_bytes'),
});

/** The statistics with EdgeQuake's flat names beside the spec's. */
function presentStats(s: WorkspaceStats) {
  return {
    ...s,
    document_count: s.documents.total,
    chunk_count: s.chunks.total,
    entity_count: s.entities.total,
    relationship_count: s.relationships.total,
    storage_size_bytes: s.storage.total_bytes,
  };
}

const paramsSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'must be 1-128 letters, digits, ".", "_" or "-"'),
});

/** Workspace statistics (docs/api.md §4.9), for the workspace named in the path within the caller's tenant. */
export function workspaceStatsRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'get',
      path: '/workspaces/:id/stats',
      tag: 'workspaces',
      summary: 'Document, chunk, entity, relationship and storage statistics of a workspace',
      params: paramsSchema,
      responses: { 200: { description: 'Workspace statistics', schema: workspaceStatsSchema } },
    },
    async (ctx, { params }) => {
      const { tenantId } = ctx.state.scope;
      ctx.body = presentStats(await rt.graph.workspaceStats(tenantId ? { workspaceId: params.id, tenantId } : { workspaceId: params.id }));
    },
  );
}
