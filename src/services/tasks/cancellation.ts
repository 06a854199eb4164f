import type { Scope, TaskRecord } from '../../domain/types';
import type { TaskQueue } from './queue';
import { CANCELLED_REASON, claimedByInstance, type ServiceHost, isUnsettledCancel, leaseExpired } from './records';
import { discardAbandonedRun, settleCancelledDocument } from './runner';

/** The longest a cancel request waits for a run in this instance to roll back before answering. */
const LOCAL_SETTLE_MS = 30_000;

/**
 * Cancelling a task wherever it is. A pending task is settled at once; a run in this instance is aborted and
 * the request answers once it has rolled back; a run in another instance sees the cancel at its next lease
 * renewal and rolls back there. The lease stays on a cancelled record until its run has settled, so a run
 * whose instance died is found (its lease ended, still unsettled) and rolled back here instead.
 */
export class Cancellations {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly host: ServiceHost,
    private readonly queue: TaskQueue,
  ) {}

  async cancel(scope: Scope, task: TaskRecord): Promise<void> {
    const now = new Date().toISOString();
    await this.host.stores.tasks.update(scope, task.id, {
      status: 'cancelled',
      error: CANCELLED_REASON,
      finished_at: now,
      updated_at: now,
    });
    if (this.queue.cancelRunning(task.id)) {
      // The answer comes after the rollback, so the document reads as settled as soon as the task reads cancelled.
      await Promise.race([this.queue.settled(task.id), delay(LOCAL_SETTLE_MS)]);
    } else if (task.status === 'pending') {
      await settleCancelledDocument(this.host, scope, task);
    } else {
      await this.settleWhenLeaseEnds(scope, task);
    }
  }

  /** Start-up: cancelled runs this instance left unsettled are rolled back; a dead instance's once its lease ends. */
  async recover(): Promise<void> {
    const { stores, config } = this.host;
    for (const { scope, task } of await stores.tasks.listAll(['cancelled'])) {
      if (!isUnsettledCancel(task)) continue;
      if (claimedByInstance(task.lease_owner, config.instanceId)) await this.settleAbandoned(scope, task);
      else await this.settleWhenLeaseEnds(scope, task);
    }
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /** The owner stops renewing a cancelled lease; if the run is still unsettled once the lease ends, its owner died. */
  private async settleWhenLeaseEnds(scope: Scope, task: TaskRecord): Promise<void> {
    if (leaseExpired(task)) {
      await this.settleAbandoned(scope, task);
      return;
    }
    const grace = this.host.config.taskLeaseMs / 3;
    const wait = Date.parse(task.lease_expires_at!) - Date.now() + grace;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.recheck(scope, task.id);
    }, wait);
    timer.unref();
    this.timers.add(timer);
  }

  private async recheck(scope: Scope, taskId: string): Promise<void> {
    const host = this.host;
    try {
      const task = await host.stores.tasks.get(scope, taskId);
      if (task && isUnsettledCancel(task) && leaseExpired(task)) await this.settleAbandoned(scope, task);
    } catch (err) {
      host.log.warn({ err, task_id: taskId }, 'rolling back an abandoned cancelled run failed');
    }
  }

  private async settleAbandoned(scope: Scope, task: TaskRecord): Promise<void> {
    const host = this.host;
    const fields = { task_id: task.id, document_id: task.document_id, lease_owner: task.lease_owner };
    host.log.warn(fields, 'rolling back a cancelled run whose instance stopped');
    await discardAbandonedRun(host, scope, task);
    await host.stores.tasks.update(scope, task.id, { lease_owner: null, lease_expires_at: null, updated_at: new Date().toISOString() });
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
