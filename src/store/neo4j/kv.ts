import type { Scope } from '../../domain/types';
import type { KeyValueStore } from '../ports';
import { type Neo4jClient, scopeParams } from './client';
import { GroupCommit } from './group-commit';
import { scopeKey } from '../../domain/ids';
import { num } from './values';

interface LaneCall {
  scope: Scope;
  namespace: string;
}
type WriteCall = LaneCall & { key: string; value: string };
type ReadCall = LaneCall & { keys: string[] };

/**
 * `(:KV {workspace_id, namespace, key, value})` with the value as JSON text. Single-key writes and reads of one
 * workspace and namespace that arrive while another is under way go together as one statement (./group-commit.ts):
 * the LLM response cache writes and reads one key per call, from every document in flight.
 */
export class Neo4jKeyValueStore implements KeyValueStore {
  private readonly writes: GroupCommit<WriteCall, void>;
  private readonly reads: GroupCommit<ReadCall, Map<string, unknown>>;

  constructor(private readonly db: Neo4jClient) {
    this.writes = GroupCommit.ofWrites<WriteCall>((calls) => this.write(calls[0], new Map(calls.map((c) => [c.key, c.value]))));
    this.reads = new GroupCommit(async (calls) => {
      const found = await this.read(calls[0], new Set(calls.flatMap((c) => c.keys)));
      return calls.map((c) => parsed(found, c.keys));
    });
  }

  async get<T>(scope: Scope, namespace: string, key: string): Promise<T | null> {
    return (await this.getMany<T>(scope, namespace, [key])).get(key) ?? null;
  }

  /** Only keys that hold a value are in the map. */
  async getMany<T>(scope: Scope, namespace: string, keys: string[]): Promise<Map<string, T>> {
    if (keys.length === 0) return new Map();
    return (await this.reads.submit(lane(scope, namespace), { scope, namespace, keys })) as Map<string, T>;
  }

  set(scope: Scope, namespace: string, key: string, value: unknown): Promise<void> {
    return this.writes.submit(lane(scope, namespace), { scope, namespace, key, value: JSON.stringify(value) ?? 'null' });
  }

  async setMany(scope: Scope, namespace: string, entries: Array<[string, unknown]>): Promise<void> {
    if (entries.length === 0) return;
    await this.write({ scope, namespace }, new Map(entries.map(([key, value]) => [key, JSON.stringify(value) ?? 'null'])));
  }

  async delete(scope: Scope, namespace: string, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.db.writeRows('kv/delete', { ...scopeParams(scope), namespace, keys });
  }

  async count(scope: Scope, namespace: string): Promise<number> {
    const [row] = await this.db.readRows('kv/count', { ...scopeParams(scope), namespace });
    return num(row?.total);
  }

  /** One statement; a key given twice keeps its last value (a Map keeps the last one set). */
  private async write({ scope, namespace }: LaneCall, values: Map<string, string>): Promise<void> {
    const rows = [...values].map(([key, value]) => ({ key, value }));
    await this.db.writeRows('kv/set-many', { ...scopeParams(scope), namespace, rows });
  }

  /** The JSON text of the keys that hold a value. */
  private async read({ scope, namespace }: LaneCall, keys: Set<string>): Promise<Map<string, string>> {
    const rows = await this.db.readRows('kv/get-many', { ...scopeParams(scope), namespace, keys: [...keys] });
    return new Map(rows.map((row) => [String(row.key), String(row.value)]));
  }
}

/** The values of `keys` found, parsed for one caller alone: callers may change what they read. */
function parsed(found: Map<string, string>, keys: string[]): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const key of keys) {
    const text = found.get(key);
    if (text !== undefined) out.set(key, JSON.parse(text));
  }
  return out;
}

const lane = (scope: Scope, namespace: string) => `${scopeKey(scope)}\u0000${namespace}`;
