import { randomUUID } from 'node:crypto';
import { scopeKey } from '../domain/ids';
import type { Scope } from '../domain/types';
import type { LockStore } from '../store/ports';

/**
 * An in-process lock over sets of keys. Registration is synchronous, so waiters queue in one global order
 * and two overlapping sets can never wait for each other in a cycle.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async acquire(keys: Iterable<string>): Promise<() => void> {
    const unique = [...new Set(keys)];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const waits: Array<Promise<void>> = [];
    for (const key of unique) {
      const previous = this.tails.get(key);
      if (previous) waits.push(previous);
      this.tails.set(key, held);
    }
    await Promise.all(waits);
    return () => {
      release();
      for (const key of unique) if (this.tails.get(key) === held) this.tails.delete(key);
    };
  }
}

/**
 * Merges and deletion rebuild entity records from their sources (read, recompute, write); two documents
 * touching the same entity must not interleave, or one's sources would be lost. Keyed by entity id: a
 * relationship is only rewritten by a document that also touches both its endpoints.
 * The in-process lock comes first (it orders this process's writers without a round trip); the store's
 * leases then keep other instances sharing the database out.
 */
const graphLock = new KeyedLock();

/**
 * A lease outlives a holder that stopped renewing it (a crashed instance) by at most its duration: the task
 * lease in a running service (the composition root passes it), this long otherwise.
 */
const DEFAULT_LEASE_MS = 30_000;
const RENEWALS_PER_LEASE = 3;
const FIRST_BACKOFF_MS = 5;
const MAX_BACKOFF_MS = 250;

const instance = randomUUID();
let holds = 0;

interface SharedLocks {
  locks: LockStore;
  leaseMs: number;
}

/**
 * The lock key of a document's chunk records and counts, taken inside an entity lock by whoever rewrites them:
 * two merges of unrelated entities named by the same chunk hold no common entity key, and each rewrites the
 * chunk from what it read. Entity ids are upper case, so the key never names an entity; it is not the
 * `document:` key an update or deletion holds for its whole run (that run writes chunk links itself).
 */
export function documentLinksLockKey(documentId: string): string {
  return `document-links:${documentId}`;
}

/** Entity locks: the in-process lock, then the store's leases that keep other instances sharing the database out. */
export interface EntityLocks {
  run<T>(scope: Scope, entityIds: Iterable<string>, fn: () => Promise<T>): Promise<T>;
}

/** Entity locks leased from `store` for `leaseMs` (renewed while held); with no store, this process only. */
export function createEntityLocks(store: LockStore | null, leaseMs = DEFAULT_LEASE_MS): EntityLocks {
  const shared = store ? { locks: store, leaseMs } : undefined;
  return { run: (scope, entityIds, fn) => withEntityLock(scope, entityIds, fn, shared) };
}

async function withEntityLock<T>(
  scope: Scope,
  entityIds: Iterable<string>,
  fn: () => Promise<T>,
  shared: SharedLocks | undefined,
): Promise<T> {
  const keys = [...new Set(entityIds)].sort();
  const prefix = `${scopeKey(scope)}\u0000`;
  const release = await graphLock.acquire(keys.map((id) => prefix + id));
  try {
    return shared && keys.length ? await withLease(shared, scope, keys, fn) : await fn();
  } finally {
    release();
  }
}

/** Waits (jittered backoff) until every key is leased to this holder, renews the lease while `fn` runs. */
async function withLease<T>({ locks, leaseMs }: SharedLocks, scope: Scope, keys: string[], fn: () => Promise<T>): Promise<T> {
  const owner = `${instance}:${++holds}`;
  for (
    let backoff = FIRST_BACKOFF_MS;
    !(await locks.acquire(scope, keys, owner, leaseMs));
    backoff = Math.min(MAX_BACKOFF_MS, backoff * 2)
  ) {
    await new Promise((resolve) => setTimeout(resolve, backoff / 2 + Math.random() * backoff));
  }
  // A failed renewal is not fatal here: the next one may succeed, and the lease outlives one missed beat.
  const renewal = setInterval(() => void locks.renew(scope, keys, owner, leaseMs).catch(() => undefined), leaseMs / RENEWALS_PER_LEASE);
  renewal.unref();
  try {
    return await fn();
  } finally {
    clearInterval(renewal);
    // An unreleased lease only delays the next holder until it runs out; the work itself is done.
    await locks.release(scope, keys, owner).catch(() => undefined);
  }
}
