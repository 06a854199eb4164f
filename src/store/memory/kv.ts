import { TimeSlicer } from '../../domain/turns';
import type { Scope } from '../../domain/types';
import type { KeyValueStore } from '../ports';
import { WorkspaceStates } from './workspaces';

/** namespace -> key -> value. Values are cloned in and out, so they behave like stored JSON. */
type Namespaces = Map<string, Map<string, unknown>>;

export class MemoryKeyValueStore implements KeyValueStore {
  private readonly workspaces = new WorkspaceStates<Namespaces>(() => new Map());

  async get<T>(scope: Scope, namespace: string, key: string): Promise<T | null> {
    const values = this.workspaces.find(scope)?.get(namespace);
    return values?.has(key) ? (structuredClone(values.get(key)) as T) : null;
  }

  /** Only keys that hold a value are in the map. */
  async getMany<T>(scope: Scope, namespace: string, keys: string[]): Promise<Map<string, T>> {
    const values = this.workspaces.find(scope)?.get(namespace);
    const found = new Map<string, T>();
    if (!values) return found;
    // Thousands of values are cloned in stretches of a few milliseconds, giving way to I/O between them.
    const slicer = new TimeSlicer();
    for (const key of keys) {
      await slicer.tick();
      if (values.has(key)) found.set(key, structuredClone(values.get(key)) as T);
    }
    return found;
  }

  async set(scope: Scope, namespace: string, key: string, value: unknown): Promise<void> {
    const namespaces = this.workspaces.obtain(scope);
    let values = namespaces.get(namespace);
    if (!values) namespaces.set(namespace, (values = new Map()));
    values.set(key, structuredClone(value));
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
