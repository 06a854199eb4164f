import { abortReason } from '../domain/abort';

/**
 * A counting semaphore. `acquire` resolves to a release function; waiting honours an AbortSignal. Waiters are served
 * by rank, higher first, and in arrival order within a rank; a waiter passed over by AGING_LIMIT later arrivals of
 * a higher rank is passed over no more (so a steady stream of higher ranks cannot starve a lower one).
 */
export const AGING_LIMIT = 64;

interface Waiter {
  grant: () => void;
  rank: number;
  /** Later arrivals served before it. */
  passed: number;
}

export class Semaphore {
  private active = 0;
  private readonly queue: Waiter[] = [];

  constructor(private max: number) {
    this.setLimit(max);
  }

  get limit(): number {
    return this.max;
  }

  get inFlight(): number {
    return this.active;
  }

  get waiting(): number {
    return this.queue.length;
  }

  setLimit(max: number): void {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`concurrency must be a positive integer, got ${max}`);
    this.max = max;
    this.drain();
  }

  acquire(signal?: AbortSignal, rank = 0): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      const entry: Waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.active++;
          resolve(this.releaser());
        },
        rank,
        passed: 0,
      };
      const onAbort = () => {
        const i = this.queue.indexOf(entry);
        if (i >= 0) this.queue.splice(i, 1);
        reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.enqueue(entry);
      this.drain();
    });
  }

  /** Behind every waiter of its rank or higher and every waiter passed over AGING_LIMIT times. */
  private enqueue(entry: Waiter): void {
    let at = this.queue.length;
    while (at > 0 && this.queue[at - 1].rank < entry.rank && this.queue[at - 1].passed < AGING_LIMIT) at--;
    for (let i = at; i < this.queue.length; i++) this.queue[i].passed++;
    this.queue.splice(at, 0, entry);
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.drain();
    };
  }

  private drain(): void {
    while (this.active < this.max && this.queue.length > 0) this.queue.shift()!.grant();
  }
}

/** The call slots of one runtime: every LLM call and every embedding call of its providers holds one of its kind. */
export interface CallSlots {
  llm: Semaphore;
  embedding: Semaphore;
}

export function createCallSlots(limits: { llm: number; embedding: number }): CallSlots {
  return { llm: new Semaphore(limits.llm), embedding: new Semaphore(limits.embedding) };
}
