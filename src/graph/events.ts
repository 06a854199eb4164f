import { EventEmitter } from 'node:events';
import { UnavailableError } from '../domain/errors';
import type { Scope } from '../domain/types';
import type { Logger } from '../logger';
import { FEED_START, compareFeedIds } from '../store/feed-ids';
import { MemoryChangeFeed } from '../store/memory/change-feed';
import type { ChangeFeed } from '../store/ports';
import { previousFeedId } from './stream-ids';

/** A change to a workspace graph, published by ingestion, deletion and entity edits. */
export type GraphChange =
  | { kind: 'node_added' | 'node_updated'; id: string }
  | { kind: 'node_removed'; id: string }
  | { kind: 'edge_added' | 'edge_updated'; id: string; source: string; target: string }
  | { kind: 'edge_removed'; id: string; source: string; target: string };

export interface GraphChangeBatch {
  scope: Scope;
  changes: GraphChange[];
  /** What caused the change, e.g. `ingest`, `delete`, `merge`. */
  cause: string;
  document_id?: string;
  /** The content update of `document_id` the change belongs to (the version it makes and its id). */
  revision?: DocumentRevision;
}

/** One content update of a document: the version it makes, and an id of its own (a failed attempt's is never reused). */
export interface DocumentRevision {
  version: number;
  id: string;
}

/** A published batch with its feed id (ordered within the workspace, the same on every instance). */
export interface GraphChangeEntry {
  id: string;
  batch: GraphChangeBatch;
}

/** A follower of one workspace's changes: every entry after its cursor, in order, exactly once. */
export interface Follow {
  /** True when entries after the requested id had already left the replay window. */
  gap: boolean;
  /** The id the follower starts after. */
  from: string;
  close(): void;
}

const READ_BATCH = 500;

interface Follower {
  cursor: string;
  listener: (entry: GraphChangeEntry) => void;
  /** Entries that arrived while the follower was catching up. */
  held: GraphChangeEntry[] | null;
}

interface Topic {
  scope: Scope;
  cursor: string;
  followers: Set<Follower>;
  ready: Promise<void>;
  reading: boolean;
  again: boolean;
}

export function topicOf(scope: Scope): string {
  return `${scope.tenantId ?? ''}/${scope.workspaceId}`;
}

/**
 * The graph change bus. Writers publish after their store writes commit; every batch goes to the change feed
 * (in memory, or a Redis stream shared by every instance), and followers of a workspace get the feed's entries in
 * feed order whatever instance wrote them. One reader per workspace and instance fans entries out to its followers.
 * `subscribe` is the in-process hook (every batch this process publishes, synchronously).
 */
export class GraphEvents {
  private readonly emitter = new EventEmitter();
  private readonly topics = new Map<string, Topic>();
  private appending: Promise<unknown> = Promise.resolve();
  private readonly unwatch: () => void;
  private readonly poll: NodeJS.Timeout | undefined;

  /** `pollMs`: also read followed topics this often, for a notification lost on the way (a shared feed's). */
  constructor(
    readonly feed: ChangeFeed = new MemoryChangeFeed(1_000),
    private readonly log?: Logger,
    pollMs = 0,
  ) {
    this.emitter.setMaxListeners(0);
    this.unwatch = feed.watch((topic) => this.pump(topic));
    if (pollMs > 0) {
      this.poll = setInterval(() => [...this.topics.keys()].forEach((name) => this.pump(name)), pollMs);
      this.poll.unref();
    }
  }

  publish(batch: GraphChangeBatch): void {
    if (!batch.changes.length) return;
    this.emitter.emit('change', batch);
    // Appends leave this process in publication order.
    this.appending = this.appending.then(() =>
      this.feed.append(topicOf(batch.scope), batch).catch((err: unknown) => {
        this.log?.warn({ err: (err as Error).message, workspace_id: batch.scope.workspaceId }, 'graph change not published to the feed');
      }),
    );
  }

  /** Resolves once every batch published so far is in the feed. */
  flushed(): Promise<void> {
    return this.appending.then(() => undefined);
  }

  subscribe(listener: (batch: GraphChangeBatch) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }

  /** The newest feed id of a workspace: a follower starting after it gets only what comes next. */
  head(scope: Scope): Promise<string> {
    return this.feed.head(topicOf(scope));
  }

  /**
   * Follows a workspace from `after` (a feed id; null for "from now"): the entries kept after it are replayed first,
   * then new ones as they come, each once and in order.
   */
  async follow(scope: Scope, after: string | null, listener: (entry: GraphChangeEntry) => void): Promise<Follow> {
    try {
      return await this.startFollowing(scope, after, listener);
    } catch (err) {
      this.log?.warn({ err: (err as Error).message, workspace_id: scope.workspaceId }, 'graph change feed unavailable');
      throw new UnavailableError('the graph change feed is unavailable; retry shortly', 'graph_change_feed', {}, 1);
    }
  }

