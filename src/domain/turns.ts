/**
 * Cooperative scheduling: long stretches of synchronous work on the event loop give way to I/O (requests,
 * probes, timers) every few milliseconds.
 *
 * Callers waiting for a turn resume one per turn of the event loop, in order: a thousand tasks that yield
 * together do not all resume in the same turn (setImmediate alone would run every queued callback in one
 * check phase and hold the loop as long as the work did).
 */

const waiting: Array<() => void> = [];
let scheduled = false;

function releaseNext(): void {
  scheduled = false;
  waiting.shift()?.();
  if (waiting.length > 0) schedule();
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(releaseNext);
}

/** Resolves on a later turn of the event loop, after pending I/O; concurrent callers resume one per turn. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    schedule();
  });
}

/** Default length of one stretch of synchronous work before it yields. */
export const SLICE_MS = 8;

/**
 * A time budget for a loop's synchronous work: `await slicer.tick()` inside the loop yields a turn once the
 * current stretch has run `sliceMs`, and otherwise costs nothing.
 */
export class TimeSlicer {
  private started = performance.now();

  constructor(private readonly sliceMs = SLICE_MS) {}

  due(): boolean {
    return performance.now() - this.started >= this.sliceMs;
  }

  async pause(): Promise<void> {
    await nextTurn();
    this.started = performance.now();
  }

  /** Yields when the current stretch has used its budget; otherwise returns undefined (no extra turn). */
  tick(): Promise<void> | undefined {
    return this.due() ? this.pause() : undefined;
  }
}
