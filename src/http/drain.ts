import type { Middleware } from 'koa';
import { UnavailableError } from '../domain/errors';
import type { AppState } from './context';

/** What an open event stream says and does when the service shuts down. */
export interface DrainableStream {
  /** Writes the stream's last event (if it has one) and ends it. */
  shutdown(): void;
}

const RETRY_AFTER_SECONDS = 5;
/** Probes answer while draining: `/ready` says not ready, `/live` stays up. */
const PROBES = /^\/(live|ready|health)(\/|$)/;

/**
 * The HTTP side of a graceful shutdown: requests in flight are counted and finish, requests that arrive while
 * draining are refused with a 503 problem (`Connection: close`, `Retry-After`; the probes still answer), and open
 * event streams end with a final event instead of being cut.
 */
export class Drain {
  private state: 'serving' | 'draining' = 'serving';
  private inFlight = 0;
  private readonly streams = new Set<DrainableStream>();
  private readonly idleWaiters = new Set<() => void>();

  get draining(): boolean {
    return this.state === 'draining';
  }

  /** Requests whose response is not written out yet, event streams included. */
  get pending(): number {
    return this.inFlight;
  }

  /** Counts requests; refuses new ones while draining. Goes right after the problem mapping. */
  middleware(): Middleware<AppState> {
    return async (ctx, next) => {
      ctx.state.drain = this;
      if (this.draining && !PROBES.test(ctx.path)) {
        ctx.set('Connection', 'close');
        throw new UnavailableError(
          'the service is shutting down; retry on another instance or shortly',
          'service',
          {},
          RETRY_AFTER_SECONDS,
        );
      }
      // A request is in flight until its response is written out (or its connection is gone), streams included.
      this.inFlight += 1;
      ctx.res.once('close', () => {
        this.inFlight -= 1;
        this.notify();
      });
      await next();
    };
  }

  /** An event stream opened; `forget` when it ends. */
  track(stream: DrainableStream): () => void {
    if (this.draining) queueMicrotask(() => stream.shutdown());
    this.streams.add(stream);
    return () => void this.streams.delete(stream);
  }

  /** Refuses new requests from now on and ends every open event stream with its final event. */
  begin(): void {
    this.state = 'draining';
    for (const stream of [...this.streams]) stream.shutdown();
  }

  /** Resolves when no request is in flight and no stream is open, or after `ms` (false then). */
  idle(ms: number): Promise<boolean> {
    if (this.pending === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.idleWaiters.delete(done);
        resolve(false);
      }, ms);
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.idleWaiters.add(done);
    });
  }

  private notify(): void {
    if (this.pending > 0) return;
    for (const waiter of [...this.idleWaiters]) waiter();
    this.idleWaiters.clear();
  }
}
