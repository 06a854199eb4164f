import { availableParallelism } from 'node:os';
import { extname } from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * A small pool of worker threads for CPU-heavy pure work (tokenising and chunking a large text), so that it
 * never holds the event loop. A worker runs one job at a time; jobs wait in order for a free worker. Idle
 * workers do not keep the process alive and stop after `idleMs`. A worker that fails or exits is replaced.
 *
 * The entry is a module next to the caller; run from TypeScript sources (tests, tsx) it is loaded through
 * tsx's CommonJS hook, from the build as plain JavaScript.
 */

export interface WorkerReply<O> {
  ok: boolean;
  output?: O;
  name?: string;
  message?: string;
}

interface Job<I, O> {
  input: I;
  transfer: ArrayBuffer[];
  resolve: (output: O) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  idleTimer?: NodeJS.Timeout;
}

/** Raised in the caller for an error thrown inside a worker, keeping its name and message. */
export class WorkerJobError extends Error {
  constructor(
    override readonly name: string,
    message: string,
  ) {
    super(message);
  }
}

const pools = new Set<WorkerPool<unknown, unknown>>();

/** Stops every pool's workers (at shutdown). */
export async function closeWorkerPools(): Promise<void> {
  await Promise.all([...pools].map((pool) => pool.close()));
}

export class WorkerPool<I, O> {
  private readonly idle: Slot[] = [];
  private readonly busy = new Set<Slot>();
  private readonly queue: Array<Job<I, O>> = [];

  constructor(
    /** Path of the worker module without its extension (`join(__dirname, 'chunk-worker')`). */
    private readonly entry: string,
    private readonly size = defaultPoolSize(),
    private readonly idleMs = 30_000,
  ) {
    pools.add(this as WorkerPool<unknown, unknown>);
  }

  run(input: I, transfer: ArrayBuffer[] = []): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ input, transfer, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    const slots = [...this.idle, ...this.busy];
    this.idle.length = 0;
    this.busy.clear();
    for (const job of this.queue.splice(0)) job.reject(new Error('the worker pool was closed'));
    await Promise.all(slots.map((slot) => this.stop(slot)));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.idle.pop() ?? (this.busy.size < this.size ? this.spawn() : undefined);
      if (!slot) return;
      clearTimeout(slot.idleTimer);
      this.start(slot, this.queue.shift() as Job<I, O>);
    }
  }

  private spawn(): Slot {
    const file = this.entry + extname(__filename);
    const fromSource = extname(__filename) === '.ts';
    const worker = new Worker(file, fromSource ? { execArgv: ['--require', require.resolve('tsx/cjs')] } : {});
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

  private start(slot: Slot, job: Job<I, O>): void {
    const { worker } = slot;
    this.busy.add(slot);
    // A running job keeps the process alive (a script awaiting it must not exit); an idle worker does not.
    worker.ref();
    const done = (settle: () => void, reusable: boolean) => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      this.busy.delete(slot);
      if (reusable) this.park(slot);
      else void this.stop(slot);
      settle();
      this.dispatch();
    };
    const onMessage = (reply: WorkerReply<O>) =>
      done(
        () =>
          reply.ok ? job.resolve(reply.output as O) : job.reject(new WorkerJobError(reply.name ?? 'Error', reply.message ?? 'failed')),
        true,
      );
    const onError = (err: Error) => done(() => job.reject(err), false);
    const onExit = (code: number) => done(() => job.reject(new Error(`the worker stopped (exit code ${code})`)), false);
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
    worker.postMessage(job.input, job.transfer);
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
