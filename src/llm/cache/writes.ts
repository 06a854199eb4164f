import { scopeKey } from '../../domain/ids';
import type { Scope } from '../../domain/types';
import type { KeyValueStore } from '../../store/ports';

/**
 * Cache entries written behind the calls that made them. The answer of an LLM call is returned as soon as it
 * arrives; its entry waits up to `CACHE_WRITE_LINGER_MS` for the entries of other calls of the same workspace
 * and namespace, and they are written together (`setMany`, one statement where the store is remote). Ingestion
 * answers about as many LLM calls a second as it has slots, each with an entry: in Neo4j that was one small
 * write transaction per call.
 *
 * Until its write lands, an entry is known only to this process (the LLM cache keeps the call as in flight,
 * so an identical call meanwhile costs nothing). `settle` writes what waits at once: before a workspace's data
 * is dropped and when the runtime closes. Each runtime has its own queue (its LLM cache's).
 */
export const CACHE_WRITE_LINGER_MS = 200;
/** Entries of one workspace and namespace per write at most; a full batch is written at once. */
export const CACHE_WRITE_BATCH = 64;

interface Batch {
  scope: Scope;
  namespace: string;
  entries: Array<[string, unknown]>;
  waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }>;
  timer: NodeJS.Timeout;
}

export class CacheWrites {
  /** Waiting batches by store, then by workspace and namespace. */
  private readonly waiting = new Map<KeyValueStore, Map<string, Batch>>();
  private readonly writing = new Set<Promise<void>>();

  /** Queues an entry; resolves once it is written, rejects with the error of its write. */
  writeBehind(kv: KeyValueStore, scope: Scope, namespace: string, key: string, value: unknown): Promise<void> {
    let lanes = this.waiting.get(kv);
    if (!lanes) {
      lanes = new Map();
      this.waiting.set(kv, lanes);
    }
    const lane = `${scopeKey(scope)}\u0000${namespace}`;
    let batch = lanes.get(lane);
    if (!batch) {
      const timer = setTimeout(() => this.flush(kv, lane), CACHE_WRITE_LINGER_MS);
      timer.unref();
      batch = { scope, namespace, entries: [], waiters: [], timer };
      lanes.set(lane, batch);
    }
    const queued = batch;
    return new Promise<void>((resolve, reject) => {
      queued.entries.push([key, value]);
      queued.waiters.push({ resolve, reject });
      if (queued.entries.length >= CACHE_WRITE_BATCH) this.flush(kv, lane);
    });
  }

  /** Writes every waiting entry now and waits until every write has ended (failed writes included). */
  async settle(): Promise<void> {
    for (const [kv, lanes] of [...this.waiting]) for (const lane of [...lanes.keys()]) this.flush(kv, lane);
    await Promise.all([...this.writing]);
  }

  private flush(kv: KeyValueStore, lane: string): void {
    const lanes = this.waiting.get(kv);
    const batch = lanes?.get(lane);
    if (!lanes || !batch) return;
    clearTimeout(batch.timer);
    lanes.delete(lane);
    if (lanes.size === 0) this.waiting.delete(kv);
    const write = kv.setMany(batch.scope, batch.namespace, batch.entries).then(
      () => batch.waiters.forEach((w) => w.resolve()),
      (err: unknown) => batch.waiters.forEach((w) => w.reject(err)),
    );
    this.writing.add(write);
    void write.finally(() => this.writing.delete(write));
  }
}
