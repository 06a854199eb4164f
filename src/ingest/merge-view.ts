import { isChunkOf } from '../domain/ids';
import type { EntityRecord, RelationshipRecord, Scope } from '../domain/types';
import type { GraphStore, KeyValues, Stores } from '../store/ports';

/**
 * The graph and key-value store as a batch of merges sees them (./merge-batch.ts): each record is read from the
 * store once, every write lands here first, and `flush` writes what the batch left, each record once, in a few
 * statements. A merge run on the view reads the writes of the merges before it, as it would read the store after
 * them. Records and values are copied in and out, as a store would.
 */

/** What a merge reads and writes of the graph. */
export type MergeGraph = Pick<
  GraphStore,
  | 'entitiesOfDocument'
  | 'relationshipsOfDocument'
  | 'getEntities'
  | 'getRelationships'
  | 'upsertEntities'
  | 'upsertRelationships'
  | 'deleteRelationships'
  | 'deleteEntities'
>;

export interface MergeStores {
  graph: MergeGraph;
  kv: KeyValues;
}

/** Per id: the record as the batch has it, or null when absent (deleted by the batch, or not in the store). */
type Known<R> = Map<string, R | null>;

export class MergeView {
  /** Records read from the store (null: not there), not yet changed by the batch. */
  private readonly readEntities: Known<EntityRecord> = new Map();
  private readonly readRelationships: Known<RelationshipRecord> = new Map();
  /** Records the batch wrote (null: deleted). */
  private readonly entities: Known<EntityRecord> = new Map();
  private readonly relationships: Known<RelationshipRecord> = new Map();
  /** Per namespace, values read (null: absent) and values written (null: deleted). */
  private readonly readValues = new Map<string, Map<string, unknown>>();
  private readonly values = new Map<string, Map<string, unknown>>();

  readonly graph: MergeGraph;
  readonly kv: KeyValues;

  constructor(
    private readonly stores: Pick<Stores, 'graph' | 'kv'>,
    private readonly scope: Scope,
  ) {
    this.graph = {
      entitiesOfDocument: (scope, documentId) => this.ofDocument(scope, documentId, 'entity'),
      relationshipsOfDocument: (scope, documentId) => this.ofDocument(scope, documentId, 'relationship'),
      getEntities: (scope, ids) => this.records(scope, ids, 'entity'),
      getRelationships: (scope, ids) => this.records(scope, ids, 'relationship'),
      upsertEntities: async (scope, records) => {
        this.check(scope);
        for (const e of records) this.entities.set(e.id, structuredClone(e));
      },
      upsertRelationships: async (scope, records) => {
        this.check(scope);
        for (const r of records) this.relationships.set(r.id, structuredClone(r));
      },
      deleteRelationships: async (scope, ids) => {
        this.check(scope);
        for (const id of ids) this.relationships.set(id, null);
      },
      // As in the stores, an entity takes its relationships along.
      deleteEntities: async (scope, ids) => {
        this.check(scope);
        const gone = new Set(ids);
        for (const id of ids) this.entities.set(id, null);
        for (const known of [this.relationships, this.readRelationships])
          for (const [id, r] of known) if (r && (gone.has(r.source) || gone.has(r.target))) this.relationships.set(id, null);
      },
    };
    this.kv = {
      get: async <T>(scope: Scope, namespace: string, key: string) => (await this.getMany<T>(scope, namespace, [key])).get(key) ?? null,
      getMany: (scope, namespace, keys) => this.getMany(scope, namespace, keys),
      set: async (scope, namespace, key, value) => this.setMany(scope, namespace, [[key, value]]),
      setMany: async (scope, namespace, entries) => this.setMany(scope, namespace, entries),
      delete: async (scope, namespace, keys) => {
        this.check(scope);
        const written = this.namespace(this.values, namespace);
        for (const key of keys) written.set(key, null);
      },
    };
  }

