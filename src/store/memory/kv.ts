import { TimeSlicer } from '../../domain/turns';
import type { Scope } from '../../domain/types';
import type { KeyValueStore } from '../ports';
import { WorkspaceStates } from './workspaces';

/**
 * namespace -> key -> value as JSON text, as the Neo4j store keeps it: a value read back is a new copy, and it
 * holds about its JSON size (extraction records and cached LLM answers are most of what a note leaves behind).
 */
type Namespaces = Map<string, Map<string, string>>;

function stored(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

export class MemoryKeyValueStore implements KeyValueStore {
  private readonly workspaces = new WorkspaceStates<Namespaces>(() => new Map());

  async get<T>(scope: Scope, namespace: string, key: string): Promise<T | null> {
    const values = this.workspaces.find(scope)?.get(namespace);
    const text = values?.get(key);
    return text === undefined ? null : (JSON.parse(text) as T);
  }

  /** Only keys that hold a value are in the map. */
  async getMany<T>(scope: Scope, namespace: string, keys: string[]): Promise<Map<string, T>> {
    const values = this.workspaces.find(scope)?.get(namespace);
    const found = new Map<string, T>();
    if (!values) return found;
    // Thousands of values are parsed in stretches of a few milliseconds, giving way to I/O between them.
    const slicer = new TimeSlicer();
    for (const key of keys) {
      await slicer.tick();
      const text = values.get(key);
      if (text !== undefined) found.set(key, JSON.parse(text) as T);
    }
    return found;
  }

  async set(scope: Scope, namespace: string, key: string, value: unknown): Promise<void> {
    const namespaces = this.workspaces.obtain(scope);
    let values = namespaces.get(namespace);
    if (!values) namespaces.set(namespace, (values = new Map()));
    values.set(key, stored(value));
  }

  async setMany(scope: Scope, namespace: string, entries: Array<[string, unknown]>): Promise<void> {
    for (const [key, value] of entries) await this.set(scope, namespace, key, value);
  }

  async delete(scope: Scope, namespace: string, keys: string[]): Promise<void> {
    const namespaces = this.workspaces.find(scope);
    const values = namespaces?.get(namespace);
    if (!namespaces || !values) return;
    for (const key of keys) values.delete(key);
    if (values.size === 0) namespaces.delete(namespace);
  }

  async count(scope: Scope, namespace: string): Promise<number> {
    return this.workspaces.find(scope)?.get(namespace)?.size ?? 0;
  }

  dropWorkspace(scope: Scope): void {
    this.workspaces.drop(scope);
  }

  clear(): void {
    this.workspaces.clear();
  }
}
