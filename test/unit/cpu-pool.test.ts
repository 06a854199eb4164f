import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { CpuJobError, cpuTask, CpuTimeoutError } from '../../src/ingest/offload/cpu-pool';
import { WorkerCpuPool } from '../../src/ingest/offload/worker-pool';

const TASKS = join(__dirname, '../fixtures/cpu-tasks');
const threadOf = cpuTask<null, number>(TASKS, 'threadOf');
const refuse = cpuTask<string, never>(TASKS, 'refuse');
const never = cpuTask<null, never>(TASKS, 'never');

describe('WorkerCpuPool', () => {
  const pool = new WorkerCpuPool({ size: 2 });
  afterAll(() => pool.close());

  it('runs a job in a worker thread, not in the calling one', async () => {
    const worker = await pool.run(threadOf, null);
    expect(worker).not.toBe(threadId);
  });

  it("rejects with the function's own error name and message", async () => {
    const failed = pool.run(refuse, 'no such page');
    await expect(failed).rejects.toBeInstanceOf(CpuJobError);
    await expect(failed).rejects.toMatchObject({ name: 'RangeError', message: 'no such page' });
  });

  it('stops a job past its time-out and replaces its worker', async () => {
    await expect(pool.run(never, null, { timeoutMs: 50 })).rejects.toBeInstanceOf(CpuTimeoutError);
    // Both workers are free again: two jobs at once are answered.
    const threads = await Promise.all([pool.run(threadOf, null), pool.run(threadOf, null)]);
    expect(threads.every((t) => t !== threadId)).toBe(true);
  });

  it('refuses jobs once closed, and rejects those still waiting', async () => {
    const closing = new WorkerCpuPool({ size: 1 });
    const running = closing.run(never, null);
    const waiting = closing.run(threadOf, null);
    const settled = Promise.all([
      expect(running).rejects.toThrow('the worker stopped'),
      expect(waiting).rejects.toThrow('the CPU pool was closed'),
    ]);
    await closing.close();
    await settled;
    await expect(closing.run(threadOf, null)).rejects.toThrow('the CPU pool is closed');
  });
});
