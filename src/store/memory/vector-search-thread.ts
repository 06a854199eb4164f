import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * A worker thread that ranks the rows of large vector matrices by their bytes, so that the scan of every row,
 * the longest step of an exact search, runs on another core than the event loop. The worker holds its own
 * copy of each matrix in bytes (./int8-rows.ts), kept up to date by write messages; since messages are handled
 * in order, a search posted after a write sees it. The caller scores the candidates on its floats.
 *
 * The entry is ./vector-search-worker beside this module: from TypeScript sources (tests, tsx) loaded through
 * tsx's CommonJS hook, from the build as plain JavaScript. Pending searches keep the process alive, an idle
 * worker does not.
 */

export type ThreadMessage =
  | { op: 'write'; matrix: number; stride: number; rows: Int32Array; floats: Float32Array }
  | { op: 'drop'; matrix: number }
  | { op: 'search'; id: number; matrix: number; query: Float32Array; count: number; pool: number };

export interface SearchReply {
  id: number;
  /** Null when the worker holds no such matrix. */
  rows: Int32Array | null;
}

interface Pending {
  resolve: (rows: Int32Array) => void;
  reject: (err: Error) => void;
}

export class VectorSearchThread {
  private worker: Worker | null = null;
  private failed = false;
  private nextMatrix = 0;
  private nextSearch = 0;
  private readonly pending = new Map<number, Pending>();

  /** False once the worker failed or was closed: callers search in process. */
  get usable(): boolean {
    return !this.failed;
  }

  /** A number for a new matrix. */
  register(): number {
    return this.nextMatrix++;
  }

  /** Rows `rows` of a matrix, taken from `floats` (normalised rows of `stride` floats, one after the other). */
  write(matrix: number, stride: number, rows: Int32Array, floats: Float32Array): void {
    this.post({ op: 'write', matrix, stride, rows, floats }, [rows.buffer as ArrayBuffer, floats.buffer as ArrayBuffer]);
  }

  drop(matrix: number): void {
    if (this.worker) this.post({ op: 'drop', matrix });
  }

  /** The `pool` best rows of 0..count-1 by their bytes, in no particular order. */
  candidates(matrix: number, query: Float32Array, count: number, pool: number): Promise<Int32Array> {
    const id = this.nextSearch++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) this.worker?.ref();
      this.post({ op: 'search', id, matrix, query, count, pool });
    });
  }

  async close(): Promise<void> {
    this.failed = true;
    const worker = this.worker;
    this.worker = null;
    this.rejectAll(new Error('the vector search thread was closed'));
    await worker?.terminate().catch(() => undefined);
  }

  private post(message: ThreadMessage, transfer: ArrayBuffer[] = []): void {
    if (this.failed) throw new Error('the vector search thread is not running');
    (this.worker ?? this.start()).postMessage(message, transfer);
  }

  private start(): Worker {
    const file = join(__dirname, 'vector-search-worker') + extname(__filename);
    const fromSource = extname(__filename) === '.ts';
    const worker = new Worker(file, fromSource ? { execArgv: ['--require', require.resolve('tsx/cjs')] } : {});
    worker.unref();
    worker.on('message', (reply: SearchReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.rows) waiting.resolve(reply.rows);
      else waiting.reject(new Error('the vector search thread holds no such matrix'));
    });
    const fail = (err: Error) => {
      this.failed = true;
      this.worker = null;
      this.rejectAll(err);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the vector search thread stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private rejectAll(err: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(err);
    this.pending.clear();
  }
}
