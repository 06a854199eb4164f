import { isRetryableError } from 'neo4j-driver';
import { type Availability, isConnectivityError, isPoolError, isTransientError } from './availability';

/** Transient failures (deadlocks, a leader switch) are retried for this long before the error reaches the caller. */
export const RETRY_WINDOW_MS = 5_000;
const FIRST_RETRY_DELAY_MS = 100;

/**
 * One unit of work, retried with backoff on transient errors within the retry window. A connection failure, or a
 * database that says it is stopping or starting, is retried only when a ping shows the database still answers;
 * otherwise the circuit opens and this and every later unit fail at once (503) until a probe succeeds. Transient
 * failures that outlast the window, and a pool with no connection free in time or closed, are a 503 too: the request
 * was fine, the database could not serve it now.
 */
export async function withRetries<T>(availability: Availability, attempt: () => Promise<T>, windowMs = RETRY_WINDOW_MS): Promise<T> {
  const started = Date.now();
  let delay = FIRST_RETRY_DELAY_MS;
  for (;;) {
    if (!availability.reachable) throw availability.refusal();
    try {
      return await attempt();
    } catch (err) {
      // Waiting longer for a connection would only hold the caller past the acquisition time-out it just waited out.
      if (isPoolError(err)) throw availability.busy(err);
      if ((isConnectivityError(err) || isTransientError(err)) && !(await availability.confirm())) throw availability.refusal();
      const wait = delay * (0.8 + Math.random() * 0.4);
      const retryable = isRetryableError(err as Error);
      if (!retryable) throw isTransientError(err) ? availability.busy(err) : err;
      if (Date.now() - started + wait > windowMs) throw availability.busy(err);
      await new Promise((resolve) => setTimeout(resolve, wait));
      delay *= 2;
    }
  }
}
