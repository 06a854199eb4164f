import type { Api } from '../../http/api';
import { parseOrThrow } from '../../http/validate';
import { validationError } from '../../http/problem';
import type { Runtime } from '../../services/runtime';
import { manageDocumentRoutes } from './manage';
import { updateDocumentRoutes } from './update';
import { fileParts, formFields, MAX_BATCH_BYTES, MAX_PART_BYTES, multipartBody, singleFile } from './multipart';
import { presentBatch, presentCreated, presentScan, presentUpdated, requestFromBody, requestFromForm } from './present';
import {
  asyncCreatedSchema,
  batchFields,
  batchForm,
  batchSchema,
  createDocumentBody,
  scanBody,
  scanSchema,
  syncCreatedSchema,
  uploadFields,
  updatedSchema,
  uploadForm,
} from './schemas';
import { spending } from '../shared/budget-gate';

const TAG = 'documents';

const createdResponses = {
  201: {
    description:
      'Processed within the request. `status` is `completed`, or `failed` with `error` when processing failed ' +
      '(the document is kept in `failed` status; retry it with POST /documents/{id}/retry-chunks or /documents/reprocess).',
    schema: syncCreatedSchema,
  },
  202: {
    description: 'Queued: with `async_processing` true or content over the asynchronous threshold. Follow `task_id`.',
    schema: asyncCreatedSchema,
  },
};

const refusals =
  'Refusals: 409 `conflict` with `duplicate_of` when the same content exists in the workspace; 413 when over the ' +
  'size limit of its type (.pdf 50 MB; .txt, .md, .json 10 MB); 422 `validation-error` for empty, unreadable or ' +
  'corrupt content; 400 for an unsupported file extension. A refused input leaves nothing stored.';

/** Document ingestion (JSON text, file, batch, directory scan) and document upkeep. */
export function documentRoutes(api: Api, rt: Runtime): void {
  const ingestion = spending(rt, 'ingestion');
  api.route(
    {
      method: 'post',
      path: '/documents',
      tag: TAG,
      summary: 'Ingest JSON text',
      description: `Body must be application/json (anything else is 400). ${refusals}`,
      body: createDocumentBody,
      before: ingestion.before,
      responses: { ...createdResponses, ...ingestion.budgetResponse },
    },
    async (ctx, { body }) => {
      const outcome = await rt.documents.createFromText(ctx.state.scope, body.content, requestFromBody(body));
      const { status, body: out } = presentCreated(outcome);
      ctx.status = status;
      ctx.body = out;
    },
  );

  api.route(
    {
      method: 'post',
      path: '/documents/upload',
      tag: TAG,
      summary: 'Upload one file (multipart/form-data)',
      description:
        `Part \`file\` is required; a part over ${MAX_PART_BYTES / 1024 / 1024} MB is 413. ${refusals} ` +
        'With `replace_existing` true and a document of the same file name in the workspace, that document gets the ' +
        "file's content (as PUT /documents/{id}): 200, or 409 when it is not completed.",
      multipart: uploadForm,
      before: [...ingestion.before, multipartBody(MAX_PART_BYTES)],
      responses: {
        ...createdResponses,
        200: { description: 'The document of the same file name was updated', schema: updatedSchema },
        ...ingestion.budgetResponse,
      },
    },
    async (ctx) => {
      const raw = formFields(ctx);
      const fields = parseOrThrow(uploadFields, raw);
      const file = singleFile(ctx, 'file');
      if (fields.replace_existing) {
        const replaced = await rt.documents.replaceFromFile(ctx.state.scope, file, requestFromForm(fields, raw));
        if (replaced.kind === 'updated') {
          ctx.body = presentUpdated(replaced.result);
          return;
        }
        const { status, body } = presentCreated(replaced.outcome);
        ctx.status = status;
        ctx.body = body;
        return;
      }
      const outcome = await rt.documents.createFromFile(ctx.state.scope, file, requestFromForm(fields, raw));
      const { status, body } = presentCreated(outcome);
      ctx.status = status;
      ctx.body = body;
    },
  );

  api.route(
    {
      method: 'post',
      path: '/documents/upload/batch',
      tag: TAG,
      summary: 'Upload several files (repeated `files` parts)',
      description:
        'Each file is admitted on its own: an oversize, unreadable or unsupported file is a `failed` item, content ' +
        'already stored (or repeated in the batch) a `duplicate` item; the other files are ingested. ' +
        `The files of one request may total ${MAX_BATCH_BYTES / 1024 / 1024} MB. No files is 422.`,
      multipart: batchForm,
      before: [...ingestion.before, multipartBody(MAX_BATCH_BYTES)],
      responses: { 200: { description: 'Per-file results and counts', schema: batchSchema }, ...ingestion.budgetResponse },
    },
    async (ctx) => {
      const raw = formFields(ctx);
      const fields = parseOrThrow(batchFields, raw);
      const files = fileParts(ctx, 'files');
      if (files.length === 0) throw validationError([{ field: 'files', message: 'at least one file part is required' }]);
      ctx.body = presentBatch(await rt.documents.uploadBatch(ctx.state.scope, files, requestFromForm(fields, raw)), files.length);
    },
  );

  api.route(
    {
      method: 'post',
      path: '/documents/scan',
      tag: TAG,
      summary: 'Ingest the files of a server directory (queued as tasks)',
      description:
        'Only directories under the configured scan roots (SERVICE_SCAN_ROOTS) are readable: a path outside every ' +
        'root, a `..` escape or a symbolic link resolving outside is 403, and scanning without roots is 403. ' +
        'A missing path is 404, a relative path or a file 422. Links inside the directory that lead outside the ' +
        'roots are skipped. Admitted files are queued; follow their `task_id`.',
      body: scanBody,
      before: ingestion.before,
      responses: { 200: { description: 'Scan results', schema: scanSchema }, ...ingestion.budgetResponse },
    },
    async (ctx, { body }) => {
      const scanned = await rt.documents.scan(ctx.state.scope, body, {
        metadata: {},
        trackId: null,
        asyncProcessing: true,
        options: { enable_gleaning: true, use_llm_summarization: true },
      });
      ctx.body = presentScan(scanned);
    },
  );

  manageDocumentRoutes(api, rt);
  updateDocumentRoutes(api, rt);
}
