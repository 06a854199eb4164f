import { throwIfAborted } from '../../domain/abort';
import { scopeKey } from '../../domain/ids';
import type { Scope, VectorKind } from '../../domain/types';
import type { EmbeddingProvider } from '../../llm/ports';
import { type UsageContext, currentUsageContext, runInUsageContext } from '../../llm/usage';
import { MergeClaims, recordKey } from './claims';

/**
 * One embedding queue per provider, shared by every document in flight (docs/architecture.md §5.6). Texts
 * wait while the provider's slots are busy; a record queued again before its turn (another document
 * changed it meanwhile) keeps one place with its latest text, and every caller waiting on it gets that
 * embedding. A record whose same text is already being embedded joins that call. Batches are the provider's
 * batch size, so the documents in flight share calls too; a partial batch waits while another call is out.
 *
 * Two lanes: `now` for texts a caller waits on (chunks, records new to the graph), `later` for refreshes of
 * records that already have a vector (their old one still serves queries). A refresh is sent once no document
 * is in flight (no claim open: nothing would change the record again soon), or once REFRESH_WINDOW.merges
 * documents have merged since it was queued: records that many documents touch in a row are embedded once per so
 * many documents. Both are counted in documents, not in time or in the queue's idle moments, so that a loaded
 * machine (slower documents, a queue idle more often) re-embeds as much as an idle one.
 *
 * Texts in the `now` lane are not held: a record new to the graph is embedded as soon as a batch goes, and the
 * documents that change it after are refreshes. (Holding it until the documents in flight that named it had merged
 * it made the count of texts follow the machine's load: ./claims.ts.)
 *
 * REFRESH_WINDOW.deadlineMs bounds the window in time, for documents in flight that merge nothing for that long
 * (liveness only: it is reached when documents stall, not when a machine is busy).
 *
 * A call holds the texts of one workspace only, and runs in the usage context of its first text's caller: its cost
 * is that workspace's.
 */

export const DEFAULT_EMBED_BATCH_SIZE = 64;

/** Records whose last embedded text the queue remembers (./merge-stage.ts catches up only the others). */
export const LAST_TEXTS_KEPT = 20_000;

/** How long refreshes wait, counted in documents merged, with a deadline in time (see above). */
export interface RefreshWindow {
  merges: number;
  deadlineMs: number;
}
export const REFRESH_WINDOW: RefreshWindow = { merges: 16, deadlineMs: 30_000 };

export type Lane = 'now' | 'later';

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
  signal?: AbortSignal;
}

interface Entry {
  key: string;
  /** `tenant\u0000workspace\u0000`: batches never mix workspaces. */
  workspace: string;
  usage: UsageContext;
  text: string;
  lane: Lane;
  /** When it was queued: Date.now() and the runtime's claims given up by then. */
  since: number;
  sinceReleases: number;
  waiters: Waiter[];
  result?: Promise<Embedded>;
  /** While being embedded: the call's shared signal, which later joiners hold on to as well. */
  call?: SharedSignal;
}

export class EmbeddingQueue {
  private readonly now = new Map<string, Entry>();
  private readonly later = new Map<string, Entry>();
  private readonly running = new Map<string, Entry>();
  private active = 0;
  private timer: NodeJS.Timeout | null = null;
  private draining = 0;
  private idleWaiters: Array<() => void> = [];
  /** The text each record was last embedded with, least recently embedded first (references, not copies). */
  private readonly lastTexts = new Map<string, string>();

  constructor(
    private readonly provider: EmbeddingProvider,
    private readonly concurrency: number,
    private readonly batchSize: number,
    private readonly window: RefreshWindow = REFRESH_WINDOW,
    private readonly claims: MergeClaims = new MergeClaims(),
  ) {
    // The queue's clock: each document merged may make refreshes due.
    claims.onRelease(() => {
      if (this.later.size > 0) this.pump();
    });
  }

