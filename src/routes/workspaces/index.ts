import { z } from 'zod';
import type { Api } from '../../http/api';
import { principalOf } from '../../http/context';
import { queryInt } from '../../http/validate';
import type { Runtime } from '../../services/runtime';
import { pageQuery, uuid } from '../shared/params';
import { createWorkspaceSchema, workspaceSchema } from '../shared/workspace';
import {
  historyEntrySchema,
  presentHistory,
  presentStats,
  rebuildEmbeddingsSchema,
  rebuildGraphSchema,
  rebuildGraphStartedSchema,
  rebuildStartedSchema,
  reprocessStartedSchema,
  snapshotSchema,
  updateWorkspaceSchema,
  workspaceStatsSchema,
} from './schema';

/** A workspace in a path: its UUID or its slug (docs/api.md §4.6); anything else names no workspace (404). */
const params = z.object({ id: z.string().min(1).max(128).describe('The workspace UUID or slug') });

/** Workspaces (docs/api.md §4.6, §4.9): each call names its workspace in the path, within the caller's tenants. */
export function workspaceRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'post',
      path: '/workspaces',
      tag: 'workspaces',
      access: 'admin',
      workspace: false,
      summary: 'Create a workspace in the tenant of X-Tenant-ID, else the caller\u2019s',
      body: createWorkspaceSchema,
      responses: { 201: { description: 'The workspace', schema: workspaceSchema } },
    },
    async (ctx, { body }) => {
      ctx.status = 201;
      ctx.body = await rt.tenancy.createWorkspace(principalOf(ctx), ctx.get('X-Tenant-ID').trim() || null, body);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/workspaces',
      tag: 'workspaces',
      workspace: false,
      summary: 'List workspaces of the tenant of tenant_id or X-Tenant-ID (operators without either: every workspace)',
      query: pageQuery.extend({ tenant_id: uuid('tenant_id').optional() }),
      responses: {
        200: { description: 'Workspaces', schema: z.object({ workspaces: z.array(workspaceSchema), total: z.number().int() }) },
      },
    },
    async (ctx, { query }) => {
      const tenantId = query.tenant_id ?? (ctx.get('X-Tenant-ID').trim() || null);
      const page = await rt.tenancy.listWorkspaces(principalOf(ctx), tenantId, query);
      ctx.body = { workspaces: page.items, total: page.total };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/workspaces/:id',
      tag: 'workspaces',
      workspace: false,
      summary: 'A workspace',
      params,
      responses: { 200: { description: 'The workspace', schema: workspaceSchema } },
    },
    async (ctx, { params }) => {
      ctx.body = await rt.tenancy.getWorkspace(principalOf(ctx), params.id);
    },
  );

  // PUT is EdgeQuake's name for the same change (docs/api.md §10).
  for (const method of ['patch', 'put'] as const) {
    api.route(
      {
        method,
        path: '/workspaces/:id',
        tag: 'workspaces',
        access: 'admin',
        workspace: false,
        summary:
          method === 'patch'
            ? 'Change a workspace (embedding changes of a workspace holding data need rebuild-embeddings: 409)'
            : 'Same as PATCH (EdgeQuake name)',
        params,
        body: updateWorkspaceSchema,
        responses: { 200: { description: 'The workspace', schema: workspaceSchema } },
      },
      async (ctx, { params, body }) => {
        ctx.body = await rt.tenancy.updateWorkspace(principalOf(ctx), params.id, body);
      },
    );
  }

  api.route(
    {
      method: 'delete',
      path: '/workspaces/:id',
      tag: 'workspaces',
      access: 'admin',
      workspace: false,
      summary: 'Delete a workspace with all its data (documents, chunks, vectors, graph, tasks, conversations, lineage, snapshots)',
      params,
      responses: { 204: { description: 'Deleted' } },
    },
    async (ctx, { params }) => {
      await rt.tenancy.deleteWorkspace(principalOf(ctx), params.id);
      ctx.status = 204;
    },
  );

  api.route(
    {
      method: 'get',
      path: '/workspaces/:id/stats',
      tag: 'workspaces',
      workspace: false,
      summary: 'Document, chunk, entity, relationship and storage statistics of a workspace',
      params,
      responses: { 200: { description: 'Workspace statistics', schema: workspaceStatsSchema } },
    },
    async (ctx, { params }) => {
      ctx.body = presentStats(await rt.tenancy.stats(principalOf(ctx), params.id));
    },
  );

  api.route(
    {
      method: 'post',
      path: '/workspaces/:id/metrics-snapshot',
      tag: 'workspaces',
      workspace: false,
      summary: 'Store the workspace statistics of this moment',
      params,
      responses: { 201: { description: 'The snapshot', schema: snapshotSchema.extend({ workspace_id: z.string() }) } },
    },
    async (ctx, { params }) => {
      const snapshot = await rt.tenancy.snapshot(principalOf(ctx), params.id);
      ctx.status = 201;
      ctx.body = { ...snapshot, stats: presentStats(snapshot.stats) };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/workspaces/:id/metrics-history',
      tag: 'workspaces',
      workspace: false,
      summary: 'Stored snapshots of the last `days` days, oldest first',
      params,
      query: z.object({ days: queryInt(7, 1, 366) }),
      responses: {
        200: {
          description: 'History',
          schema: z.object({
            workspace_id: z.string(),
            days: z.number().int(),
            since: z.string(),
            snapshots: z.array(snapshotSchema),
            total: z.number().int(),
            entries: z.array(historyEntrySchema).describe('EdgeQuake name: the snapshots as flat counts'),
          }),
        },
      },
    },
    async (ctx, { params, query }) => {
      ctx.body = presentHistory(await rt.tenancy.history(principalOf(ctx), params.id, query.days));
    },
  );

  api.route(
    {
      method: 'post',
      path: '/workspaces/:id/rebuild-embeddings',
      tag: 'workspaces',
      access: 'admin',
      workspace: false,
      summary: 'Re-embed every chunk, entity and relationship with another embedding model or dimension, as a task',
      description:
        'Queries keep answering from the old vectors until the swap; the workspace then uses the new model. Follow the task at /tasks/{task_id}.',
      params,
      body: rebuildEmbeddingsSchema,
      responses: { 202: { description: 'The rebuild task', schema: rebuildStartedSchema } },
    },
    async (ctx, { params, body }) => {
      ctx.status = 202;
      ctx.body = await rt.tenancy.rebuildEmbeddings(principalOf(ctx), params.id, body);
    },
  );

  api.route(
    {
      method: 'post',
      path: '/workspaces/:id/rebuild-knowledge-graph',
      tag: 'workspaces',
      access: 'admin',
      workspace: false,
      summary: 'Re-extract the graph of every document with the given LLM (kept as the workspace\u2019s), as document tasks',
      params,
      body: rebuildGraphSchema,
      responses: { 202: { description: 'The queued document tasks', schema: rebuildGraphStartedSchema } },
    },
    async (ctx, { params, body }) => {
      ctx.status = 202;
      ctx.body = await rt.tenancy.rebuildKnowledgeGraph(principalOf(ctx), params.id, body);
    },
  );

  api.route(
    {
      method: 'post',
      path: '/workspaces/:id/reprocess-documents',
      tag: 'workspaces',
      workspace: false,
      summary: 'Process every finished document of the workspace again, as document tasks',
      params,
      responses: { 202: { description: 'The queued document tasks', schema: reprocessStartedSchema } },
    },
    async (ctx, { params }) => {
      ctx.status = 202;
      ctx.body = await rt.tenancy.reprocessDocuments(principalOf(ctx), params.id);
    },
  );
}
