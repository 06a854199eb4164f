import type { Api } from '../../http/api';
import type { Runtime } from '../../services/runtime';
import { spending } from '../shared/budget-gate';
import { presentHistory, presentUpdated } from './present';
import { historySchema, idParams, updatedSchema, updateDocumentBody } from './schemas';

/** Replacing a document's content in place. */
export function updateDocumentRoutes(api: Api, rt: Runtime): void {
  const ingestion = spending(rt, 'ingestion');
  api.route(
    {
      method: 'put',
      path: '/documents/:id',
      tag: 'documents',
      summary: "Replace a document's content (incremental update)",
      description:
        'The new text is chunked; chunks whose text the document already had keep their extraction, only new or changed ' +
        'chunks are extracted; what only removed chunks supported leaves the graph, as in deletion. The document keeps its ' +
        'id; `version` goes up by one and `updated_at` is set. Updates of one document run one after the other. The same ' +
        'content again changes nothing (only `title` and `metadata`, when given). Processing runs within the request; when ' +
        'an extraction fails, nothing changes and the answer is 503.',
      params: idParams,
      body: updateDocumentBody,
      before: ingestion.before,
      responses: {
        ...ingestion.budgetResponse,
        200: { description: 'Updated', schema: updatedSchema },
        404: { description: 'No such document in the workspace' },
        409: {
          description:
            'The document is processing or failed, is not at `expected_version`, or another document has this content (`duplicate_of`)',
        },
        413: { description: 'Content over 10 MB' },
        422: { description: 'Empty content or a field breaking its rule' },
        503: { description: 'The LLM provider failed; the previous version is kept' },
      },
    },
    async (ctx, { params, body }) => {
      const result = await rt.documents.update(ctx.state.scope, params.id, {
        content: body.content,
        title: body.title ?? undefined,
        metadata: body.metadata ?? undefined,
        expectedVersion: body.expected_version,
      });
      ctx.body = presentUpdated(result);
    },
  );
  api.route(
    {
      method: 'get',
      path: '/documents/:id/history',
      tag: 'documents',
      summary: "A document's content updates and what each cost",
      description:
        'One entry per content update, oldest first (the last 50): the version it made, when, and its accounting: chunks ' +
        'reused and extracted, LLM calls by kind, tokens, records re-summarised, entities resolved, texts embedded. The ' +
        'community reports an update caused are written by the community run that follows it; once that run is over, ' +
        'their calls (`community_report`) and tokens are in the entry.',
      params: idParams,
      responses: {
        200: { description: 'The history', schema: historySchema },
        404: { description: 'No such document in the workspace' },
      },
    },
    async (ctx, { params }) => {
      ctx.body = presentHistory(params.id, await rt.documents.history(ctx.state.scope, params.id));
    },
  );
}
