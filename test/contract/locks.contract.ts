import { type StoresCleanup, type StoresFactory, useStores } from './harness';

const LONG = 60_000;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function lockStoreContract(name: string, makeStores: StoresFactory, cleanup?: StoresCleanup): void {
  describe(`${name}: LockStore contract`, () => {
    const ctx = useStores(makeStores, cleanup);
    const locks = () => ctx.stores().locks;

    it('gives every key to one owner at a time, all or nothing', async () => {
      const scope = ctx.scope();
      expect(await locks().acquire(scope, ['B', 'A'], 'owner-1', LONG)).toBe(true);
      expect(await locks().acquire(scope, ['C', 'B'], 'owner-2', LONG)).toBe(false);
      // The refused attempt took nothing: C is still free for a third owner.
      expect(await locks().acquire(scope, ['C'], 'owner-3', LONG)).toBe(true);
      expect(await locks().acquire(scope, ['A'], 'owner-2', LONG)).toBe(false);
      // Taking keys it already holds again succeeds for their owner.
      expect(await locks().acquire(scope, ['A', 'B'], 'owner-1', LONG)).toBe(true);
    });

    it('lets exactly one of several owners racing for overlapping keys in', async () => {
      const scope = ctx.scope();
      const owners = ['owner-1', 'owner-2', 'owner-3', 'owner-4', 'owner-5', 'owner-6'];
      const won = await Promise.all(owners.map((owner, i) => locks().acquire(scope, i % 2 ? ['K', 'L'] : ['M', 'K'], owner, LONG)));
      expect(won.filter(Boolean)).toHaveLength(1);
    });

    it('frees keys on release by their owner and ignores a release by another owner', async () => {
      const scope = ctx.scope();
      expect(await locks().acquire(scope, ['A', 'B'], 'owner-1', LONG)).toBe(true);
      await locks().release(scope, ['A', 'B'], 'owner-2');
      expect(await locks().acquire(scope, ['A'], 'owner-2', LONG)).toBe(false);

      await locks().release(scope, ['A', 'B', 'never-held'], 'owner-1');
      expect(await locks().acquire(scope, ['A', 'B'], 'owner-2', LONG)).toBe(true);
      expect(await locks().acquire(scope, ['never-held'], 'owner-3', LONG)).toBe(true);
    });

    it('lets another owner in once a lease runs out, and the former owner can no longer renew it', async () => {
      const scope = ctx.scope();
      expect(await locks().acquire(scope, ['A'], 'owner-1', 100)).toBe(true);
      expect(await locks().acquire(scope, ['A'], 'owner-2', LONG)).toBe(false);
      await pause(400);
      expect(await locks().acquire(scope, ['A'], 'owner-2', LONG)).toBe(true);
      expect(await locks().renew(scope, ['A'], 'owner-1', LONG)).toBe(false);
      await locks().release(scope, ['A'], 'owner-1');
      expect(await locks().acquire(scope, ['A'], 'owner-3', LONG)).toBe(false);
    });

    it('renews only the leases the owner still holds', async () => {
      const scope = ctx.scope();
      expect(await locks().acquire(scope, ['A', 'B'], 'owner-1', LONG)).toBe(true);
      expect(await locks().renew(scope, ['A', 'B'], 'owner-1', LONG)).toBe(true);
      expect(await locks().renew(scope, ['A'], 'owner-2', LONG)).toBe(false);
      await locks().release(scope, ['B'], 'owner-1');
      expect(await locks().renew(scope, ['A', 'B'], 'owner-1', LONG)).toBe(false);
      expect(await locks().acquire(scope, ['A'], 'owner-2', LONG)).toBe(false);
    });

    it('keeps workspaces and tenants apart: the same key is a different lock in each', async () => {
      const a = ctx.scope();
      const b = ctx.scope();
      const tenant = ctx.scope({ tenantId: 'tenant-1', workspaceId: a.workspaceId });
      expect(await locks().acquire(a, ['A'], 'owner-1', LONG)).toBe(true);
      expect(await locks().acquire(b, ['A'], 'owner-2', LONG)).toBe(true);
      expect(await locks().acquire(tenant, ['A'], 'owner-3', LONG)).toBe(true);
      await locks().release(b, ['A'], 'owner-1');
      expect(await locks().acquire(a, ['A'], 'owner-2', LONG)).toBe(false);
      expect(await locks().renew(b, ['A'], 'owner-1', LONG)).toBe(false);
    });

    it('drops the leases of a dropped workspace', async () => {
      const scope = ctx.scope();
      expect(await locks().acquire(scope, ['A'], 'owner-1', LONG)).toBe(true);
      await ctx.stores().dropWorkspace(scope);
      expect(await locks().acquire(scope, ['A'], 'owner-2', LONG)).toBe(true);
    });
  });
}
