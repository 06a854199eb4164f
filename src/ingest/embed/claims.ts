import { scopeKey } from '../../domain/ids';
import type { Scope, VectorKind } from '../../domain/types';

/**
 * The documents in flight, counted. A document opens a claim when its run starts and gives it up once its merge has
 * written and summarised its records and queued their texts (or once it stops). The embedding queue counts its
 * refresh window in claims given up, and sends refreshes once none is open (./queue.ts); the resolution stage's
 * verdict queue waits on them too. A claim names no records: holding a record's text until the documents that named
 * it had merged made how many texts coalesce follow how many documents waited between extraction and merge, which
 * is the machine's load (docs/benchmarks.md, the generated corpus at load average 8 to 9).
 */

export class MergeClaim {
  private open = true;
  private readonly ended: Promise<void>;
  private end!: () => void;

  constructor(private readonly registry: MergeClaims) {
    this.ended = new Promise<void>((resolve) => (this.end = resolve));
  }

  /** Resolves once the claim is given up. */
  get done(): Promise<void> {
    return this.ended;
  }

  /** Gives the claim up (again is a no-op). */
  release(): void {
    if (!this.open) return;
    this.open = false;
    this.end();
    this.registry.released();
  }
}

export class MergeClaims {
  private readonly listeners = new Set<() => void>();
  private given = 0;
  private opened = 0;

  /**
   * Claims given up so far in the runtime: one a document merged (or stopped). The embedding queue counts its
   * refresh window in these, so that how often a record is re-embedded follows the documents, not the clock.
   */
  get releases(): number {
    return this.given;
  }

  /** Calls `listener` after each claim given up; returns the unsubscribe. */
  onRelease(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  claim(): MergeClaim {
    this.opened++;
    return new MergeClaim(this);
  }

  /** Claims open now: documents in flight that have not merged yet. */
  get open(): number {
    return this.opened - this.given;
  }

  /** @internal */
  released(): void {
    this.given++;
    for (const listener of this.listeners) listener();
  }
}

/** The key of a record in a workspace, as the embedding queue keys its entries. */
export function recordKey(scope: Scope, kind: VectorKind, id: string): string {
  return `${scopeKey(scope)}\u0000${kind}\u0000${id}`;
}
