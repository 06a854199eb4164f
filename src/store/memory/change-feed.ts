import { EventEmitter } from 'node:events';
import { FEED_START, compareFeedIds } from '../feed-ids';
import type { ChangeFeed, FeedEntry } from '../ports';

/** The change feed of one process: the newest `window` entries per topic, in memory. */
export class MemoryChangeFeed implements ChangeFeed {
  private readonly topics = new Map<string, FeedEntry[]>();
  /** Per topic, the newest id trimmed out of the window. */
  private readonly trimmed = new Map<string, string>();
  private readonly emitter = new EventEmitter();
  private lastMs = 0;
  private sequence = 0;

  constructor(private readonly window: number) {
    this.emitter.setMaxListeners(0);
  }

  private nextId(): string {
    const now = Date.now();
    if (now > this.lastMs) {
      this.lastMs = now;
      this.sequence = 0;
    } else {
      this.sequence += 1;
    }
    return `${this.lastMs}-${this.sequence}`;
  }

  append(topic: string, payload: unknown): Promise<string> {
    const entries = this.topics.get(topic) ?? [];
    this.topics.set(topic, entries);
    const id = this.nextId();
    entries.push({ id, payload });
    if (entries.length > this.window) {
      const dropped = entries.splice(0, entries.length - this.window);
      this.trimmed.set(topic, dropped[dropped.length - 1].id);
    }
    this.emitter.emit('append', topic);
    return Promise.resolve(id);
  }

  read(topic: string, afterId: string, limit: number): Promise<{ entries: FeedEntry[]; gap: boolean }> {
    const entries = this.topics.get(topic) ?? [];
    const start = entries.findIndex((e) => compareFeedIds(e.id, afterId) > 0);
    const trimmed = this.trimmed.get(topic);
    // Entries after the id were trimmed: the reader missed some.
    const gap = trimmed !== undefined && compareFeedIds(afterId, trimmed) < 0;
    return Promise.resolve({ entries: start === -1 ? [] : entries.slice(start, start + limit), gap });
  }

  head(topic: string): Promise<string> {
    return Promise.resolve(this.topics.get(topic)?.at(-1)?.id ?? FEED_START);
  }

  watch(listener: (topic: string) => void): () => void {
    this.emitter.on('append', listener);
    return () => this.emitter.off('append', listener);
  }

  close(): Promise<void> {
    this.emitter.removeAllListeners();
    return Promise.resolve();
  }
}
