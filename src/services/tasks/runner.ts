import { isOutage } from '../../domain/errors';
import type { DocumentRecord, Scope, TaskRecord } from '../../domain/types';
import { withWorkspaceModels } from '../../llm/workspace-models';
import { discardDocumentRun, type ProcessResult, processDocument } from '../../ingest/pipeline';
import type { TaskProgress } from './progress';
import { CANCELLED_REASON, isLiveTask, type ServiceHost } from './records';

/** How a run ended, before the task record is written. */
export type RunOutcome =
  | { kind: 'finished'; result: ProcessResult }
  | { kind: 'missing' }
  | { kind: 'superseded'; by: string }
  /** A dependency could not be reached; the run was undone and may go back to the queue. */
  | { kind: 'unavailable'; error: string }
  | { kind: 'crashed'; error: string };

/** One run of a claimed task: the lease owner its claim recorded, its stop signal, its progress writer. */
export interface TaskRun {
  owner: string;
  signal: AbortSignal;
  progress: TaskProgress;
}

/**
 * Runs the pipeline for a claimed task, with the document put back in `processing` under this task first.
 * A full run starts from a clean slate on its own: the pipeline replaces whatever an earlier attempt wrote.
 */
export async function executeTask(host: ServiceHost, scope: Scope, task: TaskRecord, run: TaskRun): Promise<RunOutcome> {
  const { stores } = host;
  const doc = await stores.documents.get(scope, task.document_id);
  if (!doc) return { kind: 'missing' };
  // Two tasks for one document (a recovery racing an admission) must not both run it: the document's own task wins.
  if (doc.task_id !== null && doc.task_id !== task.id && isLiveTask(await stores.tasks.get(scope, doc.task_id))) {
    return { kind: 'superseded', by: doc.task_id };
  }
  // An earlier attempt of this task finished the document, and its instance died before recording it on the task.
  if (doc.task_id === task.id && doc.status === 'completed') return { kind: 'finished', result: completedResult(doc) };
  try {
    if (doc.status !== 'processing' || doc.task_id !== task.id || doc.error !== null) {
      await stores.documents.update(scope, doc.id, { status: 'processing', task_id: task.id, error: null });
    }
    // The workspace's models for every provider call of the run (docs/api.md §4.6).
    const models = await stores.accounts.workspaces.get(scope.workspaceId);
    const result = await withWorkspaceModels(models, () =>
      processDocument(host, scope, doc.id, {
        mode: task.mode,
        signal: run.signal,
        report: (update) => run.progress.report(update),
        owns: () => ownsRun(host, scope, task.id, run.owner),
      }),
    );
    return { kind: 'finished', result };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    return isOutage(err) ? { kind: 'unavailable', error } : { kind: 'crashed', error };
  }
}

/**
 * Whether the run still owns its task, asked before it rolls back or writes the document's outcome. A running
 * task's lease is renewed by the asking (atomic in the store, and the rollback then has a full lease to finish);
 * a cancelled one is still this run's to roll back while the lease names it.
 */
async function ownsRun(host: ServiceHost, scope: Scope, taskId: string, owner: string): Promise<boolean> {
  const until = new Date(Date.now() + host.config.taskLeaseMs).toISOString();
  if (await host.stores.tasks.renewLease(scope, taskId, owner, until)) return true;
  const task = await host.stores.tasks.get(scope, taskId);
  return task?.status === 'cancelled' && task.lease_owner === owner;
}

function completedResult(doc: DocumentRecord): ProcessResult {
  return {
    status: 'completed',
    chunk_count: doc.chunk_count,
    entity_count: doc.entity_count,
    relationship_count: doc.relationship_count,
    failed_chunks: [],
    error: null,
    processing_time_ms: doc.processing_time_ms ?? 0,
    llm_calls: 0,
  };
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

/**
 * A run that ended without the pipeline recording the failure on the document (it crashed, or a dependency stayed
 * unreachable through every retry): what it left in the graph and vector stores is undone as the pipeline undoes
 * a failed run (the chunks stay, linked to nothing, for retry-chunks), then the document is marked failed. With
 * `undo` false (an undo that cannot finish for another reason than an outage), only the mark is written.
 * Throws when the undo stops; the document then stays `processing`.
 */
export async function markDocumentFailed(
  host: ServiceHost,
  scope: Scope,
  task: TaskRecord,
  error: string,
  options: { undo: boolean } = { undo: true },
): Promise<void> {
  const doc = await host.stores.documents.get(scope, task.document_id);
  if (!doc || doc.status !== 'processing' || (doc.task_id !== null && doc.task_id !== task.id)) return;
  if (options.undo) await discardDocumentRun(host, scope, doc.id, { removeChunks: false });
  await host.stores.documents.update(scope, doc.id, { status: 'failed', error, updated_at: new Date().toISOString() });
}

/**
 * Clean-up of a cancelled run whose instance died before rolling it back, as the pipeline rolls back a cancelled
 * run; the document is then settled as cancelled.
 */
export async function discardAbandonedRun(host: ServiceHost, scope: Scope, task: TaskRecord): Promise<void> {
  const doc = await host.stores.documents.get(scope, task.document_id);
  if (!doc || doc.task_id !== task.id || doc.status !== 'processing') return;
  await discardDocumentRun(host, scope, doc.id, { removeChunks: task.mode === 'full' });
  await settleCancelledDocument(host, scope, task);
}
