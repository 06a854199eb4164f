import { randomUUID } from 'node:crypto';
import type { Scope } from '../domain/types';
import type { LockStore } from '../store/ports';

/** A lease outlives a holder that stopped renewing it (a crashed instance) by at most this long. */
export const LEASE_MS = 30_000;
const RENEWALS_PER_LEASE = 3;
const FIRST_BACKOFF_MS = 5;
const MAX_BACKOFF_MS = 250;

/**
 * Runs `fn` holding the store's leases on `keys` of the workspace, so that no other holder (of this instance or of
 * another on the same database) holds any of them meanwhile; the leases are renewed while it runs and given back
 * after. With `wait`, waits for keys held elsewhere (jittered backoff); without, answers null at once instead. Each
 * call holds in a name of its own. For work that is done once per workspace at a time across instances (a
 * community recompute, a record's summary) or claimed once for good (`claimOnce`).
 */
export async function withLeases<T>(
  locks: LockStore,
  scope: Scope,
  keys: string[],
  fn: () => Promise<T>,
  options: { wait: boolean; leaseMs?: number },
): Promise<{ value: T } | null> {
  const leaseMs = options.leaseMs ?? LEASE_MS;
  const owner = randomUUID();
  for (
    let backoff = FIRST_BACKOFF_MS;
    !(await locks.acquire(scope, keys, owner, leaseMs));
    backoff = Math.min(MAX_BACKOFF_MS, backoff * 2)
  ) {
    if (!options.wait) return null;
    await new Promise((resolve) => setTimeout(resolve, backoff / 2 + Math.random() * backoff));
  }
  // A failed renewal is not fatal: the next one may succeed, and the lease outlives one missed beat.
  const renewal = setInterval(() => void locks.renew(scope, keys, owner, leaseMs).catch(() => undefined), leaseMs / RENEWALS_PER_LEASE);
  renewal.unref();
  try {
    return { value: await fn() };
  } finally {
    clearInterval(renewal);
    // An unreleased lease only delays the next holder until it runs out; the work itself is done.
    await locks.release(scope, keys, owner).catch(() => undefined);
  }
}

/**
 * Claims `key` of the workspace for good (until `until`, ms since the epoch): true for the one caller, of every
 * instance on the database, that claims it first. For what must happen once, such as a budget alert per period.
 */
export async function claimOnce(locks: LockStore, scope: Scope, key: string, until: number): Promise<boolean> {
  return locks.acquire(scope, [key], randomUUID(), Math.max(1, until - Date.now()));
}
