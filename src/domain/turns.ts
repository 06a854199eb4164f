import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Cooperative scheduling: long stretches of synchronous work on the event loop give way to I/O (requests,
 * probes, timers) every few milliseconds.
 *
 * Callers waiting for a turn resume one per turn of the event loop, in order: a thousand tasks that yield
 * together do not all resume in the same turn (setImmediate alone would run every queued callback in one
 * check phase and hold the loop as long as the work did).
 *
 * Background work (ingestion in the task workers) waits behind the work of requests: a query waiting for its
 * turn is not queued behind every slice of a large ingest. One background waiter resumes after at most
 * FOREGROUND_BURST foreground ones, so a steady stream of requests slows ingestion down but never stops it.
 */

const background = new AsyncLocalStorage<true>();
const foregroundWaiting: Array<() => void> = [];
const backgroundWaiting: Array<() => void> = [];
const FOREGROUND_BURST = 4;
let foregroundInARow = 0;
let scheduled = false;

/** Runs `work` (and everything it starts) as background work: its turns come after those of requests. */
export function inBackground<T>(work: () => T): T {
  return background.run(true, work);
}

/** Whether the current work runs as background work (`inBackground`). */
export function isBackground(): boolean {
  return background.getStore() === true;
}

function releaseNext(): void {
  scheduled = false;
  const takeBackground = backgroundWaiting.length > 0 && (foregroundWaiting.length === 0 || foregroundInARow >= FOREGROUND_BURST);
  foregroundInARow = takeBackground ? 0 : foregroundInARow + 1;
  (takeBackground ? backgroundWaiting : foregroundWaiting).shift()?.();
  if (foregroundWaiting.length + backgroundWaiting.length > 0) schedule();
  else foregroundInARow = 0;
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(releaseNext);
}

/** Resolves on a later turn of the event loop, after pending I/O; concurrent callers resume one per turn. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    (background.getStore() ? backgroundWaiting : foregroundWaiting).push(resolve);
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

/** `items.map(fn)`, yielding a turn whenever the slicer's stretch is used up. */
export async function mapInSlices<T, R>(items: Iterable<T>, fn: (item: T) => R, slicer = new TimeSlicer()): Promise<R[]> {
  const out: R[] = [];
  for (const item of items) {
    await slicer.tick();
    out.push(fn(item));
  }
  return out;
}

/**
 * `Promise.all(items.map(start))`, with each item's start (its synchronous part and what follows at once) taking
 * its turn: an item starts once the previous one's start has run, and the loop yields whenever the slicer's
 * stretch is used up. (A slicer checked at the top of each `map` callback does not slice: every callback checks
 * before any of them has run, and their starts then run back to back in one stretch.)
 */
export async function startInSlices<T, R>(items: Iterable<T>, start: (item: T) => Promise<R>, slicer = new TimeSlicer()): Promise<R[]> {
  const started: Array<Promise<R>> = [];
  for (const item of items) {
    await slicer.tick();
    const run = start(item);
    // Awaited below with the others; a rejection before then is not unhandled.
    run.catch(() => undefined);
    started.push(run);
  }
  return Promise.all(started);
}

/** `items.filter(keep)`, yielding a turn whenever the slicer's stretch is used up. */
export async function filterInSlices<T>(items: Iterable<T>, keep: (item: T) => boolean, slicer = new TimeSlicer()): Promise<T[]> {
  const out: T[] = [];
  for (const item of items) {
    await slicer.tick();
    if (keep(item)) out.push(item);
  }
  return out;
}
