import type Redis from 'ioredis';
import type { WindowCount, WindowCounters } from '../counter-port';

const KEY_PREFIX = 'kgrag:counter:';

/**
 * Window counters in Redis, shared by every instance: INCR, and a key's expiry set by its first count only
 * (PEXPIRE NX), so its window runs from the first count as in memory. Counts a Redis that is down cannot take
 * fail the call (the caller answers 503).
 */
export class RedisWindowCounters implements WindowCounters {
  constructor(private readonly redis: Redis) {}

  async read(keys: string[], now: number): Promise<Array<WindowCount | null>> {
    const pipeline = this.redis.pipeline();
    for (const key of keys) pipeline.get(KEY_PREFIX + key).pttl(KEY_PREFIX + key);
    const replies = results(await pipeline.exec());
    return keys.map((_, i) => {
      const count = Number(replies[2 * i] ?? 0);
      const left = Number(replies[2 * i + 1]);
      return count > 0 && left > 0 ? { count, resetAt: now + left } : null;
    });
  }

  async increment(keys: string[], windowMs: number, now: number): Promise<WindowCount[]> {
    const multi = this.redis.multi();
    for (const key of keys)
      multi
        .incr(KEY_PREFIX + key)
        .pexpire(KEY_PREFIX + key, windowMs, 'NX')
        .pttl(KEY_PREFIX + key);
    const replies = results(await multi.exec());
    return keys.map((_, i) => ({ count: Number(replies[3 * i]), resetAt: now + Math.max(0, Number(replies[3 * i + 2])) }));
  }

  async delete(keys: string[]): Promise<void> {
    if (keys.length) await this.redis.del(...keys.map((key) => KEY_PREFIX + key));
  }
}

/** The replies of a pipeline or transaction; the first error (or a discarded transaction) is thrown. */
function results(replies: Array<[Error | null, unknown]> | null): unknown[] {
  if (!replies) throw new Error('the Redis transaction was discarded');
  return replies.map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}
