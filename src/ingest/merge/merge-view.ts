import { isChunkOf } from '../../domain/ids';
import type { EntityRecord, RelationshipRecord, Scope } from '../../domain/types';
import type { GraphStore, KeyValues, Stores } from '../../store/ports';

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

/**
 * Values by key as a batch sees them: each read once from the store (`fetch`), every write kept here. A value of
 * null is absent: not in the store, or deleted by the batch. Values are copied in and out.
 */
class WriteBack<V> {
  /** Read from the store and not yet changed by the batch. */
  private readonly read = new Map<string, V | null>();
  /** Written by the batch. */
  readonly written = new Map<string, V | null>();

  constructor(
    private readonly fetch: (keys: string[]) => Promise<Map<string, V>>,
    private readonly copy: (value: V) => V = structuredClone,
  ) {}

  async get(keys: string[]): Promise<Map<string, V>> {
    await this.load(keys);
    const out = new Map<string, V>();
    for (const key of keys) {
      const value = this.written.has(key) ? this.written.get(key) : this.read.get(key);
      if (value !== null && value !== undefined) out.set(key, this.copy(value));
    }
    return out;
  }

  /** Reads from the store the keys the batch knows nothing of yet. */
  async load(keys: string[]): Promise<void> {
    const missing = [...new Set(keys.filter((key) => !this.written.has(key) && !this.read.has(key)))];
    if (missing.length === 0) return;
    const fetched = await this.fetch(missing);
    // Another read may have answered meanwhile: the first answer stays.
    for (const key of missing) if (!this.read.has(key)) this.read.set(key, fetched.get(key) ?? null);
  }

  /** Values read from the store by other means, kept unless the batch knows the key already. */
  seed(entries: Array<[string, V]>): void {
    for (const [key, value] of entries) if (!this.written.has(key) && !this.read.has(key)) this.read.set(key, value);
  }

  set(key: string, value: V | null): void {
    this.written.set(key, value === null ? null : this.copy(value));
  }

  /** Every value the batch knows (read or written), as it stands. */
  *known(): Iterable<[string, V]> {
    for (const [key, value] of this.read) if (value !== null && !this.written.has(key)) yield [key, value];
    for (const [key, value] of this.written) if (value !== null) yield [key, value];
  }

  /** The values written, and the keys deleted. */
  changes(): [Array<[string, V]>, string[]] {
    const kept: Array<[string, V]> = [];
    const gone: string[] = [];
    for (const [key, value] of this.written) {
      if (value === null) gone.push(key);
      else kept.push([key, value]);
    }
    return [kept, gone];
  }
}

const byId = <R extends { id: string }>(records: R[]) => new Map(records.map((r) => [r.id, r]));

/**
 * A copy of a graph record, whose fields are strings, numbers and lists of strings: a thirtieth of the time of
 * structuredClone for a record listing hundreds of sources, copied each time a merge of the batch reads or writes it.
 */
function copyRecord<R extends EntityRecord | RelationshipRecord>(record: R): R {
  const copy: Record<string, unknown> = { ...record };
  for (const [field, value] of Object.entries(copy)) if (Array.isArray(value)) copy[field] = value.slice();
  return copy as R;
}

export class MergeView {
  private readonly entities: WriteBack<EntityRecord>;
  private readonly relationships: WriteBack<RelationshipRecord>;
  /** Per namespace. */
  private readonly values = new Map<string, WriteBack<unknown>>();
  /** The store's records of each document asked about (the store does not change before `flush`). */
  private readonly stored = new Map<string, Promise<{ entities: EntityRecord[]; relationships: RelationshipRecord[] }>>();

  readonly graph: MergeGraph;
  readonly kv: KeyValues;

