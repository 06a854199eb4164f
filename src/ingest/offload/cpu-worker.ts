import { parentPort } from 'node:worker_threads';

/**
 * Worker thread entry of the CPU pool: runs the function a job names (module and export, cpu-pool.ts) on the
 * job's input and answers with its output; typed arrays in the output are moved back, not copied.
 */

export interface CpuJob {
  module: string;
  name: string;
  input: unknown;
}

export interface CpuReply {
  ok: boolean;
  output?: unknown;
  name?: string;
  message?: string;
}

parentPort?.on('message', (job: CpuJob) => {
  void (async () => {
    try {
      /* eslint-disable-next-line @typescript-eslint/no-require-imports -- the job names its module at run time */
      const fn = (require(job.module) as Record<string, (input: unknown) => unknown>)[job.name];
      if (typeof fn !== 'function') throw new TypeError(`${job.module} exports no function '${job.name}'`);
      const output = await fn(job.input);
      const transfer = ArrayBuffer.isView(output) && output.buffer instanceof ArrayBuffer ? [output.buffer] : [];
      parentPort?.postMessage({ ok: true, output } satisfies CpuReply, transfer);
    } catch (err) {
      const e = err as Error;
      parentPort?.postMessage({ ok: false, name: e?.name ?? 'Error', message: String(e?.message ?? err) } satisfies CpuReply);
    }
  })();
});