  private async startFollowing(scope: Scope, after: string | null, listener: (entry: GraphChangeEntry) => void): Promise<Follow> {
    const topicName = topicOf(scope);
    const topic = this.topicFor(topicName, scope);
    await topic.ready;
    const from = after ?? topic.cursor;
    const follower: Follower = { cursor: from, listener, held: [] };
    topic.followers.add(follower);
    let gap = false;
    try {
      // Catch up from `from` to where the shared reader is; what it delivers meanwhile is held.
      for (let cursor = from; compareFeedIds(cursor, topic.cursor) < 0;) {
        const read = await this.feed.read(topicName, cursor, READ_BATCH);
        gap ||= read.gap;
        if (!read.entries.length) break;
        for (const entry of read.entries) this.offer(follower, toEntry(entry), true);
        cursor = read.entries[read.entries.length - 1].id;
      }
    } catch (err) {
      this.leave(topicName, follower);
      throw err;
    }
    const held = follower.held ?? [];
    follower.held = null;
    for (const entry of held) this.offer(follower, entry);
    return { gap, from, close: () => this.leave(topicName, follower) };
  }

  /**
   * Whether `id` is a position this feed gave out: its head (the empty feed's start included) or one of its
   * entries. An id older than the window counts as given out: the window decides for it (a gap, then a snapshot).
   */
  async issued(scope: Scope, id: string): Promise<boolean> {
    const topicName = topicOf(scope);
    try {
      if (id === FEED_START || id === (await this.feed.head(topicName))) return true;
      const read = await this.feed.read(topicName, previousFeedId(id), 1);
      return read.gap || read.entries[0]?.id === id;
    } catch (err) {
      this.log?.warn({ err: (err as Error).message, workspace_id: scope.workspaceId }, 'graph change feed unavailable');
      throw new UnavailableError('the graph change feed is unavailable; retry shortly', 'graph_change_feed', {}, 1);
    }
  }

  /** Live subscriptions: in-process listeners and followers (a closed stream must leave none behind). */
  listenerCount(): number {
    let followers = 0;
    for (const topic of this.topics.values()) followers += topic.followers.size;
    return this.emitter.listenerCount('change') + followers;
  }

  async close(): Promise<void> {
    clearInterval(this.poll);
    this.unwatch();
    await this.flushed();
    await this.feed.close();
  }

  private topicFor(name: string, scope: Scope): Topic {
    let topic = this.topics.get(name);
    if (!topic) {
      const created: Topic = { scope, cursor: '0-0', followers: new Set(), ready: Promise.resolve(), reading: false, again: false };
      created.ready = this.feed.head(name).then((head) => {
        created.cursor = head;
      });
      // A topic whose head could not be read is not kept; the next follower tries again.
      created.ready.catch(() => this.topics.get(name) === created && this.topics.delete(name));
      this.topics.set(name, created);
      topic = created;
    }
    return topic;
  }

  private offer(follower: Follower, entry: GraphChangeEntry, catchingUp = false): void {
    if (follower.held && !catchingUp) {
      follower.held.push(entry);
      return;
    }
    if (compareFeedIds(entry.id, follower.cursor) <= 0) return;
    follower.cursor = entry.id;
    follower.listener(entry);
  }

  private leave(name: string, follower: Follower): void {
    const topic = this.topics.get(name);
    if (!topic) return;
    topic.followers.delete(follower);
    if (topic.followers.size === 0 && !topic.reading) this.topics.delete(name);
  }

  /** Reads what is new in a followed topic and hands it to its followers; one read at a time per topic. */
  private pump(name: string): void {
    const topic = this.topics.get(name);
    if (!topic) return;
    if (topic.reading) {
      topic.again = true;
      return;
    }
    topic.reading = true;
    void (async () => {
      try {
        await topic.ready;
        do {
          topic.again = false;
          for (;;) {
            const read = await this.feed.read(name, topic.cursor, READ_BATCH);
            for (const raw of read.entries) {
              const entry = toEntry(raw);
              topic.cursor = entry.id;
              for (const follower of [...topic.followers]) this.offer(follower, entry);
            }
            if (read.entries.length < READ_BATCH) break;
          }
        } while (topic.again);
      } catch (err) {
        this.log?.warn({ err: (err as Error).message, topic: name }, 'graph change feed could not be read');
      } finally {
        topic.reading = false;
        if (topic.followers.size === 0 && this.topics.get(name) === topic) this.topics.delete(name);
      }
    })();
  }
}

function toEntry(raw: { id: string; payload: unknown }): GraphChangeEntry {
  return { id: raw.id, batch: raw.payload as GraphChangeBatch };
}
