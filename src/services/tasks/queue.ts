import { setMaxListeners } from 'node:events';
import { isOutage } from '../../domain/errors';
import { inBackground, nextTurn } from '../../domain/turns';
import type { Scope, TaskRecord } from '../../domain/types';
import { CompletionLog } from './metrics';
import { TaskProgress } from './progress';
import { CANCELLED_REASON, claimOwner, requeuedTask, type ServiceHost } from './records';
import { executeTask, markDocumentFailed, type RunOutcome, settleCancelledDocument } from './runner';

/** A lease is renewed three times per duration, so it outlives two missed renewals. */
const RENEWALS_PER_LEASE = 3;
const POLL_MS = 500;
const SHUTDOWN_GRACE_MS = 5_000;
/** The longest wait between two runs of a task put back after an outage. */
const MAX_OUTAGE_BACKOFF_MS = 60_000;

/** Why a run was stopped from outside: a cancel request, the instance shutting down, or a lost lease. */
type StopKind = 'cancel' | 'shutdown' | 'lease';
const STOP_REASONS: Record<StopKind, string> = {
  cancel: 'task cancelled',
  shutdown: 'task interrupted by shutdown',
  lease: 'task lease lost',
};

export interface RunReport {
  status: 'completed' | 'failed' | 'cancelled' | 'interrupted';
  error: string | null;
  processingTimeMs: number | null;
}

interface RunningTask {
  scope: Scope;
  taskId: string;
  /** The lease owner this run's claim recorded; another value on the task means the task was taken over. */
  owner: string;
  controller: AbortController;
  stopKind: StopKind | null;
  done: Promise<RunReport>;
}

/**
 * The worker side of the task queue: `workerThreads` async loops claim tasks with a lease (so several instances
 * can share one database), run the pipeline, renew the lease while it runs, and write the outcome.
 * Queuing in this process wakes an idle loop at once; otherwise loops poll.
 */
export class TaskQueue {
  readonly completions = new CompletionLog();
  private readonly running = new Map<string, RunningTask>();
  private readonly waiters = new Set<() => void>();
  private loops: Promise<void>[] = [];
  private busy = 0;
  /** Whether an idle loop holds the polling turn. */
  private polling = false;
  private state: 'stopped' | 'running' | 'closing' = 'stopped';

  constructor(private readonly host: ServiceHost) {}

  get workerCount(): number {
    return this.host.config.workerThreads;
  }

  get busyWorkers(): number {
    return this.busy;
  }

  get accepting(): boolean {
    return this.state === 'running';
  }

  start(): void {
    if (this.state !== 'stopped') return;
    this.state = 'running';
    // Ingestion is background work: requests take their turns first (src/domain/turns.ts).
    this.loops = Array.from({ length: this.workerCount }, () => inBackground(() => this.workerLoop()));
  }

  /**
   * Stops claiming, then stops running tasks at their next safe point: each run undoes what it wrote and puts its
   * task back in the queue (settle), so that the next start, here or elsewhere, claims it at once instead of
   * waiting out a dead instance's lease. Resolves once they have settled, so the stores close after them; a run
   * that has not settled within a task lease is left to its lease (logged).
   */
  async close(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'closing';
    this.wakeAll();
    for (const entry of this.running.values()) this.stop(entry, 'shutdown');
    // A claim answered after closing began adds a run (stopped at once): waited for too.
    const deadline = Date.now() + Math.max(SHUTDOWN_GRACE_MS, this.host.config.taskLeaseMs);
    while (this.running.size > 0 && Date.now() < deadline) {
      await Promise.race([Promise.allSettled([...this.running.values()].map((e) => e.done)), delay(deadline - Date.now())]);
    }
    if (this.running.size > 0) {
      this.host.log.warn({ running: [...this.running.keys()] }, 'task runs did not stop in time; their leases will free them');
    }
    await Promise.race([Promise.allSettled(this.loops), delay(SHUTDOWN_GRACE_MS)]);
    this.loops = [];
    this.state = 'stopped';
  }

  /** Something was queued: one idle loop looks, and each claim it makes passes the look on to the next idle loop. */
  wake(): void {
    const first = this.waiters.values().next();
    if (!first.done) first.value();
  }