  /** Writes what the batch changed: records first (relationships after the entities they join), then deletions, then values. */
  async flush(): Promise<void> {
    const { graph, kv } = this.stores;
    const scope = this.scope;
    const [upserted, deleted] = split(this.entities);
    const [related, unrelated] = split(this.relationships);
    await graph.upsertEntities(scope, upserted);
    await graph.upsertRelationships(scope, related);
    await graph.deleteRelationships(scope, unrelated);
    await graph.deleteEntities(scope, deleted);
    for (const [namespace, written] of this.values) {
      const entries = [...written].filter(([, value]) => value !== null);
      const gone = [...written].filter(([, value]) => value === null).map(([key]) => key);
      if (entries.length) await kv.setMany(scope, namespace, entries);
      if (gone.length) await kv.delete(scope, namespace, gone);
    }
  }

  private check(scope: Scope): void {
    if (scope.workspaceId !== this.scope.workspaceId || (scope.tenantId ?? null) !== (this.scope.tenantId ?? null))
      throw new Error('a merge batch is bound to one workspace');
  }

  private async records<K extends 'entity' | 'relationship'>(
    scope: Scope,
    ids: string[],
    kind: K,
  ): Promise<Array<K extends 'entity' ? EntityRecord : RelationshipRecord>> {
    this.check(scope);
    type R = K extends 'entity' ? EntityRecord : RelationshipRecord;
    const written = (kind === 'entity' ? this.entities : this.relationships) as Known<R>;
    const read = (kind === 'entity' ? this.readEntities : this.readRelationships) as Known<R>;
    const missing = [...new Set(ids.filter((id) => !written.has(id) && !read.has(id)))];
    if (missing.length) {
      const fetched = (
        kind === 'entity' ? await this.stores.graph.getEntities(scope, missing) : await this.stores.graph.getRelationships(scope, missing)
      ) as R[];
      for (const id of missing) read.set(id, null);
      for (const r of fetched) read.set(r.id, r);
    }
    const out: R[] = [];
    for (const id of ids) {
      const r = written.has(id) ? written.get(id) : read.get(id);
      if (r) out.push(structuredClone(r));
    }
    return out;
  }

  /** The store's records of the document as the batch left them, and those the batch gave its chunks. */
  private async ofDocument<K extends 'entity' | 'relationship'>(
    scope: Scope,
    documentId: string,
    kind: K,
  ): Promise<Array<K extends 'entity' ? EntityRecord : RelationshipRecord>> {
    this.check(scope);
    const stored =
      kind === 'entity'
        ? await this.stores.graph.entitiesOfDocument(scope, documentId)
        : await this.stores.graph.relationshipsOfDocument(scope, documentId);
    const written = kind === 'entity' ? this.entities : this.relationships;
    const cites = (r: EntityRecord | RelationshipRecord) => r.source_chunk_ids.some((c) => isChunkOf(c, documentId));
    const ids = new Set(stored.map((r) => r.id));
    for (const [id, r] of written) if (r && cites(r)) ids.add(id);
    return this.records(scope, [...ids], kind);
  }

  private async getMany<T>(scope: Scope, namespace: string, keys: string[]): Promise<Map<string, T>> {
    this.check(scope);
    const written = this.namespace(this.values, namespace);
    const read = this.namespace(this.readValues, namespace);
    const missing = [...new Set(keys.filter((key) => !written.has(key) && !read.has(key)))];
    if (missing.length) {
      const fetched = await this.stores.kv.getMany<T>(scope, namespace, missing);
      for (const key of missing) read.set(key, fetched.has(key) ? fetched.get(key) : null);
    }
    const out = new Map<string, T>();
    for (const key of keys) {
      const value = written.has(key) ? written.get(key) : read.get(key);
      if (value !== null && value !== undefined) out.set(key, structuredClone(value) as T);
    }
    return out;
  }

  private setMany(scope: Scope, namespace: string, entries: Array<[string, unknown]>): void {
    this.check(scope);
    const written = this.namespace(this.values, namespace);
    for (const [key, value] of entries) written.set(key, structuredClone(value));
  }

  private namespace(all: Map<string, Map<string, unknown>>, namespace: string): Map<string, unknown> {
    let map = all.get(namespace);
    if (!map) all.set(namespace, (map = new Map()));
    return map;
  }
}

/** The records written, and the ids deleted. */
function split<R>(known: Known<R>): [R[], string[]] {
  const kept: R[] = [];
  const gone: string[] = [];
  for (const [id, r] of known) {
    if (r) kept.push(r);
    else gone.push(id);
  }
  return [kept, gone];
}
