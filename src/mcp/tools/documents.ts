import { z } from 'zod';
import { sleep, throwIfAborted } from '../../domain/abort';
import type { TaskRecord } from '../../domain/types';
import { validationError } from '../../http/problem';
import type { CreateOutcome, IncomingFile } from '../../services/documents';
import { listDocuments } from '../../routes/documents/manage';
import { presentCreated, presentListItem, requestFromBody } from '../../routes/documents/present';
import { createDocumentBody, idParams, listQuery } from '../../routes/documents/schemas';
import { presentTaskDetail } from '../../routes/shared/task-present';
import { type McpTool, type ToolCall, type ToolOutput, asJson, defineTool } from '../tool';

/** How often a running ingestion's task is read for progress notifications (its progress is written at most every 250 ms). */
const POLL_MS = 250;
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

const options = createDocumentBody.pick({
  title: true,
  metadata: true,
  track_id: true,
  enable_gleaning: true,
  max_gleaning: true,
  use_llm_summarization: true,
  async_processing: true,
});
const optionsDescription =
  'The call returns when processing ends, sending progress notifications on the way (cancelling the call cancels the ' +
  'ingestion); with async_processing true it returns at once with the task to follow with document_status.';

const fileArguments = options.extend({
  filename: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(1000)
    .regex(/\.(txt|md|json|pdf)$/i, 'must end in .txt, .md, .json or .pdf')
    .describe('the file name; its extension picks the parser'),
  content: z.string().optional().describe('the file as text (.txt, .md, .json)'),
  content_base64: z.string().optional().describe('the file as base64 (any type; a .pdf must come this way)'),
});

/** The running stage of a task, for a progress message. */
function stageOf(task: TaskRecord): string {
  const running = Object.entries(task.stages).find(([, status]) => status === 'running');
  return running ? running[0] : task.status;
}

/**
 * Follows a queued ingestion to its end, reporting the task's progress (percent) to a client that asked for progress;
 * a cancelled call cancels the task, as POST /tasks/{id}/cancel does.
 */
async function followTask({ rt, resolved, extra }: ToolCall, taskId: string): Promise<TaskRecord> {
  const token = extra._meta?.progressToken;
  let reported = '';
  for (;;) {
    if (extra.signal.aborted) {
      await rt.tasks.cancel(resolved.scope, taskId);
      throwIfAborted(extra.signal);
    }
    const task = await rt.tasks.get(resolved.scope, taskId);
    const message = `${stageOf(task)} ${task.progress}%`;
    if (token !== undefined && message !== reported) {
      reported = message;
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: task.progress, total: 100, message },
      });
    }
    if (TERMINAL.has(task.status)) return task;
    await sleep(POLL_MS, extra.signal).catch(() => undefined);
  }
}

/** The outcome of an ingestion call: the queued task at once, or the document once its task has ended. */
async function ingested(call: ToolCall, outcome: CreateOutcome, waitForIt: boolean): Promise<ToolOutput> {
  const taskId = outcome.kind === 'queued' ? outcome.taskId : outcome.doc.task_id;
  if (!waitForIt || !taskId) return asJson(presentCreated(outcome).body);
  const task = await followTask(call, taskId);
  const doc = await call.rt.documents.get(call.resolved.scope, outcome.doc.id);
  return asJson({
    ...presentListItem(doc),
    document_id: doc.id,
    task_id: task.id,
    task_status: task.status,
    error: doc.error ?? task.error,
  });
}

function fileOf(args: z.output<typeof fileArguments>): IncomingFile {
  const given = [args.content, args.content_base64].filter((v) => v !== undefined).length;
  if (given !== 1) throw validationError([{ field: 'content', message: 'send exactly one of content and content_base64' }]);
  const data = args.content !== undefined ? Buffer.from(args.content, 'utf8') : Buffer.from(args.content_base64!, 'base64');
  return { filename: args.filename, data };
}

/** Ingestion and documents: the services of the REST /documents routes (docs/api.md §4.2). */
export const documentTools: McpTool[] = [
  defineTool({
    name: 'ingest_text',
    title: 'Ingest text',
    description: `Add a text document to the knowledge graph (editor role). ${optionsDescription}`,
    args: createDocumentBody,
    role: 'editor',
    rate: 'upload',
    readOnly: false,
    async run(call, args) {
      await call.rt.costs.assertWithinBudget(call.resolved.scope);
      const request = { ...requestFromBody(args), asyncProcessing: true };
      return ingested(call, await call.rt.documents.createFromText(call.resolved.scope, args.content, request), !args.async_processing);
    },
  }),
  defineTool({
    name: 'ingest_file',
    title: 'Ingest a file',
    description: `Add a file (.txt, .md, .json as text or base64; .pdf as base64) to the knowledge graph (editor role). ${optionsDescription}`,
    args: fileArguments,
    role: 'editor',
    rate: 'upload',
    readOnly: false,
    async run(call, args) {
      const file = fileOf(args);
      await call.rt.costs.assertWithinBudget(call.resolved.scope);
      const request = { ...requestFromBody({ ...args, content: '' }), asyncProcessing: true };
      return ingested(call, await call.rt.documents.createFromFile(call.resolved.scope, file, request), !args.async_processing);
    },
  }),
  defineTool({
    name: 'document_status',
    title: 'Document status',
    description: 'A document’s processing status and counts, with its task’s stages and percent progress.',
    args: z.object({ id: idParams.shape.id.describe('document id') }),
    role: 'viewer',
    readOnly: true,
    async run({ rt, resolved }, args) {
      const doc = await rt.documents.get(resolved.scope, args.id);
      const task = doc.task_id ? await rt.tasks.find(resolved.scope, doc.task_id) : null;
      return asJson({ ...presentListItem(doc), document_id: doc.id, task: task ? presentTaskDetail(task) : null });
    },
  }),
  defineTool({
    name: 'list_documents',
    title: 'List documents',
    description: 'Documents of the workspace, newest first, by status, creation date and title terms.',
    args: listQuery,
    role: 'viewer',
    readOnly: true,
    async run({ rt, resolved }, args) {
      return asJson(await listDocuments(rt, resolved.scope, args));
    },
  }),
];
