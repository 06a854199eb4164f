import { scopeKey } from '../domain/ids';
import type { Scope, VectorKind } from '../domain/types';

/**
 * The records documents in flight are about to merge. A document claims the entities and relationships each of
 * its chunks names as soon as an extraction pass finds them, and gives the claim up once its merge has written
 * and summarised them and queued their texts (or once it stops). Until its extraction is over it is still
 * naming: any record of its workspace may yet be among those it claims. The embedding queue holds a record's
 * embedding while documents that claimed it before it was queued still have to merge it, and while documents
 * that were naming then may still claim it: their merges change its text, and it is embedded once, with the
 * text of the last (./embed-queue.ts).
 */

export class MergeClaim {
  private readonly keys = new Set<string>();
  private open = true;
  private naming = true;
  private readonly ended: Promise<void>;
  private end!: () => void;
  private readonly namingOver: Promise<void>;
  private endNaming!: () => void;

  constructor(
    private readonly registry: MergeClaims,
    readonly scope: Scope,
  ) {
    this.ended = new Promise<void>((resolve) => (this.end = resolve));
    this.namingOver = new Promise<void>((resolve) => (this.endNaming = resolve));
  }

  /** Resolves once the claim is given up. */
  get done(): Promise<void> {
    return this.ended;
  }

  /** The document's extraction is over: what it claims now is all it will claim. */
  named(): void {
    if (!this.naming) return;
    this.naming = false;
    this.registry.stopNaming(this);
    this.endNaming();
  }

  /** Resolves once the document can no longer change the record: named all else, or given it up. */
  async settled(key: string): Promise<void> {
    await Promise.race([this.namingOver, this.ended]);
    if (this.keys.has(key)) await this.ended;
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
    this.named();
    this.open = false;
    for (const key of this.keys) this.registry.drop(key, this);
    this.keys.clear();
    this.end();
  }
}

export class MergeClaims {
  private readonly holders = new Map<string, Set<MergeClaim>>();
  /** The claims still naming, by workspace (scopeKey). */
  private readonly naming = new Map<string, Set<MergeClaim>>();

  /** A document's claim, naming until its extraction is over (MergeClaim.named). */
  claim(scope: Scope): MergeClaim {
    const claim = new MergeClaim(this, scope);
    const key = scopeKey(scope);
    const set = this.naming.get(key);
    if (set) set.add(claim);
    else this.naming.set(key, new Set([claim]));
    return claim;
  }

  /** The claims open on a record now. */
  claimants(key: string): MergeClaim[] {
    return [...(this.holders.get(key) ?? [])];
  }

  /** The claims that may still change a record of the workspace: open on it, or still naming. */
  pending(workspace: string, key: string): MergeClaim[] {
    return [...new Set([...this.claimants(key), ...(this.naming.get(workspace) ?? [])])];
  }

  /** Whether a document of the workspace other than `except` is still naming. */
  othersNaming(scope: Scope, except?: MergeClaim): boolean {
    const set = this.naming.get(scopeKey(scope));
    return !!set && (set.size > 1 || !except || !set.has(except));
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
  stopNaming(claim: MergeClaim): void {
    const key = scopeKey(claim.scope);
    const set = this.naming.get(key);
    if (!set) return;
    set.delete(claim);
    if (set.size === 0) this.naming.delete(key);
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

/** The claims of the documents in flight in this process. */
export const mergeClaims = new MergeClaims();
