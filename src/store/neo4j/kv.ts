import type { Scope } from '../../domain/types';
import type { KeyValueStore } from '../ports';
import { type Neo4jClient, scopeParams } from './client';
import { num } from './values';

/** `(:KV {workspace_id, namespace, key, value})` with the value as JSON text. */
export class Neo4jKeyValueStore implements KeyValueStore {
  constructor(private readonly db: Neo4jClient) {}

  async get<T>(scope: Scope, namespace: string, key: string): Promise<T | null> {
    return (await this.getMany<T>(scope, namespace, [key])).get(key) ?? null;
  }

  /** Only keys that hold a value are in the map. */
  async getMany<T>(scope: Scope, namespace: string, keys: string[]): Promise<Map<string, T>> {
    const found = new Map<string, T>();
    if (keys.length === 0) return found;
    const rows = await this.db.readRows('kv/get-many', { ...scopeParams(scope), namespace, keys: [...new Set(keys)] });
    for (const row of rows) found.set(String(row.key), JSON.parse(String(row.value)) as T);
    return found;
  }

  async set(scope: Scope, namespace: string, key: string, value: unknown): Promise<void> {
    await this.db.writeRows('kv/set', { ...scopeParams(scope), namespace, key, value: JSON.stringify(value) ?? 'null' });
  }

  async setMany(scope: Scope, namespace: string, entries: Array<[string, unknown]>): Promise<void> {
    if (entries.length === 0) return;
    const values = new Map(entries.map(([key, value]) => [key, JSON.stringify(value) ?? 'null']));
    const rows = [...values].map(([key, value]) => ({ key, value }));
    await this.db.writeRows('kv/set-many', { ...scopeParams(scope), namespace, rows });
  }

  async delete(scope: Scope, namespace: string, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.db.writeRows('kv/delete', { ...scopeParams(scope), namespace, keys });
  }

  async count(scope: Scope, namespace: string): Promise<number> {
    const [row] = await this.db.readRows('kv/count', { ...scopeParams(scope), namespace });
    return num(row?.total);
  }
}
