import { availableParallelism } from 'node:os';
import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { CpuJobError, type CpuPool, type CpuRunOptions, type CpuTask, CpuTimeoutError } from './cpu-pool';
import type { CpuJob, CpuReply } from './cpu-worker';

/**
 * The CPU pool on worker threads (node:worker_threads). A worker runs one job at a time; jobs wait in order for
 * a free worker, so CPU-heavy work never takes more threads than the pool's size. Idle workers do not keep the
 * process alive and stop after `idleMs`. A worker that fails, exits or runs past a job's time-out is replaced.
 *
 * The worker entry is cpu-worker beside this module; run from TypeScript sources (tests, tsx) it and the modules
 * it loads go through tsx's CommonJS hook, from the build they are plain JavaScript.
 */

interface Job {
  message: CpuJob;
  options: CpuRunOptions;
  resolve: (output: unknown) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  idleTimer?: NodeJS.Timeout;
}

export interface WorkerCpuPoolOptions {
  /** Worker threads at most (default: one per spare core, at least one and at most four). */
  size?: number;
  /** An idle worker stops after this long. */
  idleMs?: number;
}

export class WorkerCpuPool implements CpuPool {
  private readonly idle: Slot[] = [];
  private readonly busy = new Set<Slot>();
  private readonly queue: Job[] = [];
  private readonly size: number;
  private readonly idleMs: number;
  private closed = false;

  constructor(options: WorkerCpuPoolOptions = {}) {
    this.size = options.size ?? defaultPoolSize();
    this.idleMs = options.idleMs ?? 30_000;
  }

  run<I, O>(task: CpuTask<I, O>, input: I, options: CpuRunOptions = {}): Promise<O> {
    if (this.closed) return Promise.reject(new Error('the CPU pool is closed'));
    return new Promise<O>((resolve, reject) => {
      this.queue.push({
        message: { module: task.module, name: task.name, input },
        options,
        resolve: resolve as (o: unknown) => void,
        reject,
      });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const slots = [...this.idle, ...this.busy];
    this.idle.length = 0;
    for (const job of this.queue.splice(0)) job.reject(new Error('the CPU pool was closed'));
    // A running job's own listeners reject it when its worker exits.
    await Promise.all(slots.map((slot) => this.stop(slot)));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.idle.pop() ?? (this.busy.size < this.size ? this.spawn() : undefined);
      if (!slot) return;
      clearTimeout(slot.idleTimer);
      this.start(slot, this.queue.shift() as Job);
    }
  }

  private spawn(): Slot {
    const ext = extname(__filename);
    const file = join(__dirname, `cpu-worker${ext}`);
    const worker = new Worker(file, ext === '.ts' ? { execArgv: ['--require', require.resolve('tsx/cjs')] } : {});
    const slot: Slot = { worker };
    // An idle worker that fails or exits is dropped; a busy one's job is rejected by its own listeners.
    worker.on('error', () => undefined);
    worker.on('exit', () => {
      const at = this.idle.indexOf(slot);
      if (at >= 0) this.idle.splice(at, 1);
      clearTimeout(slot.idleTimer);
    });
    return slot;
  }

  private start(slot: Slot, job: Job): void {
    const { worker } = slot;
    this.busy.add(slot);
    // A running job keeps the process alive (a script awaiting it must not exit); an idle worker does not.
    worker.ref();
    const timer = job.options.timeoutMs
      ? setTimeout(
          () => done(() => job.reject(new CpuTimeoutError(`the job ran past ${job.options.timeoutMs} ms`)), false),
          job.options.timeoutMs,
        )
      : undefined;
    const done = (settle: () => void, reusable: boolean) => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      this.busy.delete(slot);
      if (reusable && !this.closed) this.park(slot);
      else void this.stop(slot);
      settle();
      this.dispatch();
    };
    const onMessage = (reply: CpuReply) =>
      done(
        () => (reply.ok ? job.resolve(reply.output) : job.reject(new CpuJobError(reply.name ?? 'Error', reply.message ?? 'failed'))),
        true,
      );
    const onError = (err: Error) => done(() => job.reject(err), false);
    const onExit = (code: number) => done(() => job.reject(new Error(`the worker stopped (exit code ${code})`)), false);
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
    worker.postMessage(job.message, job.options.transfer ?? []);
  }

  private park(slot: Slot): void {
    slot.worker.unref();
    slot.idleTimer = setTimeout(() => {
      const at = this.idle.indexOf(slot);
      if (at >= 0) this.idle.splice(at, 1);
      void this.stop(slot);
    }, this.idleMs);
    slot.idleTimer.unref();
    this.idle.push(slot);
  }

  private async stop(slot: Slot): Promise<void> {
    clearTimeout(slot.idleTimer);
    await slot.worker.terminate().catch(() => undefined);
  }
}

/** One worker per spare core, at least one and at most four. */
function defaultPoolSize(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}
