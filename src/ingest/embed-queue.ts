import { throwIfAborted } from '../domain/abort';
import type { Scope, VectorKind } from '../domain/types';
import type { EmbeddingProvider } from '../llm/ports';

/**
 * One embedding queue per provider, shared by every document in flight (docs/architecture.md §5.6). Texts
 * wait while the provider's slots are busy; a record queued again before its turn (another document
 * changed it meanwhile) keeps one place with its latest text, and every document waiting on it gets that
 * embedding. A record whose same text is already being embedded joins that call. Batches are the provider's
 * batch size, so the documents in flight share calls too; a partial batch waits while another call is out.
 */

export const DEFAULT_EMBED_BATCH_SIZE = 64;

export interface QueuedText {
  id: string;
  text: string;
}

export interface Embedded {
  vector: number[];
  /** The text the vector was computed from: the latest queued for the record, maybe not the caller's. */
  text: string;
}

interface Waiter {
  resolve: (value: Embedded) => void;
  reject: (err: unknown) => void;
}

interface Entry {
  key: string;
  text: string;
  waiters: Waiter[];
  result?: Promise<Embedded>;
}

export class EmbeddingQueue {
  private readonly pending = new Map<string, Entry>();
  private readonly running = new Map<string, Entry>();
  private active = 0;

  constructor(
    private readonly provider: EmbeddingProvider,
    private readonly concurrency: number,
    private readonly batchSize: number,
  ) {}

  /** Embeds the texts of one kind of record in a workspace; resolves in the order given. */
  embed(scope: Scope, kind: VectorKind | 'text', items: QueuedText[], signal?: AbortSignal): Promise<Embedded[]> {
    throwIfAborted(signal);
    const prefix = `${scope.tenantId ?? ''}\u0000${scope.workspaceId}\u0000${kind}\u0000`;
    const all = Promise.all(items.map((item) => this.enqueue(prefix + item.id, item.text)));
    this.pump();
    return all;
  }

  private enqueue(key: string, text: string): Promise<Embedded> {
    const inFlight = this.running.get(key);
    if (inFlight?.text === text && inFlight.result) return inFlight.result;
    return new Promise<Embedded>((resolve, reject) => {
      const entry = this.pending.get(key);
      if (entry) {
        entry.text = text;
        entry.waiters.push({ resolve, reject });
      } else this.pending.set(key, { key, text, waiters: [{ resolve, reject }] });
    });
  }

  /**
   * Sends full batches while slots are free, and a partial one only when nothing is being embedded: while a
   * call is out, what is queued waits, so records that more documents change meanwhile are embedded once.
   */
  private pump(): void {
    while (this.active < this.concurrency && this.pending.size > 0 && (this.active === 0 || this.pending.size >= this.batchSize)) {
      const batch: Entry[] = [];
      for (const entry of this.pending.values()) {
        if (this.running.has(entry.key)) continue;
        batch.push(entry);
        if (batch.length >= this.batchSize) break;
      }
      if (batch.length === 0) return;
      for (const entry of batch) {
        this.pending.delete(entry.key);
        this.running.set(entry.key, entry);
      }
      this.active++;
      void this.run(batch);
    }
  }

  private async run(batch: Entry[]): Promise<void> {
    const call = Promise.resolve()
      .then(() => this.provider.embed(batch.map((e) => e.text)))
      .then((vectors) => {
        if (vectors.length !== batch.length) {
          throw new Error(`embedding provider returned ${vectors.length} vectors for ${batch.length} texts`);
        }
        return vectors;
      });
    batch.forEach((entry, i) => {
      entry.result = call.then((vectors) => ({ vector: vectors[i], text: entry.text }));
      // Joiners attach to `result`; the waiters are settled below.
      entry.result.catch(() => undefined);
    });
    try {
      const vectors = await call;
      batch.forEach((entry, i) => {
        for (const w of entry.waiters) w.resolve({ vector: vectors[i], text: entry.text });
      });
    } catch (err) {
      for (const entry of batch) for (const w of entry.waiters) w.reject(err);
    } finally {
      for (const entry of batch) if (this.running.get(entry.key) === entry) this.running.delete(entry.key);
      this.active--;
      this.pump();
    }
  }
}

const queues = new WeakMap<EmbeddingProvider, EmbeddingQueue>();

/** The queue of a provider instance (the registry hands out one instance per provider and model). */
export function embeddingQueue(provider: EmbeddingProvider, concurrency: number): EmbeddingQueue {
  let queue = queues.get(provider);
  if (!queue) {
    queue = new EmbeddingQueue(provider, Math.max(1, concurrency), provider.batchSize ?? DEFAULT_EMBED_BATCH_SIZE);
    queues.set(provider, queue);
  }
  return queue;
}