  private wakeAll(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Aborts a task running in this instance; false when it runs elsewhere or not at all. */
  cancelRunning(taskId: string): boolean {
    const entry = this.running.get(taskId);
    if (!entry) return false;
    this.stop(entry, 'cancel');
    return true;
  }

  /** Resolves when a task running in this instance has settled (at once when it is not running here). */
  async settled(taskId: string): Promise<void> {
    await this.running.get(taskId)?.done;
  }

  /** Runs a task this instance holds the lease of (as recorded by its claim on `task`), to the end, and writes its outcome. */
  runClaimed(scope: Scope, task: TaskRecord): Promise<RunReport> {
    const controller = new AbortController();
    // Every concurrent provider call of the run listens on this one signal.
    setMaxListeners(0, controller.signal);
    const entry: RunningTask = { scope, taskId: task.id, owner: task.lease_owner!, controller, stopKind: null, done: null! };
    entry.done = this.run(entry, task).finally(() => this.running.delete(task.id));
    this.running.set(task.id, entry);
    return entry.done;
  }

  private async run(entry: RunningTask, task: TaskRecord): Promise<RunReport> {
    const host = this.host;
    const started = Date.now();
    try {
      // A cancel may land between the claim and this point.
      const fresh = await host.stores.tasks.get(entry.scope, task.id);
      if (!fresh) this.stop(entry, 'lease');
      else if (fresh.status === 'cancelled') this.stop(entry, 'cancel');
      const progress = new TaskProgress(host.stores.tasks, entry.scope, task.id, (err) =>
        host.log.warn({ err, taskId: task.id }, 'task progress write failed'),
      );
      const renewal = setInterval(() => void this.renew(host, entry), host.config.taskLeaseMs / RENEWALS_PER_LEASE);
      renewal.unref();
      let outcome: RunOutcome;
      try {
        outcome = entry.controller.signal.aborted
          ? { kind: 'crashed', error: 'stopped before start' }
          : await executeTask(host, entry.scope, task, { owner: entry.owner, signal: entry.controller.signal, progress });
      } finally {
        clearInterval(renewal);
        await progress.stop();
      }
      const report = await this.settle(host, entry, task, outcome, progress);
      const processingTimeMs = Date.now() - started;
      const fields = { ...runFields(host, entry.scope, task), status: report.status, error: report.error };
      host.log.info({ ...fields, processing_time_ms: processingTimeMs }, 'task run ended');
      return { ...report, processingTimeMs };
    } catch (err) {
      host.log.error({ err, taskId: task.id }, 'task run failed to settle');
      return { status: 'failed', error: err instanceof Error ? err.message : String(err), processingTimeMs: null };
    }
  }

  private async settle(
    host: ServiceHost,
    entry: RunningTask,
    task: TaskRecord,
    outcome: RunOutcome,
    progress: TaskProgress,
  ): Promise<Omit<RunReport, 'processingTimeMs'>> {
    const { tasks, documents } = host.stores;
    const { scope } = entry;
    const now = new Date().toISOString();
    const released = { lease_owner: null, lease_expires_at: null, updated_at: now };
    if (entry.stopKind === 'lease') return { status: 'interrupted', error: 'lease lost' };
    const current = await tasks.get(scope, task.id);
    if (!current) return { status: 'interrupted', error: 'task removed' };
    // Another run took the task over (this one's lease ran out unnoticed): the outcome is that run's to write.
    if (current.lease_owner !== entry.owner) return { status: 'interrupted', error: 'lease lost' };
    const ownsLease = current.status === 'running' && current.lease_owner === entry.owner;
    // A cancel recorded meanwhile (by any instance) outlives the shutdown: it settles below, not back in the queue.
    if (entry.stopKind === 'shutdown' && current.status !== 'cancelled') {
      if (!ownsLease) return { status: 'interrupted', error: 'lease lost' };
      await tasks.update(scope, task.id, requeuedTask(now));
      const doc = await documents.get(scope, task.document_id);
      if (doc?.task_id === task.id) await documents.update(scope, doc.id, { status: 'processing', error: null });
      return { status: 'interrupted', error: 'instance shutting down' };
    }
    const cancelled = entry.stopKind === 'cancel' || current.status === 'cancelled';
    const finishedOk = outcome.kind === 'finished' && outcome.result.status === 'completed';
    // A cancel that arrives after the run completed is too late: the document is whole, the task completed.
    if (cancelled && !finishedOk) {
      await settleCancelledDocument(host, scope, task);
      await tasks.update(scope, task.id, {
        ...released,
        status: 'cancelled',
        error: CANCELLED_REASON,
        finished_at: current.finished_at ?? now,
      });
      return { status: 'cancelled', error: CANCELLED_REASON };
    }
    if (!cancelled && !ownsLease) return { status: 'interrupted', error: 'lease lost' };
    if (outcome.kind === 'finished' && outcome.result.status === 'completed') {
      progress.complete();
      await tasks.update(scope, task.id, { ...released, ...progress.snapshot(), status: 'completed', error: null, finished_at: now });
      const { chunk_count, entity_count, relationship_count } = outcome.result;
      this.completions.record({
        at: Date.now(),
        workspaceId: scope.workspaceId,
        chunks: chunk_count,
        embeddings: chunk_count + entity_count + relationship_count,
      });
      return { status: 'completed', error: null };
    }
    if (outcome.kind === 'unavailable') return this.settleOutage(host, scope, current, outcome.error, progress);
    const error = failureReason(task, outcome);
    if (outcome.kind === 'crashed') {
      const undo = await this.failDocument(host, task, scope, error, { outage: 'requeue' });
      if (undo !== null) return this.settleOutage(host, scope, current, `the undo of a failed run stopped: ${undo}`, progress);
    }
    await tasks.update(scope, task.id, { ...released, ...progress.snapshot(), status: 'failed', error, finished_at: now });
    return { status: 'failed', error };
  }

  /**
   * A run stopped by an unreachable dependency: the task goes back to the queue with a doubling backoff and the
   * document stays `processing`, until the retries configured run out; then both fail, naming the dependency.
   */
  private async settleOutage(
    host: ServiceHost,
    scope: Scope,
    task: TaskRecord,
    reason: string,
    progress: TaskProgress,
  ): Promise<Omit<RunReport, 'processingTimeMs'>> {
    const { attempts: allowed, backoffMs } = host.config.outageRetry;
    const attempts = task.attempts + 1;
    const now = new Date();
    const failure = `a dependency stayed unreachable through ${allowed} retries: ${reason}`;
    if (attempts > allowed) {
      // Out of retries, the document fails even when the dependency still stops its undo: the start-up recovery
      // finishes that undo (services/documents/maintenance.ts), and the integrity check reports it meanwhile.
      await this.failDocument(host, task, scope, failure, { outage: 'fail' });
      await host.stores.tasks.update(scope, task.id, {
        ...progress.snapshot(),
        status: 'failed',
        error: failure,
        attempts,
        lease_owner: null,
        lease_expires_at: null,
        updated_at: now.toISOString(),
        finished_at: now.toISOString(),
      });
      return { status: 'failed', error: failure };
    }
    const notBefore = new Date(now.getTime() + Math.min(backoffMs * 2 ** (attempts - 1), MAX_OUTAGE_BACKOFF_MS)).toISOString();
    const error = `waiting for a dependency (retry ${attempts} of ${allowed} from ${notBefore}): ${reason}`;
    await host.stores.tasks.update(scope, task.id, { ...requeuedTask(now.toISOString()), attempts, not_before: notBefore, error });
    host.log.warn(
      { task_id: task.id, document_id: task.document_id, attempts, not_before: notBefore, reason },
      'task put back after an outage',
    );
    return { status: 'interrupted', error };
  }

  /**
   * Undoes a failed run and marks its document failed (markDocumentFailed). When an outage stops the undo, with
   * `outage: 'requeue'` the reason is returned and the document stays `processing` (the caller puts the task back);
   * otherwise, and for any other error of the undo, it is logged and the document marked failed all the same: the
   * integrity check reports what was left (src/services/integrity) until the start-up recovery takes it out.
   */
  private async failDocument(
    host: ServiceHost,
    task: TaskRecord,
    scope: Scope,
    error: string,
    options: { outage: 'requeue' | 'fail' },
  ): Promise<string | null> {
    try {
      await markDocumentFailed(host, scope, task, error);
      return null;
    } catch (err) {
      if (isOutage(err) && options.outage === 'requeue') return err instanceof Error ? err.message : String(err);
      host.log.error({ err, task_id: task.id, document_id: task.document_id }, 'the undo of a failed run did not finish');
      await markDocumentFailed(host, scope, task, error, { undo: false });
      return null;
    }
  }

  private async renew(host: ServiceHost, entry: RunningTask): Promise<void> {
    const { tasks } = host.stores;
    const until = new Date(Date.now() + host.config.taskLeaseMs).toISOString();
    try {
      if (await tasks.renewLease(entry.scope, entry.taskId, entry.owner, until)) return;
      const task = await tasks.get(entry.scope, entry.taskId);
      this.stop(entry, task?.status === 'cancelled' ? 'cancel' : 'lease');
    } catch (err) {
      // A failed renewal is retried on the next tick; the lease outlives two missed renewals.
      host.log.warn({ err, taskId: entry.taskId }, 'task lease renewal failed');
    }
  }

  private stop(entry: RunningTask, kind: StopKind): void {
    if (entry.stopKind) return;
    entry.stopKind = kind;
    entry.controller.abort(new DOMException(STOP_REASONS[kind], 'AbortError'));
  }

  private async workerLoop(): Promise<void> {
    while (this.state === 'running') {
      const host = this.host;
      let claimed: Awaited<ReturnType<ServiceHost['stores']['tasks']['claimNext']>> = null;
      try {
        const now = Date.now();
        claimed = await host.stores.tasks.claimNext(
          claimOwner(host.config.instanceId),
          new Date(now).toISOString(),
          new Date(now + host.config.taskLeaseMs).toISOString(),
        );
      } catch (err) {
        host.log.warn({ err }, 'task claim failed');
      }
      if (!claimed) {
        await this.idle();
        continue;
      }
      // More may be queued: one more idle loop looks.
      this.wake();
      // Every claim is logged: a task claimed twice is visible (a takeover after its owner's lease expired).
      host.log.info(runFields(host, claimed.scope, claimed.task), 'task claimed');
      this.busy += 1;
      try {
        const done = this.runClaimed(claimed.scope, claimed.task);
        // A claim answered after the queue began to close (its round trip was under way) goes back to the queue.
        const entry = this.running.get(claimed.task.id);
        if (entry && this.state !== 'running') this.stop(entry, 'shutdown');
        await done;
      } finally {
        this.busy -= 1;
      }
      // A backlog of small tasks on in-memory stores would otherwise run back to back without letting requests in.
      await nextTurn();
    }
  }

  /**
   * Waits to be woken. One idle loop at a time also polls the store every POLL_MS (for tasks queued by other
   * instances and leases that ran out), so idle workers cost the database one query per poll, not one each.
   */
  private idle(): Promise<void> {
    const polls = !this.polling;
    this.polling = true;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        if (polls) this.polling = false;
        resolve();
      };
      const timer = polls ? setTimeout(done, POLL_MS) : undefined;
      timer?.unref();
      this.waiters.add(done);
    });
  }
}

function failureReason(task: TaskRecord, outcome: RunOutcome): string {
  switch (outcome.kind) {
    case 'missing':
      return `document '${task.document_id}' no longer exists`;
    case 'superseded':
      return `document '${task.document_id}' is processed by task '${outcome.by}'`;
    case 'crashed':
    case 'unavailable':
      return outcome.error;
    case 'finished':
      return outcome.result.error ?? 'processing failed';
  }
}

/** Who ran what, in the log lines of a run. */
function runFields(host: ServiceHost, scope: Scope, task: TaskRecord) {
  const { id: task_id, document_id, lease_owner } = task;
  return { task_id, document_id, workspace_id: scope.workspaceId, instance_id: host.config.instanceId, lease_owner };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
