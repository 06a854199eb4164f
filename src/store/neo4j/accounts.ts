import { ConflictError } from '../../domain/errors';
import type { Page } from '../../domain/types';
import { type AccountStores, buildAccountStores, type FlatRecord, matchesRecord as matches, type RecordCollection } from '../ports';
import type { CypherTransaction, Neo4jClient } from './client';
import { ReadCache } from './read-cache';
import { count, num } from './values';

/** Non-null fields become node properties (Neo4j keeps no nulls); the record itself travels as JSON. */
function fieldsOf(record: FlatRecord): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record as object)) if (value !== null && value !== undefined) fields[key] = value;
  return fields;
}

function filterOf(filter: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined));
}

function parse<T>(record: unknown): T | null {
  return typeof record === 'string' ? (JSON.parse(record) as T) : null;
}

function isConstraintViolation(err: unknown): boolean {
  return (err as { code?: string })?.code === 'Neo.ClientError.Schema.ConstraintValidationFailed';
}

/** Every request reads its workspace and tenant: those records are cached per instance (read-cache.ts). */
const CACHED_LABELS = new Set(['Tenant', 'Workspace']);

/** Account records as `(:Tenant)`, `(:Workspace)`, ... nodes; constraints (migration 004) keep unique fields unique. */
export class Neo4jRecordCollection<T extends FlatRecord> implements RecordCollection<T> {
  private readonly cache: ReadCache<T | null> | null;

  constructor(
    private readonly db: Neo4jClient,
    private readonly label: string,
  ) {
    this.cache = CACHED_LABELS.has(label) ? new ReadCache() : null;
  }

  private run(tx: CypherTransaction, name: string, params: Record<string, unknown>) {
    return tx.runTemplate(`records/${name}`, { LABEL: this.label }, params);
  }

  /** A filtered statement: matched through the first non-null field (its index), the rest checked after. */
  private runFiltered(tx: CypherTransaction, name: 'list' | 'count' | 'delete', filter: object, params: Record<string, unknown> = {}) {
    const fields = filterOf(filter);
    const key = Object.keys(fields).find((k) => fields[k] !== null);
    if (key === undefined) return this.run(tx, name, { ...params, filter: fields });
    return tx.runTemplate(`records/${name}-by`, { LABEL: this.label, KEY: key }, { ...params, value: fields[key], filter: fields });
  }

  private async writing<R>(work: (tx: CypherTransaction) => Promise<R>): Promise<R> {
    this.cache?.clear();
    try {
      return await this.db.write(work);
    } catch (err) {
      if (isConstraintViolation(err)) throw new ConflictError(`a ${this.label} with these values already exists`);
      throw err;
    } finally {
      this.cache?.clear();
    }
  }

  async insert(record: T): Promise<void> {
    await this.writing((tx) => this.run(tx, 'insert', { fields: fieldsOf(record), record: JSON.stringify(record) }));
  }

  async get(id: string): Promise<T | null> {
    const read = async () => parse<T>((await this.db.readRows('records/get', { id }, { LABEL: this.label }))[0]?.record);
    const record = this.cache ? await this.cache.get(id, read) : await read();
    return record ? { ...record } : null;
  }

  async findOne(filter: Partial<T>): Promise<T | null> {
    return (await this.list(filter, { limit: 1, offset: 0 })).items[0] ?? null;
  }

  async list(filter: Partial<T>, page: { limit: number; offset: number }): Promise<Page<T>> {
    const [row] = await this.db.read((tx) =>
      this.runFiltered(tx, 'list', filter, { offset: count(page.offset), limit: count(page.limit) }),
    );
    const records = (row?.records as unknown[] | undefined) ?? [];
    return { items: records.map((r) => parse<T>(r) as T), total: num(row?.total) };
  }

  async count(filter: Partial<T>): Promise<number> {
    const [row] = await this.db.read((tx) => this.runFiltered(tx, 'count', filter));
    return num(row?.total);
  }

  async update(id: string, patch: Partial<T>): Promise<T | null> {
    return this.updateIf(id, {}, patch);
  }

  async updateIf(id: string, expected: Partial<T>, patch: Partial<T>): Promise<T | null> {
    return this.writing(async (tx) => {
      // The record is read under its write lock, so a concurrent update cannot be lost or both checks pass.
      await this.run(tx, 'lock', { id });
      const [row] = await this.run(tx, 'get', { id });
      const current = parse<T>(row?.record);
      if (!current || !matches(current, expected)) return null;
      const next = { ...current, ...filterOf(patch), id } as T;
      await this.run(tx, 'replace', { id, fields: fieldsOf(next), record: JSON.stringify(next) });
      return next;
    });
  }

  async delete(id: string): Promise<boolean> {
    return (await this.deleteWhere({ id } as Partial<T>)) > 0;
  }

  async deleteWhere(filter: Partial<T>): Promise<number> {
    const [row] = await this.writing((tx) => this.runFiltered(tx, 'delete', filter));
    return num(row?.deleted);
  }
}

export function createNeo4jAccounts(db: Neo4jClient): AccountStores {
  return buildAccountStores((label) => new Neo4jRecordCollection(db, label));
}
