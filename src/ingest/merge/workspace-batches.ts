import { scopeKey } from '../../domain/ids';
import type { Scope } from '../../domain/types';
import type { IngestDeps } from '../deps';

/**
 * Work of a workspace committed in batches, as a database commits a group of transactions: an item that arrives
 * while a batch of its workspace is committing waits for that batch, then goes with the items that arrived
 * meanwhile. Queues are kept per set of stores (`keyOf`) and workspace, present only while a batch commits.
 */
export class WorkspaceBatches<D, T> {
  private readonly queues = new WeakMap<object, Map<string, T[]>>();

  constructor(
    private readonly keyOf: (deps: D) => object,
    /** Commits a batch: settles every item of it and never throws. */
    private readonly commit: (deps: D, scope: Scope, batch: T[]) => Promise<void>,
    /** How many of the items waiting the next batch takes (at least the first). */
    private readonly take: (deps: D, waiting: T[]) => number = (_deps, waiting) => waiting.length,
  ) {}

  add(deps: D, scope: Scope, item: T): void {
    let workspaces = this.queues.get(this.keyOf(deps));
    if (!workspaces) this.queues.set(this.keyOf(deps), (workspaces = new Map()));
    const key = scopeKey(scope);
    const queue = workspaces.get(key);
    if (queue) queue.push(item);
    else {
      workspaces.set(key, [item]);
      void this.drain(deps, scope, workspaces, key);
    }
  }

  private async drain(deps: D, scope: Scope, workspaces: Map<string, T[]>, key: string): Promise<void> {
    for (;;) {
      const queue = workspaces.get(key) as T[];
      if (queue.length === 0) {
        workspaces.delete(key);
        return;
      }
      await this.commit(deps, scope, queue.splice(0, Math.max(1, this.take(deps, queue))));
    }
  }
}

type LockedDeps = Pick<IngestDeps, 'stores' | 'entityLocks'>;

interface Locked<I, R> {
  item: I;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

/**
 * Items of a workspace applied in batches under one entity lock over the keys of all of them: `apply` gets a
 * batch in arrival order and answers one result per item; a batch that cannot be applied fails every item in it.
 */
export function lockedBatches<I, R>(
  lockIdsOf: (item: I) => string[],
  apply: (deps: LockedDeps, scope: Scope, items: I[]) => Promise<R[]>,
): (deps: LockedDeps, scope: Scope, item: I) => Promise<R> {
  const batches = new WorkspaceBatches<LockedDeps, Locked<I, R>>(
    (deps) => deps.stores,
    async (deps, scope, batch) => {
      const items = batch.map((b) => b.item);
      let results: R[];
      try {
        results = await deps.entityLocks.run(scope, [...new Set(items.flatMap(lockIdsOf))], () => apply(deps, scope, items));
      } catch (err) {
        for (const b of batch) b.reject(err);
        return;
      }
      batch.forEach((b, i) => b.resolve(results[i]));
    },
  );
  return (deps, scope, item) => new Promise((resolve, reject) => batches.add(deps, scope, { item, resolve, reject }));
}
