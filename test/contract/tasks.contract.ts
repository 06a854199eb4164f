import { at, makeTask } from './fixtures';
import { type StoresCleanup, type StoresFactory, useStores } from './harness';

/**
 * claimNext looks at every workspace: these tests assume no other claimable task exists in the database
 * while they run (each test drops its workspaces afterwards). Run this suite alone against a shared server.
 */
export function taskStoreContract(name: string, makeStores: StoresFactory, cleanup?: StoresCleanup): void {
  describe(`${name}: TaskStore contract`, () => {
    const ctx = useStores(makeStores, cleanup);
    const tasks = () => ctx.stores().tasks;

    it('returns an inserted task by id and null for an unknown id', async () => {
      const scope = ctx.scope();
      const task = makeTask();
      await tasks().insert(scope, task);
      expect(await tasks().get(scope, task.id)).toEqual(task);
      expect(await tasks().get(scope, 'missing')).toBeNull();
    });

    it('patches fields on update and returns null for an unknown task', async () => {
      const scope = ctx.scope();
      const task = makeTask();
      await tasks().insert(scope, task);
      const patch = {
        progress: 40,
        stages: { ...task.stages, chunking: 'completed' as const, extraction: 'running' as const },
        stats: { ...task.stats, chunks_total: 8, chunks_processed: 3 },
      };
      expect(await tasks().update(scope, task.id, { ...patch, id: 'other' })).toEqual({ ...task, ...patch });
      expect(await tasks().get(scope, task.id)).toEqual({ ...task, ...patch });
      expect(await tasks().update(scope, 'missing', { progress: 1 })).toBeNull();
    });

    it('answers updates made at once each with its own task, applied in the order they were called', async () => {
      const [scope, other] = [ctx.scope(), ctx.scope()];
      const list = [makeTask(), makeTask(), makeTask()];
      for (const task of list) await tasks().insert(scope, task);
      const results = await Promise.all([
        ...list.map((task, i) => tasks().update(scope, task.id, { progress: 10 * (i + 1) })),
        tasks().update(scope, list[0].id, { progress: 99, error: 'later' }),
        tasks().update(scope, 'missing', { progress: 1 }),
        tasks().update(other, list[1].id, { progress: 1 }),
      ]);
      expect(results.slice(1, 3)).toEqual([
        { ...list[1], progress: 20 },
        { ...list[2], progress: 30 },
      ]);
      expect(results[3]).toEqual({ ...list[0], progress: 99, error: 'later' });
      expect(results.slice(4)).toEqual([null, null]);
      expect(await tasks().get(scope, list[0].id)).toEqual({ ...list[0], progress: 99, error: 'later' });
      expect(await tasks().get(scope, list[1].id)).toEqual({ ...list[1], progress: 20 });
    });

    it('hands out copies: mutating inputs or results never changes the stored task', async () => {
      const scope = ctx.scope();
      const task = makeTask();
      const original = structuredClone(task);
      await tasks().insert(scope, task);
      task.stages.chunking = 'completed';
      (await tasks().get(scope, task.id))!.stats.chunks_total = 99;
      (await tasks().list(scope, { limit: 5, offset: 0 })).items[0].stages.merging = 'running';
      (await tasks().listAll(['pending'])).find((t) => t.task.id === task.id)!.task.progress = 50;
      expect(await tasks().get(scope, task.id)).toEqual(original);
    });

    it('lists newest first with totals, pagination and a status filter', async () => {
      const scope = ctx.scope();
      const all = Array.from({ length: 7 }, (_, i) =>
        makeTask({ id: `t-${i}`, created_at: at(i), status: i % 2 === 0 ? 'completed' : 'failed' }),
      );
      for (const task of [...all].reverse()) await tasks().insert(scope, task);
      const first = await tasks().list(scope, { limit: 4, offset: 0 });
      const second = await tasks().list(scope, { limit: 4, offset: 4 });
      expect([first.total, second.total]).toEqual([7, 7]);
      expect([...first.items, ...second.items].map((t) => t.id)).toEqual(['t-6', 't-5', 't-4', 't-3', 't-2', 't-1', 't-0']);
      const failed = await tasks().list(scope, { limit: 2, offset: 1, status: 'failed' });
      expect({ total: failed.total, ids: failed.items.map((t) => t.id) }).toEqual({ total: 3, ids: ['t-3', 't-1'] });
    });

    it('counts the tasks of a workspace by status, every status present, other workspaces apart', async () => {
      const [scope, other] = [ctx.scope(), ctx.scope()];
      const statuses = ['pending', 'running', 'running', 'completed', 'completed', 'completed', 'cancelled'] as const;
      for (const status of statuses) await tasks().insert(scope, makeTask({ status }));
      await tasks().insert(other, makeTask({ status: 'failed' }));
      expect(await tasks().countByStatus(scope)).toEqual({ pending: 1, running: 2, completed: 3, failed: 0, cancelled: 1 });
      expect(await tasks().countByStatus(ctx.scope())).toEqual({ pending: 0, running: 0, completed: 0, failed: 0, cancelled: 0 });
    });

    it('reads the created and finished times of the newest tasks with a status, in the order of list', async () => {
      const scope = ctx.scope();
      const all = Array.from({ length: 6 }, (_, i) =>
        makeTask({
          id: `t-${i}`,
          created_at: at(i),
          status: i === 4 ? 'failed' : 'completed',
          finished_at: i === 0 ? null : at(i + 10),
        }),
      );
      // Two tasks created at the same instant: ties go by id, as list orders them.
      all.push(makeTask({ id: 't-5b', created_at: at(5), status: 'completed', finished_at: at(30) }));
      for (const task of all) await tasks().insert(scope, task);
      await tasks().insert(ctx.scope(), makeTask({ created_at: at(9), status: 'completed', finished_at: at(9) }));
      const listed = (await tasks().list(scope, { limit: 4, offset: 0, status: 'completed' })).items;
      const times = await tasks().finishTimes(scope, 'completed', 4);
      expect(times).toEqual(listed.map((t) => ({ created_at: t.created_at, finished_at: t.finished_at })));
      expect(times).toEqual([
        { created_at: at(5), finished_at: at(15) },
        { created_at: at(5), finished_at: at(30) },
        { created_at: at(3), finished_at: at(13) },
        { created_at: at(2), finished_at: at(12) },
      ]);
      expect(await tasks().finishTimes(scope, 'completed', 10)).toHaveLength(6);
      expect((await tasks().finishTimes(scope, 'completed', 10)).at(-1)).toEqual({ created_at: at(0), finished_at: null });
      expect(await tasks().finishTimes(scope, 'failed', 10)).toEqual([{ created_at: at(4), finished_at: at(14) }]);
      expect(await tasks().finishTimes(scope, 'pending', 10)).toEqual([]);
    });

    it('listAll returns tasks of every workspace with their scope, by status', async () => {
      const [a, b] = [ctx.scope(), ctx.scope({ tenantId: 'tenant-x' })];
      const [pa, ra, pb, cb] = [
        makeTask({ status: 'pending' }),
        makeTask({ status: 'running' }),
        makeTask({ status: 'pending' }),
        makeTask({ status: 'completed' }),
      ];
      await tasks().insert(a, pa);
      await tasks().insert(a, ra);
      await tasks().insert(b, pb);
      await tasks().insert(b, cb);
      const ours = new Set([pa.id, ra.id, pb.id, cb.id]);
      const found = (await tasks().listAll(['pending', 'running'])).filter((t) => ours.has(t.task.id));
      const byId = new Map(found.map((t) => [t.task.id, t]));
      expect(byId.size).toBe(3);
      expect(byId.get(pa.id)).toEqual({ scope: a, task: pa });
      expect(byId.get(ra.id)).toEqual({ scope: a, task: ra });
      expect(byId.get(pb.id)).toEqual({ scope: b, task: pb });
    });

    it('claims pending tasks oldest first, once each, setting status and lease', async () => {
      const [a, b] = [ctx.scope(), ctx.scope()];
      const [t1, t2, t3] = [makeTask({ created_at: at(1) }), makeTask({ created_at: at(2) }), makeTask({ created_at: at(3) })];
      await tasks().insert(b, t3);
      await tasks().insert(a, t1);
      await tasks().insert(b, t2);
      await tasks().insert(a, makeTask({ created_at: at(0), status: 'completed' }));
      const now = at(10);
      const lease = at(15);
      const claimed = [];
      for (let i = 0; i < 4; i++) claimed.push(await tasks().claimNext('worker-1', now, lease));
      expect(claimed.map((c) => c?.task.id ?? null)).toEqual([t1.id, t2.id, t3.id, null]);
      expect(claimed.map((c) => c?.scope ?? null)).toEqual([a, b, b, null]);
      expect(claimed[0]!.task).toMatchObject({ status: 'running', lease_owner: 'worker-1', lease_expires_at: lease });
      expect(await tasks().get(a, t1.id)).toMatchObject({ status: 'running', lease_owner: 'worker-1', lease_expires_at: lease });
    });

    it('re-claims a running task whose lease expired, but not one whose lease is live', async () => {
      const scope = ctx.scope();
      const task = makeTask({ created_at: at(0) });
      await tasks().insert(scope, task);
      expect((await tasks().claimNext('worker-1', at(1), at(6)))?.task.id).toBe(task.id);
      expect(await tasks().claimNext('worker-2', at(5), at(10))).toBeNull();
      const reclaimed = await tasks().claimNext('worker-2', at(7), at(12));
      expect(reclaimed?.task).toMatchObject({ id: task.id, status: 'running', lease_owner: 'worker-2', lease_expires_at: at(12) });
      expect(await tasks().claimNext('worker-3', at(8), at(13))).toBeNull();
    });

    it('leaves a pending task put back after an outage alone until its backoff ends, then claims it ahead of newer ones', async () => {
      const scope = ctx.scope();
      const backedOff = makeTask({ created_at: at(0), attempts: 2, not_before: at(10) });
      const newer = makeTask({ created_at: at(1) });
      await tasks().insert(scope, backedOff);
      await tasks().insert(scope, newer);
      expect((await tasks().claimNext('worker-1', at(5), at(15)))?.task.id).toBe(newer.id);
      expect(await tasks().claimNext('worker-1', at(9), at(19))).toBeNull();
      const claimed = await tasks().claimNext('worker-2', at(10), at(20));
      expect(claimed?.task).toMatchObject({ id: backedOff.id, status: 'running', attempts: 2, lease_owner: 'worker-2' });
    });

    it('counts the open (pending and running) tasks of a workspace and of all workspaces', async () => {
      const scope = ctx.scope();
      const other = ctx.scope();
      const before = await tasks().countOpen(null);
      await tasks().insert(scope, makeTask());
      await tasks().insert(scope, makeTask({ status: 'running', lease_owner: 'w', lease_expires_at: at(5) }));
      for (const status of ['completed', 'failed', 'cancelled'] as const) await tasks().insert(scope, makeTask({ status }));
      await tasks().insert(other, makeTask());
      expect(await tasks().countOpen(scope)).toBe(2);
      expect(await tasks().countOpen(other)).toBe(1);
      expect(await tasks().countOpen(null)).toBe(before + 3);
    });

    it('never claims finished tasks, however old', async () => {
      const scope = ctx.scope();
      for (const status of ['completed', 'failed', 'cancelled'] as const) {
        await tasks().insert(scope, makeTask({ status, lease_owner: 'gone', lease_expires_at: at(0) }));
      }
      expect(await tasks().claimNext('worker-1', at(100), at(110))).toBeNull();
    });

    it('renews a lease only for its owner, and not after another worker took the task over', async () => {
      const [scope, other] = [ctx.scope(), ctx.scope()];
      const task = makeTask();
      await tasks().insert(scope, task);
      await tasks().claimNext('worker-1', at(1), at(6));
      expect(await tasks().renewLease(scope, task.id, 'worker-2', at(20))).toBe(false);
      expect(await tasks().renewLease(other, task.id, 'worker-1', at(20))).toBe(false);
      expect(await tasks().renewLease(scope, 'missing', 'worker-1', at(20))).toBe(false);
      expect(await tasks().renewLease(scope, task.id, 'worker-1', at(20))).toBe(true);
      expect((await tasks().get(scope, task.id))?.lease_expires_at).toBe(at(20));
      expect(await tasks().claimNext('worker-2', at(10), at(30))).toBeNull();
      expect((await tasks().claimNext('worker-2', at(21), at(30)))?.task.id).toBe(task.id);
      expect(await tasks().renewLease(scope, task.id, 'worker-1', at(40))).toBe(false);
      expect(await tasks().renewLease(scope, task.id, 'worker-2', at(40))).toBe(true);
    });

    it('never hands the same task to two concurrent claims', async () => {
      const scope = ctx.scope();
      const inserted = Array.from({ length: 10 }, (_, i) => makeTask({ created_at: at(i) }));
      for (const task of inserted) await tasks().insert(scope, task);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => tasks().claimNext(`worker-${i}`, at(30), at(40))));
      const claimed = results.filter((r) => r !== null).map((r) => r!.task.id);
      expect(claimed).toHaveLength(10);
      expect(new Set(claimed)).toEqual(new Set(inserted.map((t) => t.id)));
    });

    it('keeps workspaces apart: another workspace neither sees nor changes the tasks', async () => {
      const [a, b] = [ctx.scope(), ctx.scope()];
      const task = makeTask();
      await tasks().insert(a, task);
      expect(await tasks().get(b, task.id)).toBeNull();
      expect(await tasks().list(b, { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
      expect(await tasks().update(b, task.id, { status: 'cancelled' })).toBeNull();
      expect(await tasks().get(a, task.id)).toEqual(task);
    });
  });
}