  /** Whether REFRESH_WINDOW has passed for an entry: so many documents merged since it was queued, or the deadline. */
  private windowPassed(entry: Entry): boolean {
    return this.claims.releases - entry.sinceReleases >= this.window.merges || Date.now() - entry.since >= this.window.deadlineMs;
  }

  /** Embeds the texts of one kind of record in a workspace; resolves in the order given. */
  embed(scope: Scope, kind: VectorKind, items: QueuedText[], signal?: AbortSignal, lane: Lane = 'now'): Promise<Embedded[]> {
    throwIfAborted(signal);
    const workspace = `${scopeKey(scope)}\u0000`;
    const usage: UsageContext = { ...currentUsageContext(), workspace_id: scope.workspaceId, tenant_id: scope.tenantId };
    const all = Promise.all(
      items.map((item) => this.enqueue({ workspace, usage }, recordKey(scope, kind, item.id), item.text, { signal, lane })),
    );
    this.pump();
    return all;
  }

  /** Whether a text of the record is queued or being embedded. */
  has(scope: Scope, kind: VectorKind, id: string): boolean {
    const key = recordKey(scope, kind, id);
    return this.now.has(key) || this.later.has(key) || this.running.has(key);
  }

  /** Whether the record's last embedding (among the last LAST_TEXTS_KEPT records embedded) was of this text. */
  embeddedLast(scope: Scope, kind: VectorKind, id: string, text: string): boolean {
    return this.lastTexts.get(recordKey(scope, kind, id)) === text;
  }

  /** Resolves once nothing is queued or being embedded, refreshes sent at once meanwhile. */
  async settle(): Promise<void> {
    this.draining++;
    try {
      this.pump();
      while (this.now.size + this.later.size + this.running.size > 0) {
        await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
      }
    } finally {
      this.draining--;
    }
  }

  private enqueue(
    owner: Pick<Entry, 'workspace' | 'usage'>,
    key: string,
    text: string,
    request: { signal?: AbortSignal; lane: Lane },
  ): Promise<Embedded> {
    const { signal, lane } = request;
    const inFlight = this.running.get(key);
    if (inFlight?.text === text && inFlight.result) {
      inFlight.call?.hold(signal);
      return inFlight.result;
    }
    return new Promise<Embedded>((resolve, reject) => {
      const waiter = { resolve, reject, signal };
      const entry = this.now.get(key) ?? this.later.get(key);
      if (!entry) {
        const created: Entry = {
          key,
          ...owner,
          text,
          lane,
          since: Date.now(),
          sinceReleases: this.claims.releases,
          waiters: [waiter],
        };
        (lane === 'now' ? this.now : this.later).set(key, created);
        return;
      }
      entry.text = text;
      entry.waiters.push(waiter);
      if (lane === 'now' && entry.lane === 'later') {
        this.later.delete(key);
        entry.lane = 'now';
        this.now.set(key, entry);
      }
    });
  }

