import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The order in which provider calls of one task rank are served (./semaphore.ts, ./tasks.ts): the place of the
 * document run that makes them among the runs this process started. The calls of a document started earlier go
 * first, so that documents finish one after another (their merges, summaries and vectors spread over the run)
 * rather than all at its end. Calls made outside a run come after every run's of their rank, in arrival order.
 */
const order = new AsyncLocalStorage<number>();
let started = 0;

/** Runs `fn` (a document run) with the next place in the order. */
export function inCallOrder<T>(fn: () => T): T {
  return order.run(started++, fn);
}

/** The place of the current document run; none (last) outside one. */
export function callOrder(): number {
  return order.getStore() ?? Number.POSITIVE_INFINITY;
}
