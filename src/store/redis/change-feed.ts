import type Redis from 'ioredis';
import { FEED_START, compareFeedIds } from '../feed-ids';
import type { ChangeFeed, FeedEntry } from '../ports';

const CHANNEL = 'kgrag:graph-feed';
const KEY_PREFIX = 'kgrag:graph-feed:';
/** A topic nobody appends to for a day is forgotten (Redis holds no only copy of anything). */
const IDLE_EXPIRY_MS = 86_400_000;

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
    const results = await this.redis
      .multi()
      .xadd(key, 'MAXLEN', String(this.window), '*', 'p', JSON.stringify(payload))
      .pexpire(key, IDLE_EXPIRY_MS)
      .publish(CHANNEL, topic)
      .exec();
    const failed = results?.find(([err]) => err);
    if (!results || failed) throw failed?.[0] ?? new Error('redis transaction was discarded');
    return String(results[0][1]);
  }

  async read(topic: string, afterId: string, limit: number): Promise<{ entries: FeedEntry[]; gap: boolean }> {
    const key = KEY_PREFIX + topic;
    const [rows, trimmed] = await Promise.all([this.redis.xrange(key, `(${afterId}`, '+', 'COUNT', limit), this.trimmedUpTo(key)]);
    const entries = rows.map(([id, fields]) => ({ id, payload: JSON.parse(fields[fields.indexOf('p') + 1]) as unknown }));
    return { entries, gap: compareFeedIds(afterId, trimmed) < 0 };
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

  /** The newest id trimmed from the stream (Redis 7 reports it as max-deleted-entry-id). */
  private async trimmedUpTo(key: string): Promise<string> {
    const info = (await this.redis.call('XINFO', 'STREAM', key).catch(() => null)) as unknown[] | null;
    if (!info) return FEED_START;
    const at = info.indexOf('max-deleted-entry-id');
    return at === -1 ? FEED_START : String(info[at + 1]);
  }
}
