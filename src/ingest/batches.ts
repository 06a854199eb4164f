import { scopeKey } from '../domain/ids';
import type { Scope } from '../domain/types';

/**
 * How the items of one kind are committed in batches: stateless, declared once by the module that batches them.
 * The queues of a kind live in a WorkspaceBatches of each runtime (RuntimeBatches.of).
 */
export interface BatchKind<D, T> {
  /** Commits a batch: settles every item of it and never throws. */
  commit(deps: D, scope: Scope, batch: T[]): Promise<void>;
  /** How many of the items waiting the next batch takes (at least the first); all of them when absent. */
  take?(deps: D, waiting: T[]): number;
}

/**
 * Work of a workspace committed in batches, as a database commits a group of transactions: an item that arrives
 * while a batch of its workspace is committing waits for that batch, then goes with the items that arrived
 * meanwhile. Queues are kept per workspace, present only while a batch commits.
 */
export class WorkspaceBatches<D, T> {
  private readonly queues = new Map<string, T[]>();
  private readonly draining = new Set<Promise<void>>();

  constructor(private readonly kind: BatchKind<D, T>) {}

  add(deps: D, scope: Scope, item: T): void {
    const key = scopeKey(scope);
    const queue = this.queues.get(key);
    if (queue) queue.push(item);
    else {
      this.queues.set(key, [item]);
      const drained = this.drain(deps, scope, key);
      this.draining.add(drained);
      void drained.finally(() => this.draining.delete(drained));
    }
  }

  /** Whether a batch of this kind is committing or waiting. */
  get busy(): boolean {
    return this.draining.size > 0;
  }

  /** Waits until no batch of this kind is committing or waiting. */
  async settle(): Promise<void> {
    while (this.busy) await Promise.all([...this.draining]);
  }

  private async drain(deps: D, scope: Scope, key: string): Promise<void> {
    for (;;) {
      const queue = this.queues.get(key) as T[];
      if (queue.length === 0) {
        this.queues.delete(key);
        return;
      }
      const take = this.kind.take ? this.kind.take(deps, queue) : queue.length;
      await this.kind.commit(deps, scope, queue.splice(0, Math.max(1, take)));
    }
  }
}

/** The batch queues of one runtime (on its ingest state): one WorkspaceBatches per kind, made when first used. */
export class RuntimeBatches {
  private readonly kinds = new Map<object, WorkspaceBatches<unknown, unknown>>();

  of<D, T>(kind: BatchKind<D, T>): WorkspaceBatches<D, T> {
    let batches = this.kinds.get(kind) as WorkspaceBatches<D, T> | undefined;
    if (!batches) this.kinds.set(kind, (batches = new WorkspaceBatches(kind)) as unknown as WorkspaceBatches<unknown, unknown>);
    return batches;
  }

  /** Whether a batch of any kind is committing or waiting. */
  get busy(): boolean {
    return [...this.kinds.values()].some((batches) => batches.busy);
  }

  /** Waits until no batch of any kind is committing or waiting. */
  async settle(): Promise<void> {
    while (this.busy) await Promise.all([...this.kinds.values()].map((batches) => batches.settle()));
  }
}
