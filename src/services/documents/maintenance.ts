import { ConflictError } from '../../domain/errors';
import { scopeKey } from '../../domain/ids';
import { type DocumentRecord, type DocumentStatus, type Scope, TASK_STATUSES } from '../../domain/types';
import { deleteDocumentData, discardDocumentRun } from '../../ingest/deletion';
import { CANCELLED_REASON, type ServiceHost, type TaskService } from '../tasks';
import { underDocumentLock } from './document-lock';
import { documentNotFound } from './errors';

export interface QueuedDocuments {
  count: number;
  task_ids: string[];
}

/**
 * Start-up recovery: documents queued again, those left to an admission that had not written its task yet, and
 * failed documents whose undo had not finished, undone.
 */
export interface Recovery {
  recovered: number;
  admitting: number;
  undone: number;
}

export interface FailedChunk {
  chunk_id: string;
  index: number;
  error: string | null;
}

const PAGE = 500;

export async function requireDocument(host: ServiceHost, scope: Scope, id: string): Promise<DocumentRecord> {
  const doc = await host.stores.documents.get(scope, id);
  if (!doc) throw documentNotFound(scope, id);
  return doc;
}

/** Removes a document and everything derived from it; a task still working on it is cancelled first. */
export async function removeDocument(host: ServiceHost, tasks: TaskService, scope: Scope, id: string): Promise<void> {
  const doc = await requireDocument(host, scope, id);
  await tasks.stopDocumentTask(scope, doc.task_id);
  // After an update of the document in progress, not in the middle of it.
  await underDocumentLock(host, scope, id, async () => {
    await deleteDocumentData(host, scope, id);
    await host.stores.documents.delete(scope, id);
  });
}

export async function failedChunksOf(host: ServiceHost, scope: Scope, id: string): Promise<FailedChunk[]> {
  await requireDocument(host, scope, id);
  const chunks = await host.stores.chunks.listByDocument(scope, id);
  return chunks.filter((c) => c.extraction_status === 'failed').map((c) => ({ chunk_id: c.id, index: c.index, error: c.extraction_error }));
}

/** Queues a run over only the chunks whose extraction failed; the rest of the document stays as it is. */
export async function retryFailedChunks(
  host: ServiceHost,
  tasks: TaskService,
  scope: Scope,
  id: string,
): Promise<{ taskId: string; failedChunks: number }> {
  const doc = await requireDocument(host, scope, id);
  if (doc.status !== 'failed') {
    throw new ConflictError(`document '${id}' is ${doc.status}; only a failed document's chunks can be retried`);
  }
  const failed = await failedChunksOf(host, scope, id);
  if (failed.length === 0) {
    throw new ConflictError(`document '${id}' has no failed chunks to retry; reprocess it with POST /documents/reprocess`);
  }
  const task = await tasks.enqueue(scope, id, 'retry_chunks');
  return { taskId: task.id, failedChunks: failed.length };
}

/** Queues a full run of every failed document without a live task. */
export async function reprocessFailed(host: ServiceHost, tasks: TaskService, scope: Scope): Promise<QueuedDocuments> {
  return requeue(host, tasks, scope, await documentsWithStatus(host, scope, 'failed'));
}

/** Queues a full run of every completed or failed document without a live task (a workspace's reprocess). */
export async function reprocessAll(host: ServiceHost, tasks: TaskService, scope: Scope): Promise<QueuedDocuments> {
  const docs = [...(await documentsWithStatus(host, scope, 'completed')), ...(await documentsWithStatus(host, scope, 'failed'))];
  return requeue(host, tasks, scope, docs);
}

/** Queues documents left in `processing` with no pending or running task (their worker died or never ran). */
export async function recoverStuck(host: ServiceHost, tasks: TaskService, scope: Scope): Promise<QueuedDocuments> {
  return requeue(host, tasks, scope, await documentsWithStatus(host, scope, 'processing'));
}

/**
 * Start-up recovery of every workspace this store has tasks in, plus the default one: a document left in
 * `processing` without a task that still holds it is queued again, unless its task was cancelled (the instance
 * stopped before marking the document), which leaves it `failed` with the cancel reason. Documents whose task
 * is running elsewhere are left to it, or to whichever worker claims the task once its lease ends, and documents
 * whose admission has not written their task yet to that admission (`admitting`; see holderOf).
 */
