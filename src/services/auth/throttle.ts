import { RateLimitedError, UnavailableError } from '../../domain/errors';
import type { WindowCounters } from '../../store/counter-port';
import { MemoryWindowCounters } from '../../store/memory/window-counters';

/** Retry-After of a login refused because its counters could not be reached. */
const RETRY_AFTER_S = 2;

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
 * Failed-login counters per (user name, address), per user name and per address, in `counters` (Redis when it is
 * configured, so that a guesser spreading attempts over several instances meets the same counts; this process's
 * memory otherwise). A caller over any limit is refused with 429 and Retry-After until the window since that
 * counter's first failure has passed; a success clears the user name's counters (not the address's). Counters that
 * cannot be read or written (Redis down) refuse the login with 503 rather than let guesses through uncounted.
 */
export class LoginThrottle {
  constructor(
    private readonly limits: LoginLimits,
    private readonly counters: WindowCounters = new MemoryWindowCounters(),
  ) {}

  private keys(username: string, address: string): Array<[LockScope, string, number]> {
    const user = username.toLowerCase();
    return [
      ['user_at_address', `login:pair:${user}\n${address}`, this.limits.perUserAtAddress],
      ['user', `login:user:${user}`, this.limits.perUser],
      ['address', `login:addr:${address}`, this.limits.perAddress],
    ];
  }

  /** Throws RateLimitedError (with the scope locked in its details) while any counter is at its limit. */
  async check(username: string, address: string, now = Date.now()): Promise<void> {
    const keys = this.keys(username, address);
    const values = await this.shared(() =>
      this.counters.read(
        keys.map(([, key]) => key),
        now,
      ),
    );
    keys.forEach(([scope, , limit], i) => {
      const value = values[i];
      if (value && value.count >= limit) {
        const retryAfter = Math.max(1, Math.ceil((value.resetAt - now) / 1000));
        throw new RateLimitedError(`too many failed logins; try again in ${retryAfter} s`, retryAfter, { lock: scope });
      }
    });
  }

  /** Counts a failure; answers the scopes this failure locked (each reported once, when its limit is reached). */
  async fail(username: string, address: string, now = Date.now()): Promise<LockScope[]> {
    const keys = this.keys(username, address);
    const values = await this.shared(() =>
      this.counters.increment(
        keys.map(([, key]) => key),
        this.limits.windowMs,
        now,
      ),
    );
    return keys.filter(([, , limit], i) => values[i]?.count === limit).map(([scope]) => scope);
  }

  async succeed(username: string, address: string): Promise<void> {
    const keys = this.keys(username, address).filter(([scope]) => scope !== 'address');
    await this.shared(() => this.counters.delete(keys.map(([, key]) => key)));
  }

  private async shared<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch {
      throw new UnavailableError(
        `the login throttle's counters (Redis) are unavailable; retry shortly`,
        'rate_limit_store',
        {},
        RETRY_AFTER_S,
      );
    }
  }
}
