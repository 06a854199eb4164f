import type { z } from 'zod';
import type { Scope } from '../../domain/types';
import type { Api } from '../../http/api';
import type { Runtime } from '../../services/runtime';
import { presentTaskDetail, taskDetailSchema } from '../shared/task-present';
import { pageWindow } from '../../http/validate';
import { presentMetadata } from '../shared/document-metadata';
import { presentDeletionImpact, presentDetail, presentList } from './present';
import {
  deletionImpactSchema,
  detailSchema,
  failedChunksSchema,
  idParams,
  listQuery,
  listSchema,
  metadataSchema,
  requeuedSchema,
  retryChunksSchema,
  trackParams,
} from './schemas';

const TAG = 'documents';

/** Listing, reading, deleting and re-running documents. */
export function manageDocumentRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'get',
      path: '/documents',
      tag: TAG,
      summary: 'List documents, newest first',
      description: 'An unparsable `date_from`/`date_to` is 422.',
      query: listQuery,
      responses: { 200: { description: 'A page of documents', schema: listSchema } },
    },
    async (ctx, { query }) => {
      ctx.body = await listDocuments(rt, ctx.state.scope, query);
    },
  );

  api.route(
    {
      method: 'post',
      path: '/documents/reprocess',
      tag: TAG,
      summary: 'Queue every failed document of the workspace for a full run',
      responses: { 200: { description: 'Queued tasks', schema: requeuedSchema('queued') } },
    },
    async (ctx) => {
      const { count, task_ids } = await rt.documents.reprocessFailed(ctx.state.scope);
      ctx.body = { queued: count, task_ids, message: `queued ${count} failed document(s) for reprocessing` };
    },
  );

  api.route(
    {
      method: 'post',
      path: '/documents/recover-stuck',
      tag: TAG,
      summary: 'Queue documents left in processing without a live task',
      responses: { 200: { description: 'Recovered documents', schema: requeuedSchema('recovered') } },
    },
    async (ctx) => {
      const { count, task_ids } = await rt.documents.recoverStuck(ctx.state.scope);
      ctx.body = { recovered: count, task_ids, message: `queued ${count} stuck document(s) again` };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/documents/track/:task_id',
      tag: TAG,
      summary: 'Task status of a queued document (alias of GET /tasks/{id})',
      params: trackParams,
      responses: { 200: { description: 'Task detail', schema: taskDetailSchema } },
    },
    async (ctx, { params }) => {
      ctx.body = presentTaskDetail(await rt.tasks.get(ctx.state.scope, params.task_id));
    },
  );

  api.route(
    {
      method: 'get',
      path: '/documents/:id',
      tag: TAG,
      summary: 'Document detail',
      params: idParams,
      responses: { 200: { description: 'Document', schema: detailSchema } },
    },
    async (ctx, { params }) => {
      ctx.body = presentDetail(await rt.documents.get(ctx.state.scope, params.id));
    },
  );

  api.route(
    {
      method: 'get',
      path: '/documents/:id/metadata',
      tag: TAG,
      summary: 'Flat document metadata (page_count and pdf_id for PDFs)',
      params: idParams,
      responses: { 200: { description: 'Metadata', schema: metadataSchema } },
    },
    async (ctx, { params }) => {
      ctx.body = presentMetadata(await rt.documents.get(ctx.state.scope, params.id));
    },
  );

  api.route(
    {
      method: 'delete',
      path: '/documents/:id',
      tag: TAG,
      summary: 'Delete a document with its chunks, vectors and the graph data only it supported',
      description: 'A task still processing the document is cancelled first. 404 when absent from the workspace.',
      params: idParams,
      responses: { 204: { description: 'Deleted' } },
    },
    async (ctx, { params }) => {
      await rt.documents.remove(ctx.state.scope, params.id);
      ctx.status = 204;
    },
  );

  api.route(
    {
      method: 'get',
      path: '/documents/:id/deletion-impact',
      tag: TAG,
      summary: 'What deleting the document would remove or rewrite',
      params: idParams,
      responses: { 200: { description: 'Impact', schema: deletionImpactSchema } },
    },
    async (ctx, { params }) => {
      const [impact, doc] = await Promise.all([
        rt.documents.deletionImpact(ctx.state.scope, params.id),
        rt.documents.get(ctx.state.scope, params.id),
      ]);
      ctx.body = presentDeletionImpact(impact, doc.chunk_count);
    },
  );

  api.route(
    {
      method: 'post',
      path: '/documents/:id/retry-chunks',
      tag: TAG,
      summary: 'Queue a run over the failed chunks of a failed document',
      description: '409 when the document is not failed or has no failed chunks.',
      params: idParams,
      responses: { 200: { description: 'Queued', schema: retryChunksSchema } },
    },
    async (ctx, { params }) => {
      const { taskId, failedChunks } = await rt.documents.retryChunks(ctx.state.scope, params.id);
      ctx.body = {
        document_id: params.id,
        task_id: taskId,
        failed_chunks: failedChunks,
        message: `queued ${failedChunks} failed chunk(s) for retry`,
      };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/documents/:id/failed-chunks',
      tag: TAG,
      summary: 'Chunks whose extraction failed, with the reason',
      params: idParams,
      responses: { 200: { description: 'Failed chunks', schema: failedChunksSchema } },
    },
    async (ctx, { params }) => {
      const chunks = await rt.documents.failedChunks(ctx.state.scope, params.id);
      ctx.body = { document_id: params.id, failed_chunks: chunks, total: chunks.length };
    },
  );
}

/** A page of documents as GET /documents answers it (also the `list_documents` tool). */
export async function listDocuments(rt: Runtime, scope: Scope, query: z.output<typeof listQuery>) {
  const terms = query.document_pattern
    ?.split(',')
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean);
  const { limit, offset } = pageWindow(query, 1000);
  const page = await rt.documents.list(scope, {
    limit,
    offset,
    status: query.status === 'all' ? undefined : query.status,
    dateFrom: query.date_from,
    dateTo: query.date_to,
    titleTerms: terms?.length ? terms : undefined,
  });
  return presentList(page.items, page.total, limit, offset);
}