export async function recoverStuckEverywhere(host: ServiceHost, tasks: TaskService): Promise<Recovery> {
  const scopes = new Map<string, Scope>();
  const defaultScope: Scope = { workspaceId: host.config.defaultWorkspaceId };
  scopes.set(`\u0000${defaultScope.workspaceId}`, defaultScope);
  const all = await host.stores.tasks.listAll([...TASK_STATUSES]);
  for (const { scope } of all) scopes.set(scopeKey(scope), scope);
  let recovered = 0;
  let admitting = 0;
  let cancelled = 0;
  let undone = 0;
  for (const scope of scopes.values()) {
    undone += await undoFailedLeftovers(host, tasks, scope);
    const stuck: DocumentRecord[] = [];
    for (const doc of await documentsWithStatus(host, scope, 'processing')) {
      const task = doc.task_id ? await tasks.find(scope, doc.task_id) : null;
      if (task?.status !== 'cancelled') stuck.push(doc);
      else if (!(await tasks.isLive(scope, task.id))) {
        const marked = await unlessMovedOn(host, scope, doc, async () => {
          await host.stores.documents.update(scope, doc.id, {
            status: 'failed',
            error: CANCELLED_REASON,
            updated_at: new Date().toISOString(),
          });
          return true;
        });
        if (marked) cancelled += 1;
      }
    }
    const queued = await requeue(host, tasks, scope, stuck);
    recovered += queued.count;
    admitting += queued.admitting;
  }
  if (recovered > 0) host.log.info({ recovered }, 'documents stuck in processing queued again');
  if (cancelled > 0) host.log.info({ cancelled }, 'documents of cancelled tasks left in processing marked failed');
  if (undone > 0) host.log.info({ undone }, 'failed documents still in the graph taken out');
  return { recovered, admitting, undone };
}

/**
 * A failed document keeps nothing in the graph. One whose undo did not finish (the instance died in it, or an error
 * other than an outage stopped it) still holds records, or chunks that name them: it is undone as a failed run is.
 * Documents with a live task (a retry) are left to it.
 */
async function undoFailedLeftovers(host: ServiceHost, tasks: TaskService, scope: Scope): Promise<number> {
  const { graph, chunks } = host.stores;
  let undone = 0;
  for (const doc of await documentsWithStatus(host, scope, 'failed')) {
    if (await tasks.isLive(scope, doc.task_id)) continue;
    const [entities, relationships, own] = await Promise.all([
      graph.entitiesOfDocument(scope, doc.id),
      graph.relationshipsOfDocument(scope, doc.id),
      chunks.listByDocument(scope, doc.id),
    ]);
    const linked = own.some((c) => c.entity_ids.length > 0 || c.relationship_ids.length > 0 || c.embedding_model !== null);
    if (entities.length === 0 && relationships.length === 0 && !linked) continue;
    const discarded = await unlessMovedOn(host, scope, doc, async () => {
      await discardDocumentRun(host, scope, doc.id, { removeChunks: false });
      return true;
    });
    if (discarded) undone += 1;
  }
  return undone;
}

async function requeue(
  host: ServiceHost,
  tasks: TaskService,
  scope: Scope,
  docs: DocumentRecord[],
): Promise<QueuedDocuments & { admitting: number }> {
  const taskIds: string[] = [];
  let admitting = 0;
  for (const doc of docs) {
    const holder = await holderOf(host, tasks, scope, doc);
    if (holder === 'admission') admitting += 1;
    if (holder !== 'none') continue;
    const task = await unlessMovedOn(host, scope, doc, () => tasks.enqueue(scope, doc.id, 'full'));
    if (task) taskIds.push(task.id);
  }
  return { count: taskIds.length, task_ids: taskIds, admitting };
}

/**
 * Does `fn` under the document's lock, unless the document moved on since `seen` was read (another status, or
 * another task): a worker, here or on another instance, may have finished it meanwhile. A run writes its document's
 * outcome before its task's, so a task found not live and then a document still as seen means nothing holds it.
 * Null when the document moved on.
 */
async function unlessMovedOn<T>(host: ServiceHost, scope: Scope, seen: DocumentRecord, fn: () => Promise<T>): Promise<T | null> {
  return underDocumentLock(host, scope, seen.id, async () => {
    const now = await host.stores.documents.get(scope, seen.id);
    if (!now || now.status !== seen.status || now.task_id !== seen.task_id) return null;
    return fn();
  });
}

/**
 * What holds a document: a live task, an admission on its way, or nothing. Admission (and a retry) writes the
 * document naming its new task first and the task right after, so a task not written yet is one on its way, not
 * a lost one, until the document is older than a task lease. Queuing it again meanwhile would give the document
 * two tasks.
 */
async function holderOf(host: ServiceHost, tasks: TaskService, scope: Scope, doc: DocumentRecord): Promise<'task' | 'admission' | 'none'> {
  if (await tasks.isLive(scope, doc.task_id)) return 'task';
  if (doc.task_id === null || (await tasks.find(scope, doc.task_id))) return 'none';
  return Date.now() - Date.parse(doc.updated_at) < host.config.taskLeaseMs ? 'admission' : 'none';
}

async function documentsWithStatus(host: ServiceHost, scope: Scope, status: DocumentStatus): Promise<DocumentRecord[]> {
  const all: DocumentRecord[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await host.stores.documents.list(scope, { status, limit: PAGE, offset });
    all.push(...page.items);
    if (page.items.length < PAGE) return all;
  }
}
