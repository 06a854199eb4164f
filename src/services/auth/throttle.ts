import { RateLimitedError } from '../../domain/errors';

/**
 * Failed-login counters per user name and per client address, in this process. A caller over either limit is
 * refused with 429 and Retry-After until the window since its first failure has passed; a success clears the
 * user name's counter.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, { count: number; since: number }>();

  constructor(private readonly limits: { perUser: number; perAddress: number; windowMs: number }) {}

  private current(key: string, now: number) {
    const entry = this.failures.get(key);
    if (entry && now - entry.since >= this.limits.windowMs) {
      this.failures.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Throws RateLimitedError while the user name or the address is locked out. */
  check(username: string, address: string, now = Date.now()): void {
    for (const [key, limit] of [
      [`user:${username.toLowerCase()}`, this.limits.perUser],
      [`addr:${address}`, this.limits.perAddress],
    ] as const) {
      const entry = this.current(key, now);
      if (entry && entry.count >= limit) {
        const retryAfter = Math.max(1, Math.ceil((entry.since + this.limits.windowMs - now) / 1000));
        throw new RateLimitedError(`too many failed logins; try again in ${retryAfter} s`, retryAfter);
      }
    }
  }

  fail(username: string, address: string, now = Date.now()): void {
    for (const key of [`user:${username.toLowerCase()}`, `addr:${address}`]) {
      const entry = this.current(key, now);
      if (entry) entry.count += 1;
      else this.failures.set(key, { count: 1, since: now });
    }
    if (this.failures.size > 100_000) this.prune(now);
  }

  succeed(username: string): void {
    this.failures.delete(`user:${username.toLowerCase()}`);
  }

  private prune(now: number): void {
    for (const key of this.failures.keys()) this.current(key, now);
  }
}