  constructor(
    private readonly stores: Pick<Stores, 'graph' | 'kv'>,
    private readonly scope: Scope,
  ) {
    const { graph } = stores;
    this.entities = new WriteBack(async (ids) => byId(await graph.getEntities(scope, ids)), copyRecord);
    this.relationships = new WriteBack(async (ids) => byId(await graph.getRelationships(scope, ids)), copyRecord);
    const records = async <R>(records: WriteBack<R>, s: Scope, ids: string[]) => {
      this.check(s);
      const found = await records.get(ids);
      return ids.flatMap((id) => found.get(id) ?? []);
    };
    const write = async <R>(records: WriteBack<R>, s: Scope, entries: Array<[string, R | null]>) => {
      this.check(s);
      for (const [id, value] of entries) records.set(id, value);
    };
    this.graph = {
      entitiesOfDocument: async (s, documentId) => {
        this.check(s);
        const { entities } = await this.storedOf(documentId);
        return records(this.entities, s, this.ofDocument(this.entities, entities, documentId));
      },
      relationshipsOfDocument: async (s, documentId) => {
        this.check(s);
        const { relationships } = await this.storedOf(documentId);
        return records(this.relationships, s, this.ofDocument(this.relationships, relationships, documentId));
      },
      getEntities: (s, ids) => records(this.entities, s, ids),
      getRelationships: (s, ids) => records(this.relationships, s, ids),
      upsertEntities: (s, list) =>
        write(
          this.entities,
          s,
          list.map((e) => [e.id, e]),
        ),
      upsertRelationships: (s, list) =>
        write(
          this.relationships,
          s,
          list.map((r) => [r.id, r]),
        ),
      deleteRelationships: (s, ids) =>
        write(
          this.relationships,
          s,
          ids.map((id) => [id, null]),
        ),
      // As in the stores, an entity takes its relationships along.
      deleteEntities: async (s, ids) => {
        await write(
          this.entities,
          s,
          ids.map((id) => [id, null]),
        );
        const gone = new Set(ids);
        const along = [...this.relationships.known()].filter(([, r]) => gone.has(r.source) || gone.has(r.target));
        for (const [id] of along) this.relationships.set(id, null);
      },
    };
    this.kv = {
      get: async <T>(s: Scope, namespace: string, key: string) => (await this.kv.getMany<T>(s, namespace, [key])).get(key) ?? null,
      getMany: async <T>(s: Scope, namespace: string, keys: string[]) => {
        this.check(s);
        return (await this.namespace(namespace).get(keys)) as Map<string, T>;
      },
      set: (s, namespace, key, value) => write(this.namespace(namespace), s, [[key, value]]),
      setMany: (s, namespace, entries) => write(this.namespace(namespace), s, entries),
      delete: (s, namespace, keys) =>
        write(
          this.namespace(namespace),
          s,
          keys.map((key) => [key, null]),
        ),
    };
  }

  /**
   * Reads at once what the merges of the batch will ask for first: the store's records of their documents, the
   * records by id and the values by namespace and key. Each merge would otherwise wait for its own reads in turn.
   */
  async prefetch(ahead: {
    documents: string[];
    entities: string[];
    relationships: string[];
    values: Record<string, string[]>;
  }): Promise<void> {
    await Promise.all([
      ...ahead.documents.map((documentId) => this.storedOf(documentId)),
      this.entities.load(ahead.entities),
      this.relationships.load(ahead.relationships),
      ...Object.entries(ahead.values).map(([namespace, keys]) => this.namespace(namespace).load(keys)),
    ]);
  }

  /** Writes what the batch changed: records first (relationships after the entities they join), then deletions, then values. */
  async flush(): Promise<void> {
    const { graph, kv } = this.stores;
    const scope = this.scope;
    const [upserted, deleted] = this.entities.changes();
    const [related, unrelated] = this.relationships.changes();
    await graph.upsertEntities(
      scope,
      upserted.map(([, e]) => e),
    );
    await graph.upsertRelationships(
      scope,
      related.map(([, r]) => r),
    );
    await graph.deleteRelationships(scope, unrelated);
    await graph.deleteEntities(scope, deleted);
    for (const [namespace, values] of this.values) {
      const [entries, gone] = values.changes();
      if (entries.length) await kv.setMany(scope, namespace, entries);
      if (gone.length) await kv.delete(scope, namespace, gone);
    }
  }

  private check(scope: Scope): void {
    if (scope.workspaceId !== this.scope.workspaceId || (scope.tenantId ?? null) !== (this.scope.tenantId ?? null))
      throw new Error('a merge batch is bound to one workspace');
  }

  /** The store's records of the document, read once per batch; the records themselves are kept as read. */
  private storedOf(documentId: string): Promise<{ entities: EntityRecord[]; relationships: RelationshipRecord[] }> {
    let found = this.stored.get(documentId);
    if (!found) {
      const { graph } = this.stores;
      found = Promise.all([graph.entitiesOfDocument(this.scope, documentId), graph.relationshipsOfDocument(this.scope, documentId)]).then(
        ([entities, relationships]) => {
          this.entities.seed(entities.map((e) => [e.id, e]));
          this.relationships.seed(relationships.map((r) => [r.id, r]));
          return { entities, relationships };
        },
        (err: unknown) => {
          // Read again by the next merge that asks.
          this.stored.delete(documentId);
          throw err;
        },
      );
      this.stored.set(documentId, found);
    }
    return found;
  }

  /** The ids of the store's records of the document, and of those the batch gave its chunks. */
  private ofDocument<R extends EntityRecord | RelationshipRecord>(records: WriteBack<R>, stored: R[], documentId: string): string[] {
    const ids = new Set(stored.map((r) => r.id));
    for (const [id, r] of records.changes()[0]) if (r.source_chunk_ids.some((c) => isChunkOf(c, documentId))) ids.add(id);
    return [...ids];
  }

  private namespace(namespace: string): WriteBack<unknown> {
    let values = this.values.get(namespace);
    if (!values) {
      values = new WriteBack((keys) => this.stores.kv.getMany(this.scope, namespace, keys));
      this.values.set(namespace, values);
    }
    return values;
  }
}
