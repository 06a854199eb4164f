import { noTasksByStatus, type Page, type Scope, type TaskRecord, type TaskStatus } from '../../domain/types';
import type { TaskQuery, TaskStore, TaskTimes } from '../ports';
import { applyPatch, compareIds, copyTask, pageOf } from './records';
import { WorkspaceStates } from './workspaces';

interface TaskEntry {
  scope: Scope;
  task: TaskRecord;
  /** Insertion order, for FIFO among tasks created at the same instant. */
  seq: number;
}

function isOpen(status: TaskStatus): boolean {
  return status === 'pending' || status === 'running';
}

function time(iso: string): number {
  return Date.parse(iso);
}

function oldestFirst(a: TaskEntry, b: TaskEntry): number {
  return time(a.task.created_at) - time(b.task.created_at) || a.seq - b.seq;
}

function newestFirst(a: TaskEntry, b: TaskEntry): number {
  return time(b.task.created_at) - time(a.task.created_at) || compareIds(a.task.id, b.task.id);
}

export class MemoryTaskStore implements TaskStore {
  private readonly workspaces = new WorkspaceStates<Map<string, TaskEntry>>(() => new Map());
  /** Pending and running tasks of every workspace: the only ones claimNext has to look at. */
  private readonly open = new Set<TaskEntry>();
  private seq = 0;

  /** A second insert under the same id replaces the task. */
  async insert(scope: Scope, task: TaskRecord): Promise<void> {
    const tasks = this.workspaces.obtain(scope);
    const previous = tasks.get(task.id);
    if (previous) this.open.delete(previous);
    const entry: TaskEntry = { scope: { ...scope }, task: copyTask(task), seq: this.seq++ };
    tasks.set(task.id, entry);
    if (isOpen(entry.task.status)) this.open.add(entry);
  }

  async update(scope: Scope, id: string, patch: Partial<TaskRecord>): Promise<TaskRecord | null> {
    const entry = this.workspaces.find(scope)?.get(id);
    if (!entry) return null;
    this.replace(entry, applyPatch(entry.task, patch, copyTask));
    return copyTask(entry.task);
  }

  async get(scope: Scope, id: string): Promise<TaskRecord | null> {
    const entry = this.workspaces.find(scope)?.get(id);
    return entry ? copyTask(entry.task) : null;
  }

  /** Newest first. */
  async list(scope: Scope, query: TaskQuery): Promise<Page<TaskRecord>> {
    let entries = [...(this.workspaces.find(scope)?.values() ?? [])];
    if (query.status !== undefined) entries = entries.filter((e) => e.task.status === query.status);
    return pageOf(entries.sort(newestFirst), query.limit, query.offset, (e) => copyTask(e.task));
  }

  async countByStatus(scope: Scope): Promise<Record<TaskStatus, number>> {
    const counts = noTasksByStatus();
    for (const entry of this.workspaces.find(scope)?.values() ?? []) counts[entry.task.status] += 1;
    return counts;
  }

  async finishTimes(scope: Scope, status: TaskStatus, limit: number): Promise<TaskTimes[]> {
    const entries = [...(this.workspaces.find(scope)?.values() ?? [])].filter((e) => e.task.status === status);
    return entries
      .sort(newestFirst)
      .slice(0, limit)
      .map(({ task }) => ({ created_at: task.created_at, finished_at: task.finished_at }));
  }

  /** Oldest first, across workspaces. */
  async listAll(statuses: TaskStatus[]): Promise<Array<{ scope: Scope; task: TaskRecord }>> {
    const wanted = new Set(statuses);
    const entries: TaskEntry[] = [];
    for (const [, tasks] of this.workspaces.entries()) {
      for (const entry of tasks.values()) if (wanted.has(entry.task.status)) entries.push(entry);
    }
    return entries.sort(oldestFirst).map((e) => ({ scope: { ...e.scope }, task: copyTask(e.task) }));
  }

  /**
   * Pending tasks whose backoff (`not_before`) has ended first, oldest first; then running tasks whose lease ended at or before `now` (their worker
   * died). A running task without a lease is someone's and never taken. Synchronous from check to write, so
   * concurrent claims in this process never share a task.
   */
  async claimNext(owner: string, now: string, leaseUntil: string): Promise<{ scope: Scope; task: TaskRecord } | null> {
    const nowMs = time(now);
    let best: TaskEntry | null = null;
    let bestRank = 2;
    for (const entry of this.open) {
      const { status, lease_expires_at, not_before } = entry.task;
      const due = not_before === null || time(not_before) <= nowMs;
      const rank =
        status === 'pending' ? (due ? 0 : Infinity) : lease_expires_at !== null && time(lease_expires_at) <= nowMs ? 1 : Infinity;
      if (rank < bestRank || (rank === bestRank && best && oldestFirst(entry, best) < 0)) {
        best = entry;
        bestRank = rank;
      }
    }
    if (!best) return null;
    this.replace(best, {
      ...copyTask(best.task),
      status: 'running',
      lease_owner: owner,
      lease_expires_at: leaseUntil,
      started_at: best.task.started_at ?? now,
      updated_at: now,
    });
    return { scope: { ...best.scope }, task: copyTask(best.task) };
  }

  async renewLease(scope: Scope, id: string, owner: string, leaseUntil: string): Promise<boolean> {
    const entry = this.workspaces.find(scope)?.get(id);
    if (!entry || entry.task.status !== 'running' || entry.task.lease_owner !== owner) return false;
    entry.task = { ...entry.task, lease_expires_at: leaseUntil };
    return true;
  }

  async countOpen(scope: Scope | null): Promise<number> {
    if (scope === null) return this.open.size;
    let n = 0;
    for (const entry of this.open) {
      if (entry.scope.workspaceId === scope.workspaceId && (entry.scope.tenantId ?? '') === (scope.tenantId ?? '')) n += 1;
    }
    return n;
  }

  dropWorkspace(scope: Scope): void {
    for (const entry of this.workspaces.find(scope)?.values() ?? []) this.open.delete(entry);
    this.workspaces.drop(scope);
  }

  clear(): void {
    this.workspaces.clear();
    this.open.clear();
  }

  private replace(entry: TaskEntry, task: TaskRecord): void {
    entry.task = task;
    if (isOpen(task.status)) this.open.add(entry);
    else this.open.delete(entry);
  }
}
