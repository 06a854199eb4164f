import { UNREACHABLE_CODES, UnavailableError } from '../../domain/errors';

/** How often a database found unreachable is probed, and how long one probe may take. */
const PROBE_INTERVAL_MS = 500;
const PROBE_TIMEOUT_MS = 1_000;
/** What a refused request's `Retry-After` says: about one probe away. */
const RETRY_AFTER_SECONDS = 1;

/** Errors of the driver and the socket under it that mean "no connection to the database". */
export function isConnectivityError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return UNREACHABLE_CODES.has(code) || code === 'ECONNRESET';
}

/**
 * Errors Neo4j calls transient: retry later. Besides deadlocks and lock timeouts these are what a database that
 * is stopping or starting answers (`DatabaseUnavailable`), and the transactions it terminates on its way down
 * (the driver reports those as `Neo.ClientError.Transaction.Terminated`).
 */
export function isTransientError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  if (typeof code !== 'string') return false;
  return code.startsWith('Neo.TransientError.') || code === 'Neo.ClientError.Transaction.Terminated';
}

/**
 * The driver's own pool refusing a unit of work: no connection came free within the acquisition time-out (the
 * database is saturated), or the pool was closed under it (the instance is stopping). The request was fine;
 * it may run later, so it is an outage, not a failure of the work.
 */
export function isPoolError(err: unknown): boolean {
  const message = (err as { message?: unknown })?.message;
  return typeof message === 'string' && (message.startsWith('Connection acquisition timed out') || message.startsWith('Pool is closed'));
}

/** A 503-kind error naming Neo4j, with the `Retry-After` of about one probe. */
function unavailable(what: string): UnavailableError {
  return new UnavailableError(`the graph database (Neo4j) ${what}; retry shortly`, 'neo4j', {}, RETRY_AFTER_SECONDS);
}

/**
 * Whether Neo4j answers, as a circuit: a connection failure that a quick ping confirms opens it, and while it is
 * open every unit of work is refused at once (a 503) instead of each waiting out the driver's connection retries.
 * A probe pings the database in the background and closes the circuit as soon as it answers again, so the
 * service recovers by itself.
 */
export class Availability {
  private down = false;
  private since = 0;
  private probe: NodeJS.Timeout | null = null;
  private confirming: Promise<boolean> | null = null;
  private closed = false;

  constructor(
    private readonly ping: (timeoutMs: number) => Promise<boolean>,
    private readonly onChange: (up: boolean, downForMs: number) => void = () => undefined,
  ) {}

  get reachable(): boolean {
    return !this.down;
  }

  /** The error every unit of work gets while the circuit is open. */
  refusal(): UnavailableError {
    return unavailable('is unreachable');
  }

  /** The error of a unit of work whose transient failures outlasted the retry window; the cause stays on it for the log. */
  busy(cause: unknown): UnavailableError {
    const err = unavailable('could not complete the operation in time');
    err.cause = cause;
    return err;
  }

  /**
   * After a connectivity or transient error: whether the database still answers. A failed ping opens the circuit; concurrent
   * callers share one ping.
   */
  confirm(): Promise<boolean> {
    if (this.down) return Promise.resolve(false);
    this.confirming ??= this.ping(PROBE_TIMEOUT_MS)
      .then((ok) => {
        if (!ok) this.open();
        return ok;
      })
      .finally(() => (this.confirming = null));
    return this.confirming;
  }

  /** A successful ping from elsewhere (the health check) closes the circuit at once. */
  answered(): void {
    if (this.down) this.shut();
  }

  /** Stops probing; for shutdown. */
  close(): void {
    this.closed = true;
    if (this.probe) clearTimeout(this.probe);
    this.probe = null;
  }

  private open(): void {
    if (this.down || this.closed) return;
    this.down = true;
    this.since = Date.now();
    this.onChange(false, 0);
    this.schedule();
  }

  private shut(): void {
    this.down = false;
    if (this.probe) clearTimeout(this.probe);
    this.probe = null;
    this.onChange(true, Date.now() - this.since);
  }

  private schedule(): void {
    if (this.closed || !this.down) return;
    this.probe = setTimeout(() => {
      this.probe = null;
      void this.ping(PROBE_TIMEOUT_MS).then(
        (ok) => (ok ? this.answered() : this.schedule()),
        () => this.schedule(),
      );
    }, PROBE_INTERVAL_MS);
    // The probe never keeps the process alive on its own.
    this.probe.unref();
  }
}
