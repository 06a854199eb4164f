import { randomUUID } from 'node:crypto';
import type { StageName, StageStatus, TaskRecord, TaskStats } from '../../domain/types';
import type { IngestDeps } from '../../ingest/deps';

/** What the task and document services need from the composition root: what the ingestion pipeline needs. */
export type ServiceHost = IngestDeps;

export type TaskMode = TaskRecord['mode'];

export function emptyStats(): TaskStats {
  return { chunks_processed: 0, chunks_total: 0, entities_found: 0, relationships_found: 0 };
}

export function pendingStages(): Record<StageName, StageStatus> {
  return { chunking: 'pending', extraction: 'pending', merging: 'pending', embedding: 'pending' };
}

export function newTaskRecord(props: { id: string; documentId: string; mode: TaskMode; now: string; retryOf?: string | null }): TaskRecord {
  return {
    id: props.id,
    type: 'document_processing',
    status: 'pending',
    progress: 0,
    document_id: props.documentId,
    mode: props.mode,
    stages: pendingStages(),
    stats: emptyStats(),
    error: null,
    retry_of: props.retryOf ?? null,
    created_at: props.now,
    started_at: null,
    updated_at: props.now,
    finished_at: null,
    lease_owner: null,
    lease_expires_at: null,
    attempts: 0,
    not_before: null,
  };
}

/** Back in the queue, as if never started: another run starts from the first stage. */
export function requeuedTask(now: string): Partial<TaskRecord> {
  return {
    status: 'pending',
    progress: 0,
    stages: pendingStages(),
    stats: emptyStats(),
    started_at: null,
    lease_owner: null,
    lease_expires_at: null,
    updated_at: now,
  };
}

/**
 * The lease owner a claim records: this instance's id and a token of the one run, so that a run which lost its
 * lease can tell a takeover apart even when the new owner is this same instance.
 */
export function claimOwner(instanceId: string): string {
  return `${instanceId}#${randomUUID()}`;
}

/** Whether a lease owner is a run of this instance (any of its claims). */
export function claimedByInstance(owner: string | null, instanceId: string): boolean {
  return owner !== null && (owner === instanceId || owner.startsWith(`${instanceId}#`));
}

export function isLiveTask(task: TaskRecord | null): boolean {
  return task !== null && (task.status === 'pending' || task.status === 'running');
}

/** A cancel recorded on a run that has not rolled back yet: the lease is released only once the run has settled. */
export function isUnsettledCancel(task: TaskRecord | null): boolean {
  return task !== null && task.status === 'cancelled' && task.lease_owner !== null;
}

/** Whether the task still has a say over its document: queued, running, or cancelled and still rolling back. */
export function holdsDocument(task: TaskRecord | null): boolean {
  return isLiveTask(task) || isUnsettledCancel(task);
}

export function leaseExpired(task: TaskRecord, now = Date.now()): boolean {
  return task.lease_expires_at === null || Date.parse(task.lease_expires_at) <= now;
}

export const CANCELLED_REASON = 'cancelled by request';
