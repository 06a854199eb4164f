import { scopeKey } from '../../domain/ids';
import type { Scope, VectorKind } from '../../domain/types';

/**
 * The records documents in flight are about to merge. A document claims the entities and relationships each of
 * its chunks names as soon as an extraction pass finds them, and gives the claim up once its merge has written
 * and summarised them and queued their texts (or once it stops). The embedding queue holds a record's embedding while documents that
 * claimed it before it was queued still have to merge it: their merges change its text, and it is embedded
 * once, with the text of the last (./queue.ts).
 */

export class MergeClaim {
  private readonly keys = new Set<string>();
  private open = true;
  private readonly ended: Promise<void>;
  private end!: () => void;

  constructor(
    private readonly registry: MergeClaims,
    readonly scope: Scope,
  ) {
    this.ended = new Promise<void>((resolve) => (this.end = resolve));
  }

  /** Resolves once the claim is given up. */
  get done(): Promise<void> {
    return this.ended;
  }

  /** Claims more records; nothing once the claim is given up. */
  add(kind: VectorKind, ids: Iterable<string>): void {
    if (!this.open) return;
    for (const id of ids) {
      const key = recordKey(this.scope, kind, id);
      if (this.keys.has(key)) continue;
      this.keys.add(key);
      this.registry.hold(key, this);
    }
  }

  /** Gives the claim up (again is a no-op). */
  release(): void {
    if (!this.open) return;
    this.open = false;
    for (const key of this.keys) this.registry.drop(key, this);
    this.keys.clear();
    this.end();
    this.registry.released();
  }
}

export class MergeClaims {
  private readonly holders = new Map<string, Set<MergeClaim>>();
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

  claim(scope: Scope): MergeClaim {
    this.opened++;
    return new MergeClaim(this, scope);
  }

  /** Claims open now: documents in flight that have not merged yet. */
  get open(): number {
    return this.opened - this.given;
  }

  /** The claims open on a record now. */
  claimants(key: string): MergeClaim[] {
    return [...(this.holders.get(key) ?? [])];
  }

  /** Whether a claim other than `except` is open on the record. */
  claimed(scope: Scope, kind: VectorKind, id: string, except?: MergeClaim): boolean {
    const set = this.holders.get(recordKey(scope, kind, id));
    return !!set && (set.size > 1 || !except || !set.has(except));
  }

  /** @internal */
  hold(key: string, claim: MergeClaim): void {
    const set = this.holders.get(key);
    if (set) set.add(claim);
    else this.holders.set(key, new Set([claim]));
  }

  /** @internal */
  released(): void {
    this.given++;
    for (const listener of this.listeners) listener();
  }

  /** @internal */
  drop(key: string, claim: MergeClaim): void {
    const set = this.holders.get(key);
    if (!set) return;
    set.delete(claim);
    if (set.size === 0) this.holders.delete(key);
  }
}

/** The key of a record in a workspace, as the embedding queue keys its entries. */
export function recordKey(scope: Scope, kind: VectorKind, id: string): string {
  return `${scopeKey(scope)}\u0000${kind}\u0000${id}`;
}
