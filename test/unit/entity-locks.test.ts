import { createEntityLocks, KeyedLock } from '../../src/records/locks';
import type { Scope } from '../../src/domain/types';
import { MemoryLockStore } from '../../src/store/memory';

const scope: Scope = { workspaceId: 'entity-locks' };

/** A lock store that counts its calls. */
class CountingLocks extends MemoryLockStore {
  readonly calls = { acquire: 0, release: 0 };

  override acquire(s: Scope, keys: string[], owner: string, ttlMs: number): Promise<boolean> {
    this.calls.acquire++;
    return super.acquire(s, keys, owner, ttlMs);
  }

  override release(s: Scope, keys: string[], owner: string): Promise<void> {
    this.calls.release++;
    return super.release(s, keys, owner);
  }
}

/** Whether an instance other than this process could take the keys now (then gives them back). */
async function freeForOthers(locks: MemoryLockStore, keys: string[]): Promise<boolean> {
  const taken = await locks.acquire(scope, keys, 'another-instance', 1_000);
  if (taken) await locks.release(scope, keys, 'another-instance');
  return taken;
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('KeyedLock', () => {
  it('frees part of a hold early, and tells which keys another caller waits for', async () => {
    const lock = new KeyedLock();
    const first = await lock.hold(['a', 'b']);
    const order: string[] = [];
    const onA = lock.hold(['a']).then((hold) => (order.push('a'), hold));
    const onB = lock.hold(['b']).then((hold) => (order.push('b'), hold));
    await Promise.resolve();
    expect([first.awaited('a'), first.awaited('b')]).toEqual([true, true]);

    first.release(['b']);
    (await onB).release();
    expect(order).toEqual(['b']);
    first.release();
    (await onA).release();
    expect(order).toEqual(['b', 'a']);
    expect((await lock.hold(['a'])).awaited('a')).toBe(false);
  });
});

describe('entity locks leased from a shared store', () => {
  it('hand the lease of a key from one holder of the process to the next that waits for it, without the store', async () => {
    const locks = new CountingLocks();
    const entityLocks = createEntityLocks(locks, 60_000);
    const firstRunning = deferred();
    const finishFirst = deferred();
    const seen: boolean[] = [];
    let acquiredBeforeSecond = -1;

    const first = entityLocks.run(scope, ['ALICE', 'BOB'], async () => {
      firstRunning.resolve();
      await finishFirst.promise;
    });
    await firstRunning.promise;
    // The second holder queues for ALICE only; BOB has nobody waiting.
    const second = entityLocks.run(scope, ['ALICE'], async () => {
      acquiredBeforeSecond = locks.calls.acquire;
      seen.push(await freeForOthers(locks, ['ALICE']));
    });
    expect(locks.calls).toEqual({ acquire: 1, release: 0 });
    finishFirst.resolve();
    await Promise.all([first, second]);

    // One acquisition for both holders; ALICE was never free for another instance while either needed it.
    expect(seen).toEqual([false]);
    expect(acquiredBeforeSecond).toBe(1);
    // Once nobody in the process waits, every key is back in the store.
    expect(await freeForOthers(locks, ['ALICE', 'BOB'])).toBe(true);
  });

  it('give a handed-over lease back while waiting for a key another instance holds', async () => {
    const locks = new CountingLocks();
    const entityLocks = createEntityLocks(locks, 60_000);
    const finishFirst = deferred();
    const firstRunning = deferred();
    const first = entityLocks.run(scope, ['ALICE'], async () => {
      firstRunning.resolve();
      await finishFirst.promise;
    });
    await firstRunning.promise;
    expect(await locks.acquire(scope, ['CAROL'], 'another-instance', 60_000)).toBe(true);
    let ran = false;
    const second = entityLocks.run(scope, ['ALICE', 'CAROL'], async () => {
      ran = true;
    });
    finishFirst.resolve();
    await first;
    await new Promise((resolve) => setTimeout(resolve, 50));

    // The second holder waits for CAROL and does not sit on ALICE meanwhile: the other instance could take it.
    expect(ran).toBe(false);
    expect(await freeForOthers(locks, ['ALICE'])).toBe(true);
    await locks.release(scope, ['CAROL'], 'another-instance');
    await second;
    expect(ran).toBe(true);
    expect(await freeForOthers(locks, ['ALICE', 'CAROL'])).toBe(true);
  });
});
