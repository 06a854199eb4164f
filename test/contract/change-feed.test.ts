import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { compareFeedIds } from '../../src/store/feed-ids';
import { MemoryChangeFeed } from '../../src/store/memory/change-feed';
import type { ChangeFeed } from '../../src/store/ports';
import { RedisChangeFeed } from '../../src/store/redis/change-feed';

/** The change-feed port: one suite for the in-memory feed and the Redis one (when the runner provides Redis). */
function changeFeedContract(name: string, make: (window: number) => Promise<ChangeFeed>) {
  describe(`change feed contract: ${name}`, () => {
    const feeds: ChangeFeed[] = [];
    const feed = async (window = 100) => {
      const made = await make(window);
      feeds.push(made);
      return made;
    };
    afterAll(async () => {
      for (const f of feeds) await f.close();
    });

    it('appends with increasing ids and reads after an id, in order, up to a limit', async () => {
      const f = await feed();
      const topic = randomUUID();
      expect(await f.head(topic)).toBe('0-0');
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await f.append(topic, { n: i }));
      expect([...ids].sort(compareFeedIds)).toEqual(ids);
      expect(new Set(ids).size).toBe(5);
      expect(await f.head(topic)).toBe(ids[4]);
      const after = await f.read(topic, ids[1], 2);
      expect(after).toEqual({ entries: [ids[2], ids[3]].map((id, i) => ({ id, payload: { n: i + 2 } })), gap: false });
      expect((await f.read(topic, '0-0', 100)).entries.map((e) => e.id)).toEqual(ids);
      expect((await f.read(topic, ids[4], 100)).entries).toEqual([]);
      expect((await f.read(randomUUID(), '0-0', 100)).entries).toEqual([]);
    });

    it('keeps the newest entries of the window and reports a gap for an id whose successors were trimmed', async () => {
      const f = await feed(3);
      const topic = randomUUID();
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push(await f.append(topic, { n: i }));
      expect((await f.read(topic, '0-0', 100)).entries.map((e) => e.id)).toEqual(ids.slice(3));
      expect((await f.read(topic, ids[1], 100)).gap).toBe(true);
      expect((await f.read(topic, '0-0', 100)).gap).toBe(true);
      const kept = await f.read(topic, ids[2], 100);
      expect(kept).toMatchObject({ gap: false });
      expect(kept.entries.map((e) => e.id)).toEqual(ids.slice(3));
    });

    it('tells watchers which topic grew', async () => {
      const f = await feed();
      const topic = randomUUID();
      const grown: string[] = [];
      const stop = f.watch((t) => t === topic && grown.push(t));
      await f.append(topic, {});
      const deadline = Date.now() + 5000;
      while (grown.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      stop();
      expect(grown).toEqual([topic]);
    });
  });
}

changeFeedContract('memory', async (window) => new MemoryChangeFeed(window));

// The Redis feed needs a server: the persistent pass of `npm test` provides one in TEST_REDIS_URL.
const redisUrl = process.env.TEST_REDIS_URL;
if (redisUrl) {
  const connections: Redis[] = [];
  afterAll(() => connections.forEach((c) => c.disconnect()));
  changeFeedContract('redis', async (window) => {
    const [main, subscriber] = [new Redis(redisUrl), new Redis(redisUrl)];
    connections.push(main, subscriber);
    const feed = new RedisChangeFeed(main, subscriber, window);
    await feed.start();
    return feed;
  });
}
