import { RateLimitedError } from '../../domain/errors';

/** What a lock-out applies to: one user name from one address, a user name from anywhere, or an address. */
export type LockScope = 'user_at_address' | 'user' | 'address';

export interface LoginLimits {
  /** Failures of one user name from one address: the lock a guesser meets first. */
  perUserAtAddress: number;
  /** Failures of one user name from all addresses together: higher, so that a guesser elsewhere cannot lock its owner out cheaply. */
  perUser: number;
  /** Failures from one address under any user names. */
  perAddress: number;
  windowMs: number;
}

/**
 * Failed-login counters in this process: per (user name, address), per user name and per address. A caller over
 * any limit is refused with 429 and Retry-After until the window since that counter's first failure has passed; a
 * success clears the user name's counters (not the address's).
 */
export class LoginThrottle {
  private readonly failures = new Map<string, { count: number; since: number }>();

  constructor(private readonly limits: LoginLimits) {}

  private current(key: string, now: number) {
    const entry = this.failures.get(key);
    if (entry && now - entry.since >= this.limits.windowMs) {
      this.failures.delete(key);
      return undefined;
    }
    return entry;
  }

  private counters(username: string, address: string): Array<[LockScope, string, number]> {
    const user = username.toLowerCase();
    return [
      ['user_at_address', `pair:${user}\n${address}`, this.limits.perUserAtAddress],
      ['user', `user:${user}`, this.limits.perUser],
      ['address', `addr:${address}`, this.limits.perAddress],
    ];
  }

  /** Throws RateLimitedError (with the scope locked in its details) while any counter is at its limit. */
  check(username: string, address: string, now = Date.now()): void {
    for (const [scope, key, limit] of this.counters(username, address)) {
      const entry = this.current(key, now);
      if (entry && entry.count >= limit) {
        const retryAfter = Math.max(1, Math.ceil((entry.since + this.limits.windowMs - now) / 1000));
        throw new RateLimitedError(`too many failed logins; try again in ${retryAfter} s`, retryAfter, { lock: scope });
      }
    }
  }

  /** Counts a failure; answers the scopes this failure locked (each reported once, when its limit is reached). */
  fail(username: string, address: string, now = Date.now()): LockScope[] {
    const locked: LockScope[] = [];
    for (const [scope, key, limit] of this.counters(username, address)) {
      const entry = this.current(key, now);
      if (entry) entry.count += 1;
      else this.failures.set(key, { count: 1, since: now });
      if ((entry?.count ?? 1) === limit) locked.push(scope);
    }
    if (this.failures.size > 100_000) this.prune(now);
    return locked;
  }

  succeed(username: string, address: string): void {
    for (const [scope, key] of this.counters(username, address)) if (scope !== 'address') this.failures.delete(key);
  }

  private prune(now: number): void {
    for (const key of this.failures.keys()) this.current(key, now);
  }
}
