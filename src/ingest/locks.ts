import type { Scope } from '../domain/types';

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
 */
const graphLock = new KeyedLock();

export async function withEntityLock<T>(scope: Scope, entityIds: Iterable<string>, fn: () => Promise<T>): Promise<T> {
  const prefix = `${scope.tenantId ?? ''}\u0000${scope.workspaceId}\u0000`;
  const release = await graphLock.acquire([...entityIds].map((id) => prefix + id));
  try {
    return await fn();
  } finally {
    release();
  }
}
