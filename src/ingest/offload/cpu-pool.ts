/**
 * The CPU pool port: CPU-heavy pure functions (parsing a PDF, decoding a large text file, tokenising and cutting a
 * long text into chunks) run where they cannot hold the event loop that answers requests and probes. The runtime
 * owns one pool (worker-pool.ts) and closes it at shutdown; ingestion reaches it through its dependencies.
 */

/**
 * A function a pool can run: the module that exports it (its path without the extension, so that it resolves from
 * the sources and from the build alike) and its export name. The function takes one structured-clonable input and
 * returns (or resolves to) one structured-clonable output.
 */
export interface CpuTask<I, O> {
  readonly module: string;
  readonly name: string;
  /** Types only: what the function takes and gives. */
  readonly io?: (input: I) => O;
}

export function cpuTask<I, O>(module: string, name: string): CpuTask<I, O> {
  return { module, name };
}

export interface CpuRunOptions {
  /** Buffers moved to the worker rather than copied (they are detached here). */
  transfer?: ArrayBuffer[];
  /** The job is stopped (its worker ended) and rejected with a CpuTimeoutError after this long. */
  timeoutMs?: number;
}

export interface CpuPool {
  run<I, O>(task: CpuTask<I, O>, input: I, options?: CpuRunOptions): Promise<O>;
  /** Stops the workers; jobs still waiting are rejected. */
  close(): Promise<void>;
}

/** An error thrown by the function in its worker, with its name and message. */
export class CpuJobError extends Error {
  constructor(
    override readonly name: string,
    message: string,
  ) {
    super(message);
  }
}

/** The job ran past its `timeoutMs`; its worker was stopped. */
export class CpuTimeoutError extends Error {
  override readonly name = 'CpuTimeoutError';
}
