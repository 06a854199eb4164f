/**
 * How long this instance trusts what it read of records that change rarely (workspaces, tenants, budgets,
 * community reports). Writes through this instance forget the entry at once; writes through another instance
 * are seen once the entry is this old.
 */
export const READ_CACHE_TTL_MS = 2_000;

interface Entry<T> {
  value: Promise<T>;
  at: number;
}

/**
 * Per-instance read cache with a time to live. A read that was under way when its key was forgotten is not
 * kept, so a write is never hidden by a read that started before it.
 */
export class ReadCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private generation = 0;

  constructor(
    private readonly ttlMs = READ_CACHE_TTL_MS,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, load: () => Promise<T>): Promise<T> {
    const known = this.entries.get(key);
    if (known && Date.now() - known.at < this.ttlMs) return known.value;
    const generation = this.generation;
    const value = load();
    const entry = { value, at: Date.now() };
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, entry);
    value.then(
      () => {
        if (this.generation !== generation && this.entries.get(key) === entry) this.entries.delete(key);
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return value;
  }

  forget(key: string): void {
    this.generation++;
    this.entries.delete(key);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
