import { ConflictError } from '../../domain/errors';
import type { Page } from '../../domain/types';
import { type AccountStores, buildAccountStores, type FlatRecord, matchesRecord as matches, type RecordCollection } from '../ports';

function field(record: FlatRecord, key: string): unknown {
  return (record as unknown as Record<string, unknown>)[key];
}

function byCreation(a: FlatRecord, b: FlatRecord): number {
  return a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Account records in process memory (embedded mode); flat records are copied by spreading. */
export class MemoryRecordCollection<T extends FlatRecord> implements RecordCollection<T> {
  private readonly records = new Map<string, T>();

  constructor(
    private readonly label: string,
    private readonly unique: string[][],
  ) {}

  /** The unique fields another record already holds with the candidate's values, or null. */
  private clash(candidate: T): string[] | null {
    for (const fields of this.unique) {
      for (const other of this.records.values()) {
        if (other.id !== candidate.id && fields.every((f) => field(other, f) === field(candidate, f))) return fields;
      }
    }
    return null;
  }

  async insert(record: T): Promise<void> {
    const fields = this.records.has(record.id) ? ['id'] : this.clash(record);
    if (fields) throw new ConflictError(`a ${this.label} with this ${fields.join(' and ')} already exists`);
    this.records.set(record.id, { ...record });
  }

  async get(id: string): Promise<T | null> {
    const record = this.records.get(id);
    return record ? { ...record } : null;
  }

  async findOne(filter: Partial<T>): Promise<T | null> {
    const found = [...this.records.values()].filter((r) => matches(r, filter)).sort(byCreation)[0];
    return found ? { ...found } : null;
  }

  async list(filter: Partial<T>, page: { limit: number; offset: number }): Promise<Page<T>> {
    const all = [...this.records.values()].filter((r) => matches(r, filter)).sort(byCreation);
    return { items: all.slice(page.offset, page.offset + page.limit).map((r) => ({ ...r })), total: all.length };
  }

  async count(filter: Partial<T>): Promise<number> {
    let n = 0;
    for (const record of this.records.values()) if (matches(record, filter)) n += 1;
    return n;
  }

  async update(id: string, patch: Partial<T>): Promise<T | null> {
    return this.updateIf(id, {}, patch);
  }

  async updateIf(id: string, expected: Partial<T>, patch: Partial<T>): Promise<T | null> {
    const current = this.records.get(id);
    if (!current || !matches(current, expected)) return null;
    const next = { ...current, ...patch, id };
    const fields = this.clash(next);
    if (fields) throw new ConflictError(`a ${this.label} with this ${fields.join(' and ')} already exists`);
    this.records.set(id, next);
    return { ...next };
  }

  async delete(id: string): Promise<boolean> {
    return this.records.delete(id);
  }

  async deleteWhere(filter: Partial<T>): Promise<number> {
    let n = 0;
    for (const [id, record] of this.records) {
      if (matches(record, filter)) {
        this.records.delete(id);
        n += 1;
      }
    }
    return n;
  }

  clear(): void {
    this.records.clear();
  }
}

export function createMemoryAccounts(): AccountStores & { clear(): void } {
  const made: Array<MemoryRecordCollection<FlatRecord>> = [];
  const stores = buildAccountStores((label, unique) => {
    const collection = new MemoryRecordCollection<FlatRecord>(label, unique);
    made.push(collection);
    return collection;
  });
  return {
    ...stores,
    clear() {
      for (const collection of made) collection.clear();
    },
  };
}
