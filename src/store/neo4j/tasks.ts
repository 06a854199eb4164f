import { noTasksByStatus, type Page, type Scope, type TaskRecord, type TaskStatus } from '../../domain/types';
import type { TaskQuery, TaskStore, TaskTimes } from '../ports';
import { type Neo4jClient, type Row, scopeParams } from './client';
import { TASK_FIELDS, TASK_TIMES, decode, encode, encodePatch } from './codecs';
import { GroupCommit } from './group-commit';
import { scopeKey } from '../../domain/ids';
import { nextSequence } from './sequence';
import { count, int, num, str, timestamp } from './values';

/** Candidates looked at per claim: when another instance takes the first, the next one is tried. */
const CANDIDATES = 8;

function scopeOf(row: Row): Scope {
  const tenant = str(row.tenant_id);
  const workspaceId = str(row.workspace_id);
  return tenant === '' ? { workspaceId } : { workspaceId, tenantId: tenant };
}

interface TaskPatch {
  scope: Scope;
  id: string;
  patch: Record<string, unknown>;
}

export class Neo4jTaskStore implements TaskStore {
  /** Updates of one workspace's tasks made while others are being written go together as one statement. */
  private readonly updates: GroupCommit<TaskPatch, TaskRecord | null>;

  constructor(private readonly db: Neo4jClient) {
    this.updates = new GroupCommit(async (calls) => {
      const rows = calls.map(({ id, patch }) => ({ id, patch }));
      const out = await this.db.writeRows('tasks/update', { ...scopeParams(calls[0].scope), rows });
      const tasks: Array<TaskRecord | null> = calls.map(() => null);
      for (const row of out) if (row.task) tasks[num(row.at)] = decode(TASK_FIELDS, row.task);
      return tasks;
    });
  }

  async insert(scope: Scope, task: TaskRecord): Promise<void> {
    await this.db.writeRows('tasks/insert', {
      ...scopeParams(scope),
      props: encode(TASK_FIELDS, task),
      seq: int(nextSequence()),
    });
  }

  async update(scope: Scope, id: string, patch: Partial<TaskRecord>): Promise<TaskRecord | null> {
    return this.updates.submit(scopeKey(scope), { scope, id, patch: encodePatch(TASK_FIELDS, patch) });
  }

  async get(scope: Scope, id: string): Promise<TaskRecord | null> {
    const rows = await this.db.readRows('tasks/get', { ...scopeParams(scope), id });
    return rows.length ? decode(TASK_FIELDS, rows[0].task) : null;
  }

  async list(scope: Scope, query: TaskQuery): Promise<Page<TaskRecord>> {
    const [row] = await this.db.readRows('tasks/list', {
      ...scopeParams(scope),
      status: query.status ?? null,
      offset: count(query.offset),
      limit: count(query.limit),
    });
    return { items: (row.tasks as unknown[]).map((t) => decode(TASK_FIELDS, t)), total: num(row.total) };
  }

  async countByStatus(scope: Scope): Promise<Record<TaskStatus, number>> {
    const counts = noTasksByStatus();
    for (const row of await this.db.readRows('tasks/count-by-status', scopeParams(scope))) {
      const status = row.status as TaskStatus;
      if (status in counts) counts[status] = num(row.total);
    }
    return counts;
  }

  async finishTimes(scope: Scope, status: TaskStatus, limit: number): Promise<TaskTimes[]> {
    const rows = await this.db.readRows('tasks/finish-times', { ...scopeParams(scope), status, limit: count(limit) });
    return rows.map((row) => decode(TASK_TIMES, row));
  }

  async listAll(statuses: TaskStatus[]): Promise<Array<{ scope: Scope; task: TaskRecord }>> {
    if (statuses.length === 0) return [];
    const rows = await this.db.readRows('tasks/list-all', { statuses });
    return rows.map((row) => ({ scope: scopeOf(row), task: decode(TASK_FIELDS, row.task) }));
  }

  /**
   * Tasks that claimers of this instance are trying to take at this moment, with how many. Workers of one instance
   * read the same candidates at once; each tries first those no other one is after, instead of all queueing on the
   * first one's lock, and tries the rest after them.
   */
  private readonly claiming = new Map<string, number>();

  /**
   * Each candidate is claimed in a write transaction that first takes the task's lock and then re-checks it:
   * of two concurrent claimers, the second sees the first one's committed claim and moves on.
   */
  async claimNext(owner: string, now: string, leaseUntil: string): Promise<{ scope: Scope; task: TaskRecord } | null> {
    const times = { now: timestamp(now), lease_until: timestamp(leaseUntil) };
    for (let round = 0; round < 3; round++) {
      const rows = await this.db.readRows('tasks/claim-candidates', { now: times.now, take: count(CANDIDATES) });
      if (rows.length === 0) return null;
      const candidates = rows.map((row) => {
        const scope = scopeOf(row);
        return { row, scope, claim: `${scopeKey(scope)}\u0000${str(row.id)}` };
      });
      const free = candidates.filter((c) => !this.claiming.has(c.claim));
      for (const { row, scope, claim } of [...free, ...candidates.filter((c) => this.claiming.has(c.claim))]) {
        const params = { ...scopeParams(scope), id: row.id, owner, ...times };
        this.claiming.set(claim, (this.claiming.get(claim) ?? 0) + 1);
        const claimed = await this.db
          .write(async (tx) => {
            if ((await tx.run('tasks/lock', params)).length === 0) return null;
            const found = await tx.run('tasks/claim', params);
            return found.length ? decode(TASK_FIELDS, found[0].task) : null;
          })
          .finally(() => this.release(claim));
        if (claimed) return { scope, task: claimed };
      }
    }
    return null;
  }

  /** One claimer of this instance stops trying the task. */
  private release(claim: string): void {
    const left = (this.claiming.get(claim) ?? 1) - 1;
    if (left > 0) this.claiming.set(claim, left);
    else this.claiming.delete(claim);
  }

  async countOpen(scope: Scope | null): Promise<number> {
    const params = scope === null ? { all: true, tenant_id: '', workspace_id: '' } : { all: false, ...scopeParams(scope) };
    const [row] = await this.db.readRows('tasks/count-open', params);
    return num(row?.n);
  }

  async renewLease(scope: Scope, id: string, owner: string, leaseUntil: string): Promise<boolean> {
    const params = { ...scopeParams(scope), id, owner, lease_until: timestamp(leaseUntil) };
    return this.db.write(async (tx) => {
      if ((await tx.run('tasks/lock', params)).length === 0) return false;
      return (await tx.run('tasks/renew-lease', params)).length > 0;
    });
  }
}
