import { compareIds } from './records';

/**
 * Ids sorted once and reused until the membership changes, overall and per type: listing pages of a large
 * graph then costs a slice, not a sort.
 */
export class OrderedIds {
  private all: string[] | null = null;
  private readonly byType = new Map<string, string[]>();

  constructor(
    private readonly ids: () => Iterable<string>,
    private readonly typeOf: (id: string) => string,
  ) {}

  sorted(): string[] {
    this.all ??= [...this.ids()].sort(compareIds);
    return this.all;
  }

  ofType(type: string): string[] {
    let ids = this.byType.get(type);
    if (!ids) {
      ids = this.sorted().filter((id) => this.typeOf(id) === type);
      this.byType.set(type, ids);
    }
    return ids;
  }

  /** After an id was added or removed. */
  invalidate(): void {
    this.all = null;
    this.byType.clear();
  }

  /** After a type changed: the overall order still holds. */
  invalidateTypes(...types: string[]): void {
    for (const type of types) this.byType.delete(type);
  }
}

/** Occurrences per key, without zero entries. */
export class Tally {
  private readonly counts = new Map<string, number>();

  add(key: string, delta: number): void {
    const next = (this.counts.get(key) ?? 0) + delta;
    if (next === 0) this.counts.delete(key);
    else this.counts.set(key, next);
  }

  toRecord(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }
}

/** document id -> ids of the records that name it among their sources. */
export class DocumentIndex {
  private readonly ids = new Map<string, Set<string>>();

  add(documentIds: readonly string[], id: string): void {
    for (const documentId of documentIds) {
      let set = this.ids.get(documentId);
      if (!set) this.ids.set(documentId, (set = new Set()));
      set.add(id);
    }
  }

  remove(documentIds: readonly string[], id: string): void {
    for (const documentId of documentIds) {
      const set = this.ids.get(documentId);
      set?.delete(id);
      if (set?.size === 0) this.ids.delete(documentId);
    }
  }

  of(documentId: string): string[] {
    return [...(this.ids.get(documentId) ?? [])].sort(compareIds);
  }
}
