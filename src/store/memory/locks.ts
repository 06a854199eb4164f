import type { Scope } from '../../domain/types';
import type { LockStore } from '../ports';
import { WorkspaceStates } from './workspaces';

interface Lease {
  owner: string;
  expiresAt: number;
}

/** Leases in process memory: in embedded mode there is one instance, so they only mirror the in-process lock. */
export class MemoryLockStore implements LockStore {
  private readonly workspaces = new WorkspaceStates<Map<string, Lease>>(() => new Map());

  async acquire(scope: Scope, keys: string[], owner: string, ttlMs: number): Promise<boolean> {
    const leases = this.workspaces.obtain(scope);
    const now = Date.now();
    if (keys.some((key) => heldByOther(leases.get(key), owner, now))) return false;
    for (const key of keys) leases.set(key, { owner, expiresAt: now + ttlMs });
    return true;
  }

  async release(scope: Scope, keys: string[], owner: string): Promise<void> {
    const leases = this.workspaces.find(scope);
    if (!leases) return;
    for (const key of keys) if (leases.get(key)?.owner === owner) leases.delete(key);
  }

  async renew(scope: Scope, keys: string[], owner: string, ttlMs: number): Promise<boolean> {
    const leases = this.workspaces.find(scope);
    const expiresAt = Date.now() + ttlMs;
    let all = true;
    for (const key of keys) {
      const lease = leases?.get(key);
      if (lease?.owner === owner) lease.expiresAt = expiresAt;
      else all = false;
    }
    return all;
  }

  dropWorkspace(scope: Scope): void {
    this.workspaces.drop(scope);
  }

  clear(): void {
    this.workspaces.clear();
  }
}

function heldByOther(lease: Lease | undefined, owner: string, now: number): boolean {
  return lease !== undefined && lease.owner !== owner && lease.expiresAt > now;
}
