import { ConflictError, NotFoundError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import type { Page, Scope, TaskRecord, TaskStatus } from '../../domain/types';
import { nearestRank } from './metrics';
import { Cancellations } from './cancellation';
import { type RunReport, TaskQueue } from './queue';
import {
  claimedByInstance,
  claimOwner,
  holdsDocument,
  type ServiceHost,
  isLiveTask,
  isUnsettledCancel,
  newTaskRecord,
  requeuedTask,
  type TaskMode,
} from './records';

export interface TaskActionResult {
  id: string;
  status: TaskStatus;
  message: string;
}

export interface PipelineStatus {
  status: 'running' | 'idle' | 'paused';
  active_tasks: number;
  queue_depth: number;
  workers: { total: number; busy: number; idle: number };
  rates: { documents_per_minute: number; chunks_per_minute: number; embeddings_per_minute: number };
  /** Tasks of the workspace by status, and its documents. */
  counts: { pending: number; running: number; completed: number; failed: number; documents: number; documents_completed: number };
}

export interface QueueMetrics {
  queue: { pending: number; running: number; failed: number };
  throughput: { last_minute: number; last_hour: number; last_day: number };
  latency: { p50_ms: number; p95_ms: number; p99_ms: number };
  /** Tasks that failed within the last hour, and the mean queued-to-finished time of completed tasks (0 when none). */
  failed_last_hour: number;
  mean_ms: number;
  workers: number;
}

export interface TaskService {
  /** Queues a run of a document: the document goes to `processing` under the new task. */
  enqueue(scope: Scope, documentId: string, mode: TaskMode, options?: { taskId?: string; retryOf?: string }): Promise<TaskRecord>;
  /** Runs a document within the caller's request, as a task this instance holds (visible, cancellable). */
  runNow(scope: Scope, documentId: string, taskId: string): Promise<RunReport>;
  get(scope: Scope, id: string): Promise<TaskRecord>;
  find(scope: Scope, id: string): Promise<TaskRecord | null>;
  list(scope: Scope, query: { status?: TaskStatus; limit: number; offset: number }): Promise<Page<TaskRecord>>;
  cancel(scope: Scope, id: string): Promise<TaskActionResult>;
  retry(scope: Scope, id: string): Promise<TaskActionResult>;
  /** Cancels every pending task of the workspace; returns how many. */
  cancelPending(scope: Scope): Promise<number>;
  /** Cancels a document's live task (if any) and waits until a local run of it has stopped writing. */
  stopDocumentTask(scope: Scope, taskId: string | null): Promise<void>;
  /** Whether the task still has a say over its document: queued, running, or a cancelled run still rolling back. */
  isLive(scope: Scope, taskId: string | null): Promise<boolean>;
  pipelineStatus(scope: Scope): Promise<PipelineStatus>;
  queueMetrics(scope: Scope): Promise<QueueMetrics>;
  /**
   * Start-up: tasks this instance left running are queued again, cancelled runs left unsettled are rolled back
   * (a dead instance's once its lease ends), then the workers start. Running tasks of another instance are
   * claimed by some worker once their lease ends.
   */
  start(): Promise<void>;
  close(): Promise<void>;
}

const PAGE = 1000;
/** Latency and throughput look at this many of the newest completed tasks. */
const METRICS_WINDOW = 10_000;

export function createTaskService(host: ServiceHost): TaskService {
  const queue = new TaskQueue(host);
  const cancellations = new Cancellations(host, queue);
  const store = () => host.stores.tasks;

  async function get(scope: Scope, id: string): Promise<TaskRecord> {
    const task = await store().get(scope, id);
    if (!task) throw new NotFoundError(`task '${id}' not found in workspace '${scope.workspaceId}'`);
    return task;
  }

  const cancelTask = (scope: Scope, task: TaskRecord) => cancellations.cancel(scope, task);

  async function listAllWithStatus(scope: Scope, status: TaskStatus): Promise<TaskRecord[]> {
    const all: TaskRecord[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await store().list(scope, { status, limit: PAGE, offset });
      all.push(...page.items);
      if (page.items.length < PAGE) return all;
    }
  }

  const service: TaskService = {
    async enqueue(scope, documentId, mode, options = {}) {
      const now = new Date().toISOString();
      const task = newTaskRecord({ id: options.taskId ?? newId(), documentId, mode, now, retryOf: options.retryOf });
      await host.stores.documents.update(scope, documentId, { status: 'processing', task_id: task.id, error: null, updated_at: now });
      await store().insert(scope, task);
      queue.wake();
      return task;
    },

    async runNow(scope, documentId, taskId) {
      const { config } = host;
      const now = new Date();
      const task: TaskRecord = {
        ...newTaskRecord({ id: taskId, documentId, mode: 'full', now: now.toISOString() }),
        status: 'running',
        started_at: now.toISOString(),
        lease_owner: claimOwner(config.instanceId),
        lease_expires_at: new Date(now.getTime() + config.taskLeaseMs).toISOString(),
      };
      await store().insert(scope, task);
      return queue.runClaimed(scope, task);
    },

    get,
    find: (scope, id) => store().get(scope, id),
    list: (scope, query) => store().list(scope, query),

    async cancel(scope, id) {
      const task = await get(scope, id);
      if (!isLiveTask(task)) {
        throw new ConflictError(`task '${id}' is already ${task.status}; only pending or running tasks can be cancelled`);
      }
      await cancelTask(scope, task);
      return { id, status: 'cancelled', message: 'cancellation requested' };
    },

    async retry(scope, id) {
      const task = await get(scope, id);
      if (task.status !== 'failed' && task.status !== 'cancelled') {
        throw new ConflictError(`task '${id}' is ${task.status}; only failed or cancelled tasks can be retried`);
      }
      if (isUnsettledCancel(task))
        throw new ConflictError(`task '${id}' is still rolling back its cancelled run; retry once it has stopped`);
      const doc = await host.stores.documents.get(scope, task.document_id);
      if (!doc) throw new ConflictError(`document '${task.document_id}' of task '${id}' no longer exists`);
      if (doc.task_id !== task.id && (await service.isLive(scope, doc.task_id))) {
        throw new ConflictError(`document '${doc.id}' is already being processed by task '${doc.task_id}'`);
      }
      const next = await service.enqueue(scope, doc.id, task.mode, { retryOf: task.id });
      return { id: next.id, status: next.status, message: 'queued for retry' };
    },

    async cancelPending(scope) {
      const pending = await listAllWithStatus(scope, 'pending');
      let cancelled = 0;
      for (const task of pending) {
        const current = await store().get(scope, task.id);
        if (current?.status !== 'pending') continue;
        await cancelTask(scope, current);
        cancelled += 1;
      }
      return cancelled;
    },

    async stopDocumentTask(scope, taskId) {
      if (!taskId) return;
      const task = await store().get(scope, taskId);
      if (isLiveTask(task)) await cancelTask(scope, task!);
      await queue.settled(taskId);
    },

    async isLive(scope, taskId) {
      return taskId !== null && holdsDocument(await store().get(scope, taskId));
    },

    async pipelineStatus(scope) {
      const [{ running, pending, completed, failed }, documents] = await Promise.all([
        store().countByStatus(scope),
        host.stores.documents.countByStatus(scope),
      ]);
      const total = queue.workerCount;
      const busy = Math.min(total, queue.busyWorkers);
      const rates = queue.completions.lastMinute(scope.workspaceId);
      const active = running + pending > 0;
      return {
        status: !queue.accepting && pending > 0 ? 'paused' : active ? 'running' : 'idle',
        active_tasks: running,
        queue_depth: pending,
        workers: { total, busy, idle: total - busy },
        rates: {
          documents_per_minute: rates.documents,
          chunks_per_minute: rates.chunks,
          embeddings_per_minute: rates.embeddings,
        },
        counts: {
          pending,
          running,
          completed,
          failed,
          documents: documents.completed + documents.processing + documents.failed,
          documents_completed: documents.completed,
        },
      };
    },

    async queueMetrics(scope) {
      const [{ pending, running, failed }, completed, failedTasks] = await Promise.all([
        store().countByStatus(scope),
        store().finishTimes(scope, 'completed', METRICS_WINDOW),
        store().finishTimes(scope, 'failed', METRICS_WINDOW),
      ]);
      const now = Date.now();
      const finishedWithin = (ms: number) =>
        completed.filter((t) => t.finished_at !== null && now - Date.parse(t.finished_at) <= ms).length;
      const durations = completed
        .filter((t) => t.finished_at !== null)
        .map((t) => Math.max(0, Date.parse(t.finished_at!) - Date.parse(t.created_at)))
        .sort((a, b) => a - b);
      return {
        queue: { pending, running, failed },
        throughput: { last_minute: finishedWithin(60_000), last_hour: finishedWithin(3_600_000), last_day: finishedWithin(86_400_000) },
        latency: { p50_ms: nearestRank(durations, 50), p95_ms: nearestRank(durations, 95), p99_ms: nearestRank(durations, 99) },
        failed_last_hour: failedTasks.filter((t) => t.finished_at !== null && now - Date.parse(t.finished_at) <= 3_600_000).length,
        mean_ms: durations.length ? Math.round(durations.reduce((a, b) => a + b, 0) / durations.length) : 0,
        workers: queue.workerCount,
      };
    },

    async start() {
      const { stores, config, log } = host;
      const now = new Date().toISOString();
      for (const { scope, task } of await stores.tasks.listAll(['running'])) {
        if (!claimedByInstance(task.lease_owner, config.instanceId)) continue;
        await stores.tasks.update(scope, task.id, requeuedTask(now));
        log.info({ task_id: task.id }, 'task left running by this instance queued again');
      }
      await cancellations.recover();
      queue.start();
    },

    async close() {
      cancellations.close();
      await queue.close();
    },
  };
  return service;
}
