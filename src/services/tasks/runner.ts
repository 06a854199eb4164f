import type { Scope, TaskRecord } from '../../domain/types';
import { deleteDocumentData } from '../../ingest/deletion';
import { type ProcessResult, processDocument } from '../../ingest/pipeline';
import type { TaskProgress } from './progress';
import { CANCELLED_REASON, type ServiceHost } from './records';

/** How a run ended, before the task record is written. */
export type RunOutcome =
  | { kind: 'finished'; result: ProcessResult }
  | { kind: 'missing' }
  | { kind: 'crashed'; error: string };

/**
 * Runs the pipeline for a claimed task. The document is put back in `processing` under this task first, and a
 * full run starts from a clean slate: whatever an earlier, interrupted attempt wrote is removed.
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
    if (task.mode === 'full' && (await stores.chunks.listByDocument(scope, doc.id)).length > 0) {
      await resetDocumentData(host, scope, doc.id);
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

/** Removes a document's chunks, graph contributions and vectors, keeping the document record. */
export async function resetDocumentData(host: ServiceHost, scope: Scope, documentId: string): Promise<void> {
  await deleteDocumentData(host, scope, documentId);
  await host.stores.documents.update(scope, documentId, {
    chunk_count: 0,
    entity_count: 0,
    relationship_count: 0,
    processed_at: null,
    processing_time_ms: null,
  });
}

/**
 * A cancelled run leaves the document `failed` with the reason. A full run's partial output is removed; a
 * chunk retry keeps what the earlier run completed, so the document can be retried again.
 */
export async function settleCancelledDocument(host: ServiceHost, scope: Scope, task: TaskRecord): Promise<void> {
  const doc = await host.stores.documents.get(scope, task.document_id);
  if (!doc || (doc.task_id !== null && doc.task_id !== task.id)) return;
  if (task.mode === 'full') await resetDocumentData(host, scope, doc.id);
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
