import { randomUUID } from 'node:crypto';
import { scopeKey } from '../domain/ids';
import type { Scope } from '../domain/types';
import type { LockStore } from '../store/ports';

/** Keys held together: freed all at once or a part at a time. */
export interface KeyHold {
  /** Frees the given keys of the hold; without an argument, every key it still holds. */
  release(keys?: Iterable<string>): void;
  /** Whether another caller has queued for the key since this hold took it. */
  awaited(key: string): boolean;
}

/**
 * An in-process lock over sets of keys. Registration is synchronous, so waiters queue in one global order
 * and two overlapping sets can never wait for each other in a cycle; freeing part of a set early keeps it so.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async acquire(keys: Iterable<string>): Promise<() => void> {
    const hold = await this.hold(keys);
    return () => hold.release();
  }

  async hold(keys: Iterable<string>): Promise<KeyHold> {
    const mine = new Map<string, { turn: Promise<void>; end: () => void }>();
    const waits: Array<Promise<void>> = [];
    for (const key of new Set(keys)) {
      let end!: () => void;
      const turn = new Promise<void>((resolve) => (end = resolve));
      const previous = this.tails.get(key);
      if (previous) waits.push(previous);
      this.tails.set(key, turn);
      mine.set(key, { turn, end });
    }
    await Promise.all(waits);
    return {
      release: (which = [...mine.keys()]) => {
        for (const key of which) {
          const held = mine.get(key);
          if (!held) continue;
          mine.delete(key);
          held.end();
          if (this.tails.get(key) === held.turn) this.tails.delete(key);
        }
      },
      awaited: (key) => mine.has(key) && this.tails.get(key) !== mine.get(key)?.turn,
    };
  }
}

/**
 * A lease outlives a holder that stopped renewing it (a crashed instance) by at most its duration: the task
 * lease in a running service (the composition root passes it), this long otherwise.
 */
const DEFAULT_LEASE_MS = 30_000;
const RENEWALS_PER_LEASE = 3;
const FIRST_BACKOFF_MS = 5;
const MAX_BACKOFF_MS = 250;

/**
 * A lease handed from one holder of this process to the next is given back to the store once it has been
 * handed on this long without a break, so that other instances polling for its keys get a turn.
 */
const HANDOFF_LIMIT_MS = 10_000;

/**
 * Store leases held between two holders of one set of entity locks, per lock key: a holder that ends while another
 * holder of the same set waits for one of its keys hands that key's lease on (no round trip to release it and take
 * it again) instead of giving it back to the store. `until` is when the lease runs out if not renewed (this
 * process's clock, taken before the call that set it); `since` is when it was last taken from the store.
 */
type HandedLeases = Map<string, { until: number; since: number }>;

interface SharedLocks {
  locks: LockStore;
  leaseMs: number;
  /** Leases are taken in the name of the set of locks: its holders exclude each other in process (`graph`). */
  instance: string;
  handed: HandedLeases;
}

/**
 * Merges and deletion rebuild entity records from their sources (read, recompute, write); two documents
 * touching the same entity must not interleave, or one's sources would be lost. Keyed by entity id: a
 * relationship is only rewritten by a document that also touches both its endpoints.
 * The in-process lock comes first (it orders the runtime's writers without a round trip); the store's
 * leases then keep other instances (and other runtimes) sharing the database out.
 */
interface LockState {
  graph: KeyedLock;
  shared: SharedLocks | undefined;
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

/**
 * Entity locks leased from `store` for `leaseMs` (renewed while held); with no store, their holders only. Each set
 * (one per runtime) has its own in-process lock and takes leases in a name of its own.
 */
export function createEntityLocks(store: LockStore | null, leaseMs = DEFAULT_LEASE_MS): EntityLocks {
  const state: LockState = {
    graph: new KeyedLock(),
    shared: store ? { locks: store, leaseMs, instance: randomUUID(), handed: new Map() } : undefined,
  };
  return { run: (scope, entityIds, fn) => withEntityLock(state, scope, entityIds, fn) };
}

async function withEntityLock<T>(
  { graph, shared }: LockState,
  scope: Scope,
  entityIds: Iterable<string>,
  fn: () => Promise<T>,
): Promise<T> {
  const keys = [...new Set(entityIds)].sort();
  const prefix = `${scopeKey(scope)}\u0000`;
  const hold = await graph.hold(keys.map((id) => prefix + id));
  try {
    return shared && keys.length ? await withLease(shared, scope, keys, prefix, hold, fn) : await fn();
  } finally {
    hold.release();
  }
}

/**
 * Takes the keys' leases over from the holder before (when it handed every one of them on, each good for at least
 * half a lease more) or from the store (jittered backoff until every key is leased to this process), renews them
 * while `fn` runs, then hands on those another holder of this process waits for and gives the rest back.
 */
async function withLease<T>(
  { locks, leaseMs, instance, handed }: SharedLocks,
  scope: Scope,
  keys: string[],
  prefix: string,
  hold: KeyHold,
  fn: () => Promise<T>,
): Promise<T> {
  const lockKeys = keys.map((id) => prefix + id);
  const started = Date.now();
  const takenOver = lockKeys.map((key) => handed.get(key));
  for (const key of lockKeys) handed.delete(key);
  let since = Math.min(started, ...takenOver.map((lease) => lease?.since ?? started));
  let until = Math.min(...takenOver.map((lease) => lease?.until ?? 0));
  if (until - started <= leaseMs / 2) {
    // Taking a key again as its owner extends it: the leases handed over are renewed by the same call.
    let holding = keys.filter((_, i) => takenOver[i] !== undefined);
    for (let backoff = FIRST_BACKOFF_MS; ; backoff = Math.min(MAX_BACKOFF_MS, backoff * 2)) {
      const at = Date.now();
      if (await locks.acquire(scope, keys, instance, leaseMs)) {
        until = at + leaseMs;
        break;
      }
      // Another instance holds one of the keys: the leases handed over go back rather than wait with it, as a
      // holder that takes all its keys at once or none never holds some while waiting for others.
      if (holding.length) await locks.release(scope, holding, instance).catch(() => undefined);
      holding = [];
      await new Promise((resolve) => setTimeout(resolve, backoff / 2 + Math.random() * backoff));
    }
    if (takenOver.some((lease) => lease === undefined)) since = Date.now();
  }
  // A failed renewal is not fatal here: the next one may succeed, and the lease outlives one missed beat. A lease
  // found taken over by another instance is not handed on.
  let lost = false;
  const renewal = setInterval(() => {
    const at = Date.now();
    void locks.renew(scope, keys, instance, leaseMs).then(
      (renewed) => (renewed ? (until = at + leaseMs) : (lost = true)),
      () => undefined,
    );
  }, leaseMs / RENEWALS_PER_LEASE);
  renewal.unref();
  try {
    return await fn();
  } finally {
    clearInterval(renewal);
    const handOn = lost || Date.now() - since >= HANDOFF_LIMIT_MS ? [] : lockKeys.filter((key) => hold.awaited(key));
    for (const key of handOn) handed.set(key, { until, since });
    hold.release(handOn);
    // An unreleased lease only delays the next holder until it runs out; the work itself is done.
    const giveBack = keys.filter((_, i) => !handOn.includes(lockKeys[i]));
    await locks.release(scope, giveBack, instance).catch(() => undefined);
  }
}
