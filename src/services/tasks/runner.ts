import type { Scope, TaskRecord } from '../../domain/types';
import { type ProcessResult, processDocument } from '../../ingest/pipeline';
import type { TaskProgress } from './progress';
import { CANCELLED_REASON, type ServiceHost } from './records';

/** How a run ended, before the task record is written. */
export type RunOutcome =
  | { kind: 'finished'; result: ProcessResult }
  | { kind: 'missing' }
  | { kind: 'crashed'; error: string };

/**
 * Runs the pipeline for a claimed task, with the document put back in `processing` under this task first.
 * A full run starts from a clean slate on its own: the pipeline replaces whatever an earlier attempt wrote.
 */
export async function executeTask(
  host: ServiceHost,
  scope: Scope,
  task: TaskRecord,
  signal: AbortSignal,
  progress: TaskProgress,
): Promise<RunOutcome> {
  const { stores } = host;
  const doc = await stores.documents.get(scope, task.document_id);
  if (!doc) return { kind: 'missing' };
  try {
    if (doc.status !== 'processing' || doc.task_id !== task.id || doc.error !== null) {
      await stores.documents.update(scope, doc.id, { status: 'processing', task_id: task.id, error: null });
    }
    const result = await processDocument(host, scope, doc.id, {
      mode: task.mode,
      signal,
      report: (update) => progress.report(update),
    });
    return { kind: 'finished', result };
  } catch (err) {
    return { kind: 'crashed', error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * A cancelled run leaves the document `failed` with the reason. The pipeline has already rolled the run back:
 * a full run leaves no chunks or graph data, a chunk retry keeps what the earlier run completed.
 */
export async function settleCancelledDocument(host: ServiceHost, scope: Scope, task: TaskRecord): Promise<void> {
  const doc = await host.stores.documents.get(scope, task.document_id);
  if (!doc || (doc.task_id !== null && doc.task_id !== task.id)) return;
  await host.stores.documents.update(scope, doc.id, {
    status: 'failed',
    error: CANCELLED_REASON,
    updated_at: new Date().toISOString(),
  });
}

/** A run that ended without the pipeline recording the failure on the document. */
export async function markDocumentFailed(host: ServiceHost, scope: Scope, documentId: string, error: string): Promise<void> {
  const doc = await host.stores.documents.get(scope, documentId);
  if (!doc || doc.status !== 'processing') return;
  await host.stores.documents.update(scope, documentId, { status: 'failed', error, updated_at: new Date().toISOString() });
}
