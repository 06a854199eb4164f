import { abortReason } from '../domain/abort';

/** A FIFO counting semaphore. `acquire` resolves to a release function; waiting honours an AbortSignal. */
export class Semaphore {
  private active = 0;
  private readonly queue: Array<{ grant: () => void }> = [];

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

  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      const entry = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.active++;
          resolve(this.releaser());
        },
      };
      const onAbort = () => {
        const i = this.queue.indexOf(entry);
        if (i >= 0) this.queue.splice(i, 1);
        reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(entry);
      this.drain();
    });
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