  /**
   * Sends full batches while slots are free, and a partial one only when nothing is being embedded; refreshes
   * join when the `now` lane is empty and nothing is out, or once they are due.
   */
  private pump(): void {
    while (this.active < this.concurrency) {
      const batch = this.nextBatch();
      if (batch.length === 0) break;
      for (const entry of batch) {
        (entry.lane === 'now' ? this.now : this.later).delete(entry.key);
        this.running.set(entry.key, entry);
      }
      this.active++;
      void this.run(batch);
    }
    this.schedule();
    if (this.active === 0 && this.now.size + this.later.size === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const wake of waiters) wake();
    }
  }

  private nextBatch(): Entry[] {
    const batch: Entry[] = [];
    const take = (entries: Iterable<Entry>, eligible: (e: Entry) => boolean) => {
      for (const entry of entries) {
        if (batch.length >= this.batchSize) return;
        if (batch.length > 0 && entry.workspace !== batch[0].workspace) continue;
        if (!this.running.has(entry.key) && eligible(entry)) batch.push(entry);
      }
    };
    take(this.now.values(), () => true);
    // No document left to merge: nothing would coalesce with them any more.
    const settled = this.claims.open === 0;
    take(this.later.values(), (e) => this.draining > 0 || settled || this.windowPassed(e));
    if (batch.length === 0) return batch;
    // A partial batch waits while a call is out: what arrives meanwhile joins it.
    const full = batch.length >= this.batchSize;
    const forced = this.draining > 0 || batch.some((e) => e.lane === 'later' && this.windowPassed(e));
    return full || forced || this.active === 0 ? batch : [];
  }

  /** Wakes the queue at its oldest refresh's deadline (documents merging wake it before that). */
  private schedule(): void {
    if (this.timer || this.later.size === 0) return;
    const oldest = this.later.values().next().value as Entry;
    const wait = Math.max(0, oldest.since + this.window.deadlineMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.pump();
    }, wait);
    this.timer.unref();
  }

  private async run(batch: Entry[]): Promise<void> {
    const shared = new SharedSignal(batch.flatMap((e) => e.waiters.map((w) => w.signal)));
    for (const entry of batch) entry.call = shared;
    const call = Promise.resolve()
      .then(() =>
        runInUsageContext(batch[0].usage, () =>
          this.provider.embed(
            batch.map((e) => e.text),
            shared.signal,
          ),
        ),
      )
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
        this.lastTexts.delete(entry.key);
        this.lastTexts.set(entry.key, entry.text);
        for (const w of entry.waiters) w.resolve({ vector: vectors[i], text: entry.text });
      });
      for (const key of this.lastTexts.keys()) {
        if (this.lastTexts.size <= LAST_TEXTS_KEPT) break;
        this.lastTexts.delete(key);
      }
    } catch (err) {
      for (const entry of batch) for (const w of entry.waiters) w.reject(err);
    } finally {
      for (const entry of batch) if (this.running.get(entry.key) === entry) this.running.delete(entry.key);
      this.active--;
      this.pump();
    }
  }
}

/**
 * The signal of a call several callers share: aborted once every caller's own signal is (a caller without one
 * always wants the answer), with the reason of the last. Callers joining the call later hold on to it too.
 */
class SharedSignal {
  private readonly controller = new AbortController();
  private readonly signals: AbortSignal[] = [];
  private forever = false;

  constructor(signals: Array<AbortSignal | undefined>) {
    for (const s of signals) this.hold(s);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  hold(signal: AbortSignal | undefined): void {
    if (this.controller.signal.aborted) return;
    if (!signal) {
      this.forever = true;
      return;
    }
    this.signals.push(signal);
    signal.addEventListener('abort', () => this.check(signal), { once: true });
    this.check(signal);
  }

  private check(last: AbortSignal): void {
    if (this.forever || this.controller.signal.aborted) return;
    if (this.signals.every((s) => s.aborted)) this.controller.abort(last.reason);
  }
}

/** The queues of the provider instances a runtime embeds with (the registry hands out one instance per provider and model). */
export class EmbeddingQueues {
  private readonly queues = new Map<EmbeddingProvider, EmbeddingQueue>();

  /** `claims`: those of the documents in flight in the runtime, the clock of the refresh window. */
  constructor(private readonly claims: MergeClaims) {}

  /** The queue of a provider instance. */
  of(provider: EmbeddingProvider, concurrency: number): EmbeddingQueue {
    let queue = this.queues.get(provider);
    if (!queue) {
      queue = new EmbeddingQueue(
        provider,
        Math.max(1, concurrency),
        provider.batchSize ?? DEFAULT_EMBED_BATCH_SIZE,
        REFRESH_WINDOW,
        this.claims,
      );
      this.queues.set(provider, queue);
    }
    return queue;
  }

  /** Waits until every queue is empty, refreshes sent at once (before the stores close). */
  async settle(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.settle()));
  }
}
