import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { WindowCounters } from '../../src/store/counter-port';
import { MemoryWindowCounters } from '../../src/store/memory/window-counters';
import { RedisWindowCounters } from '../../src/store/redis/window-counters';

/**
 * The window-counter port (failed logins): one suite for the counters in memory and those in Redis (when the runner
 * provides Redis). Two connections to one Redis stand for two instances: what one counts, the other reads.
 */
function windowCountersContract(name: string, make: () => WindowCounters, pair: () => [WindowCounters, WindowCounters]) {
  describe(`window counters contract: ${name}`, () => {
    it('counts per key from the first count, and forgets a key once its window has ended', async () => {
      const counters = make();
      const [a, b] = [randomUUID(), randomUUID()];
      const now = Date.now();
      expect(await counters.read([a, b], now)).toEqual([null, null]);
      const first = await counters.increment([a, b], 300, now);
      expect(first.map((v) => v.count)).toEqual([1, 1]);
      const second = await counters.increment([a], 300, now);
      expect(second[0].count).toBe(2);
      // The window runs from the first count: a later count does not move its end.
      expect(second[0].resetAt).toBeLessThanOrEqual(first[0].resetAt);
      expect(second[0].resetAt).toBeGreaterThan(now);
      const [ra, rb] = await counters.read([a, b], now);
      expect([ra?.count, rb?.count]).toEqual([2, 1]);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await counters.read([a, b], Date.now())).toEqual([null, null]);
      expect((await counters.increment([a], 300, Date.now()))[0].count).toBe(1);
    });

    it('deletes keys, and shares counts with every handle on the same store', async () => {
      const [one, other] = pair();
      const key = randomUUID();
      const now = Date.now();
      await one.increment([key], 60_000, now);
      await other.increment([key], 60_000, now);
      expect((await one.read([key], now))[0]?.count).toBe(2);
      await one.delete([key]);
      expect(await one.read([key], now)).toEqual([null]);
    });
  });
}

// In memory, one process holds one set of counters: its handles are that one object.
windowCountersContract(
  'memory',
  () => new MemoryWindowCounters(),
  () => {
    const counters = new MemoryWindowCounters();
    return [counters, counters];
  },
);

// Redis needs a server: the persistent pass of `npm test` provides one in TEST_REDIS_URL.
const redisUrl = process.env.TEST_REDIS_URL;
if (redisUrl) {
  const connections: Redis[] = [];
  afterAll(() => connections.forEach((c) => c.disconnect()));
  const connect = () => {
    const connection = new Redis(redisUrl);
    connections.push(connection);
    return new RedisWindowCounters(connection);
  };
  windowCountersContract('redis', connect, () => [connect(), connect()]);
}
