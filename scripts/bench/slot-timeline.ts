import { performance } from 'node:perf_hooks';
import type { Semaphore } from '../../src/llm/semaphore';

/**
 * Occupancy of a semaphore's slots over a run, for the ingest benchmarks: every slot grant and release is
 * timed, so the busy-slot integral is exact. `rows` splits the wall time into where slots stood idle: before
 * every slot was first busy (ramp-up), after the last release (tail: work after the last call) and between.
 */
export interface SlotTimeline {
  /** Rows for a benchmark's table, the run taken from `start` to `end` (performance.now()). */
  rows(start: number, end: number): Array<[string, string]>;
}

export function watchSlots(semaphore: Semaphore): SlotTimeline {
  const spans: Array<[number, number]> = [];
  const acquire = semaphore.acquire.bind(semaphore);
  semaphore.acquire = async (signal?: AbortSignal, rank?: number) => {
    // The rank passed on: slots are granted by task (src/llm/tasks.ts), as in the service.
    const release = await acquire(signal, rank);
    const granted = performance.now();
    let done = false;
    return () => {
      if (!done) spans.push([granted, performance.now()]);
      done = true;
      release();
    };
  };
  return { rows: (start, end) => timelineRows(spans, semaphore.limit, start, end) };
}

function timelineRows(spans: Array<[number, number]>, slots: number, start: number, end: number): Array<[string, string]> {
  if (spans.length === 0) return [['LLM slots', 'no call']];
  const wall = end - start;
  const events = spans.flatMap(([a, b]): Array<[number, number]> => [
    [a, 1],
    [b, -1],
  ]);
  events.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let busy = 0;
  let last = start;
  let integral = 0;
  let full: number | null = null;
  const buckets = 20;
  const perBucket = new Array<number>(buckets).fill(0);
  const add = (from: number, to: number, level: number) => {
    integral += level * (to - from);
    // Spread over the buckets the interval crosses.
    for (let t = from; t < to;) {
      const i = Math.min(buckets - 1, Math.floor(((t - start) / wall) * buckets));
      const edge = Math.min(to, start + ((i + 1) * wall) / buckets);
      perBucket[i] += level * (edge - t);
      t = edge > t ? edge : to;
    }
  };
  for (const [t, delta] of events) {
    add(last, t, busy);
    busy += delta;
    last = t;
    if (full === null && busy >= slots) full = t;
  }
  const lastRelease = Math.max(...spans.map(([, b]) => b));
  const rampEnd = full ?? lastRelease;
  const busyUntil = (to: number) => spans.reduce((sum, [a, b]) => sum + Math.max(0, Math.min(b, to) - Math.max(a, start)), 0);
  const rampIdle = slots * (rampEnd - start) - busyUntil(rampEnd);
  const tail = end - lastRelease;
  const middleIdle = slots * (lastRelease - rampEnd) - (busyUntil(lastRelease) - busyUntil(rampEnd));
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const bucketText = perBucket.map((v) => (v / (wall / buckets)).toFixed(1)).join(' ');
  return [
    ['LLM slot occupancy (busy-slot integral / slots x wall)', `${((integral / (slots * wall)) * 100).toFixed(1)} %`],
    ['  ramp-up: until every slot is busy, its idle slot-time / slots', `${s(rampEnd - start)}, ${s(rampIdle / slots)}`],
    ['  between: idle slot-time / slots', s(middleIdle / slots)],
    ['  tail: after the last LLM call', s(tail)],
    [`  busy slots per ${s(wall / buckets)} of wall`, bucketText],
  ];
}
