import type { Scope } from '../../domain/types';
import type { BatchKind } from '../batches';
import type { IngestDeps } from '../deps';

type LockedDeps = Pick<IngestDeps, 'stores' | 'entityLocks' | 'ingest'>;

interface Locked<I, R> {
  item: I;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

/**
 * Items of a workspace applied in batches under one entity lock over the keys of all of them: `apply` gets a
 * batch in arrival order and answers one result per item; a batch that cannot be applied fails every item in it.
 * The queues are the runtime's (`deps.ingest.batches`).
 */
export function lockedBatches<I, R>(
  lockIdsOf: (item: I) => string[],
  apply: (deps: LockedDeps, scope: Scope, items: I[]) => Promise<R[]>,
): (deps: LockedDeps, scope: Scope, item: I) => Promise<R> {
  const kind: BatchKind<LockedDeps, Locked<I, R>> = {
    async commit(deps, scope, batch) {
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
  };
  return (deps, scope, item) => new Promise((resolve, reject) => deps.ingest.batches.of(kind).add(deps, scope, { item, resolve, reject }));
}
