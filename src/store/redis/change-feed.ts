import type Redis from 'ioredis';
import { FEED_START, compareFeedIds } from '../feed-ids';
import type { ChangeFeed, FeedEntry } from '../ports';

const CHANNEL = 'kgrag:graph-feed';
const KEY_PREFIX = 'kgrag:graph-feed:';
/** A topic nobody appends to for a day is forgotten (Redis holds no only copy of anything). */
const IDLE_EXPIRY_MS = 86_400_000;

/**
 * Appends, trims to the window while remembering the newest id trimmed (a reader behind it has a gap), and
 * tells every instance, in one atomic step. KEYS: stream, trimmed-id key. ARGV: payload, window, expiry, channel, topic.
 */
const APPEND = `
local id = redis.call('XADD', KEYS[1], '*', 'p', ARGV[1])
local excess = redis.call('XLEN', KEYS[1]) - tonumber(ARGV[2])
if excess > 0 then
  local old = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', excess)
  redis.call('SET', KEYS[2], old[#old][1])
  redis.call('XTRIM', KEYS[1], 'MAXLEN', tonumber(ARGV[2]))
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return id
`;

/**
 * The change feed shared by every instance: one Redis stream per topic (XADD assigns ordered ids, trimmed to
 * `window` entries) and a pub/sub channel that tells every instance which topic grew. `subscriber` is a connection
 * of its own (a subscribed connection can do nothing else).
 */
export class RedisChangeFeed implements ChangeFeed {
  private readonly listeners = new Set<(topic: string) => void>();

  constructor(
    private readonly redis: Redis,
    private readonly subscriber: Redis,
    private readonly window: number,
  ) {
    subscriber.on('message', (channel: string, topic: string) => {
      if (channel === CHANNEL) for (const listener of this.listeners) listener(topic);
    });
  }

  /** Subscribes to the channel; resolves once Redis confirmed it. */
  async start(): Promise<void> {
    await this.subscriber.subscribe(CHANNEL);
  }

  async append(topic: string, payload: unknown): Promise<string> {
    const key = KEY_PREFIX + topic;
    const id = await this.redis.eval(
      APPEND,
      2,
      key,
      `${key}:trimmed`,
      JSON.stringify(payload),
      this.window,
      IDLE_EXPIRY_MS,
      CHANNEL,
      topic,
    );
    return String(id);
  }

  async read(topic: string, afterId: string, limit: number): Promise<{ entries: FeedEntry[]; gap: boolean }> {
    const key = KEY_PREFIX + topic;
    const [rows, trimmed] = await Promise.all([
      this.redis.xrange(key, `(${afterId}`, '+', 'COUNT', limit),
      this.redis.get(`${key}:trimmed`),
    ]);
    const entries = rows.map(([id, fields]) => ({ id, payload: JSON.parse(fields[fields.indexOf('p') + 1]) as unknown }));
    return { entries, gap: trimmed !== null && compareFeedIds(afterId, trimmed) < 0 };
  }

  async head(topic: string): Promise<string> {
    const [last] = await this.redis.xrevrange(KEY_PREFIX + topic, '+', '-', 'COUNT', 1);
    return last ? last[0] : FEED_START;
  }

  watch(listener: (topic: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.subscriber.disconnect();
  }
}
