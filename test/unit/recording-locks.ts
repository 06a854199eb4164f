import { createEntityLocks, type EntityLocks } from '../../src/records/locks';

/** In-process entity locks that record the keys of every hold, sorted, in the order holds were asked for. */
export function recordingLocks(): { locks: EntityLocks; held: string[][] } {
  const inner = createEntityLocks(null);
  const held: string[][] = [];
  const locks: EntityLocks = {
    run: (scope, ids, fn) => {
      held.push([...ids].sort());
      return inner.run(scope, ids, fn);
    },
  };
  return { locks, held };
}
