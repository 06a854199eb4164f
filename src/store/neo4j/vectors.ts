import { performance } from 'node:perf_hooks';
import { scopeKey } from '../../domain/ids';
import type { Scope, VectorHit, VectorKind, VectorPoint } from '../../domain/types';
import type { VectorFilter, VectorStore } from '../ports';
import { type Neo4jClient, type Row, scopeParams } from './client';
import { cypherTemplate, cypherText } from './cypher';
import { count, int, num } from './values';

export const VECTOR_LABELS: Record<VectorKind, string> = {
  chunk: 'ChunkVector',
  entity: 'EntityVector',
  relationship: 'RelationshipVector',
};

/** Neo4j 5.26 vector indexes accept up to 4096 dimensions. */
const MAX_DIMENSION = 4096;
/**
 * Up to this many vectors per workspace and kind, search is exact; above, the vector index answers unless the
 * workspace is so small a share of it that the index would be asked for more candidates than the workspace holds.
 * Neo4j's exact scan costs about 18 µs a vector (256 dimensions); an index search with few segments about 2 ms plus
 * 15 µs a candidate.
 */
const EXACT_SEARCH_LIMIT = 1_000;
/**
 * The index is shared by all workspaces: ask it for this many times more than needed over the workspace's share
 * of the indexed vectors, and four times more again when filtering ate it. The margin also keeps the approximate
 * top k close to the exact one: at 10,000 chunks, as written, chunks' recall@60 is 0.957 at 3 times and 0.976 at 4
 * (scripts/bench/neo4j-vector-index.ts).
 */
const OVERFETCH = 4;
/** How long the vector counts that choose between exact search and the index are trusted (they only steer speed). */
const SIZE_TTL_MS = 10_000;
const MAX_FETCH = 10_000;
const BATCH = 500;

const VECTOR_KINDS = Object.keys(VECTOR_LABELS) as VectorKind[];

export interface RebuiltIndex {
  kind: VectorKind;
  index: string;
  /** Vectors of the kind in every workspace (the index is shared). */
  vectors: number;
  ms: number;
}

/** The index is missing or still being built (a rebuild in progress): the search is made exactly instead. */
function isIndexUnavailable(err: unknown): boolean {
  const { code, message } = err as { code?: unknown; message?: unknown };
  return (
    code === 'Neo.ClientError.Procedure.ProcedureCallFailed' &&
    typeof message === 'string' &&
    /no such vector schema index|not online|populating/i.test(message)
  );
}

export function vectorIndexName(kind: VectorKind, dimension: number): string {
  return `${kind}_embedding_${dimension}`;
}

export function vectorProperty(dimension: number): string {
  return `embedding_${dimension}`;
}

function checkDimension(dimension: number): void {
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > MAX_DIMENSION) {
    throw new Error(`vector dimension ${dimension} is outside 1-${MAX_DIMENSION}`);
  }
}

function norm(vector: number[]): number {
  let sum = 0;
  for (const x of vector) sum += x * x;
  return Math.sqrt(sum);
}

/** Neo4j reports cosine scores as (1 + cos) / 2; the port speaks plain cosine. */
function hitsFrom(rows: Row[]): VectorHit[] {
  return rows.map((row) => ({ id: String(row.id), score: row.score === null ? 0 : 2 * num(row.score) - 1 }));
}

/**
 * Vectors in Neo4j itself (when no Qdrant is configured): one node per vector, `(:ChunkVector {workspace_id, id,
 * document_ids, dimension, embedding_<dimension>})`, with a vector index per kind for the configured dimension.
 */
export class Neo4jVectorStore implements VectorStore {
  constructor(
    private readonly db: Neo4jClient,
    /** The dimension whose vector indexes exist (the configured embedding dimension). */
    private readonly indexedDimension: number,
    private readonly exactSearchLimit = EXACT_SEARCH_LIMIT,
    /** The index is searched while its first fetch stays under this many times the workspace's vectors. */
    private readonly fetchPerScanned = 1,
  ) {}

  /** Vectors per workspace and kind (and per kind in all workspaces), as last counted, by cache key. */
  private readonly sizes = new Map<string, { total: number; at: number }>();

  /** The vector indexes of the configured dimension, created when missing. */
  async ensureIndexes(): Promise<void> {
    checkDimension(this.indexedDimension);
    let created = false;
    for (const kind of VECTOR_KINDS) {
      const index = vectorIndexName(kind, this.indexedDimension);
      const [existing] = await this.db.readRows('schema/vector-index-dimension', { name: index });
      if (existing && num(existing.dimension) !== this.indexedDimension) {
        throw new Error(
          `Neo4j vector index ${index} holds ${num(existing.dimension)}-dimension vectors, not ` +
            `SERVICE_EMBEDDING_DIMENSION=${this.indexedDimension}; drop it (DROP INDEX ${index}) and restart`,
        );
      }
      if (existing) continue;
      await this.createIndex(kind);
      created = true;
    }
    if (created) await this.db.runSchema(cypherText('schema/await-indexes'));
  }

  private async createIndex(kind: VectorKind): Promise<void> {
    const text = cypherTemplate('schema/vector-index', {
      INDEX: vectorIndexName(kind, this.indexedDimension),
      LABEL: VECTOR_LABELS[kind],
      PROPERTY: vectorProperty(this.indexedDimension),
    });
    await this.db.runSchema(text, { dimension: int(this.indexedDimension) });
  }

  /**
   * Drops the vector index of each kind and builds it again from the stored vectors, one kind at a time. Written
   * batch by batch, an index is made of many small segments (Neo4j 5.26 merges them only 50 at a time) and each
   * search walks every one; built in one pass, it is searched several times faster. Meanwhile searches of that kind
   * are exact (in every instance: the index is missing or not yet online). Returns what was rebuilt.
   */
  async rebuildIndexes(kinds: readonly VectorKind[] = VECTOR_KINDS): Promise<RebuiltIndex[]> {
    checkDimension(this.indexedDimension);
    const rebuilt: RebuiltIndex[] = [];
    for (const kind of kinds) {
      const index = vectorIndexName(kind, this.indexedDimension);
      const started = performance.now();
      await this.db.runSchema(cypherTemplate('schema/drop-vector-index', { INDEX: index }));
      await this.createIndex(kind);
      await this.db.runSchema(cypherText('schema/await-indexes'));
      const [size] = await this.db.readRows('schema/vector-index-size', {}, { LABEL: VECTOR_LABELS[kind] });
      rebuilt.push({ kind, index, vectors: num(size?.total), ms: performance.now() - started });
    }
    return rebuilt;
  }

  /**
   * The first vector of a kind fixes the workspace's dimension for that kind; a batch of another dimension is
   * refused before anything is written. An emptied kind accepts a new dimension.
   */
  async upsert(scope: Scope, kind: VectorKind, points: VectorPoint[]): Promise<void> {
    if (points.length === 0) return;
    const dimension = points[0].vector.length;
    checkDimension(dimension);
    const odd = points.find((p) => p.vector.length !== dimension);
    if (odd) throw new Error(`vector ${odd.id} has dimension ${odd.vector.length}, the batch has ${dimension}`);
    const label = { LABEL: VECTOR_LABELS[kind] };
    const params = { ...scopeParams(scope), dimension: int(dimension), property: vectorProperty(dimension) };
    this.forget(scope, kind);
    await this.db.write(async (tx) => {
      const [other] = await tx.runTemplate('vectors/other-dimension', label, params);
      if (other) {
        throw new Error(`vectors have dimension ${dimension}, the ${kind} index holds ${num(other.dimension)}`);
      }
      for (let i = 0; i < points.length; i += BATCH) {
        const rows = points
          .slice(i, i + BATCH)
          .map((p) => ({ id: p.id, document_ids: [...p.document_ids], vector: p.vector, norm: norm(p.vector) }));
        await tx.runTemplate('vectors/upsert', label, { ...params, rows });
      }
    });
  }

  async search(scope: Scope, kind: VectorKind, vector: number[], topK: number, filter?: VectorFilter): Promise<VectorHit[]> {
    return hitsFrom((await this.searchJoined(scope, kind, vector, topK, filter, null)) ?? []);
  }

  /**
   * The search statement that fits (exact, by ids, or the index widened until it yields `topK`), each returning
   * `id, score` rows best first; with `join`, run as a subquery followed by that cypher/ file, which reads those
   * rows and returns one row whose `searched` counts them. Null when there is nothing to search.
   */
  async searchJoined(
    scope: Scope,
    kind: VectorKind,
    vector: number[],
    topK: number,
    filter: VectorFilter | undefined,
    join: { name: string; params: Record<string, unknown> } | null,
  ): Promise<Row[] | null> {
    const k = Math.floor(topK);
    if (k <= 0 || vector.length === 0 || filter?.documentIds?.length === 0 || filter?.ids?.length === 0) return null;
    const dimension = vector.length;
    const params = {
      ...scopeParams(scope),
      ...join?.params,
      dimension: int(dimension),
      property: vectorProperty(dimension),
      vector,
      document_ids: filter?.documentIds ?? null,
      top_k: count(k),
      query_norm: norm(vector),
    };
    const label = { LABEL: VECTOR_LABELS[kind] };
    const statement = (text: string) => (join ? `CALL {\n${text}\n}\n${cypherText(join.name)}` : text);
    const searched = (rows: Row[]) => (join ? num(rows[0]?.searched) : rows.length);
    if (filter?.ids) {
      const ids = [...new Set(filter.ids)];
      return this.db.readText(statement(cypherTemplate('vectors/search-ids', label)), { ...params, ids });
    }
    if (dimension === this.indexedDimension && !filter?.documentIds && params.query_norm > 0) {
      const first = await this.firstFetch(scope, kind, k, params, label);
      if (first !== null) {
        const index = vectorIndexName(kind, dimension);
        const text = statement(cypherText('vectors/search-index'));
        try {
          for (let fetch = Math.min(MAX_FETCH, first); ; fetch = Math.min(MAX_FETCH, fetch * 4)) {
            const rows = await this.db.readText(text, { ...params, index, fetch: count(fetch) });
            if (searched(rows) >= k) return rows;
            if (fetch === MAX_FETCH) break;
          }
        } catch (err) {
          if (!isIndexUnavailable(err)) throw err;
        }
      }
    }
    return this.db.readText(statement(cypherTemplate('vectors/search-exact', label)), params);
  }

  /**
   * How many candidates to ask the index for first, or null when the workspace's vectors cost less to scan: a few of
   * them, or so small a share of the index that fishing k out of it would take more candidates than they number.
   */
  private async firstFetch(scope: Scope, kind: VectorKind, k: number, params: Row, label: Record<string, string>): Promise<number | null> {
    const mine = await this.size(scope, kind, () => this.db.readRows('vectors/count', params, label));
    if (mine <= this.exactSearchLimit) return null;
    const all = await this.size(null, kind, () => this.db.readRows('schema/vector-index-size', {}, label));
    const first = Math.ceil((k * OVERFETCH * Math.max(all, mine)) / mine);
    return first < mine * this.fetchPerScanned ? first : null;
  }

  async delete(scope: Scope, kind: VectorKind, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    this.forget(scope, kind);
    await this.db.write((tx) => tx.runTemplate('vectors/delete', { LABEL: VECTOR_LABELS[kind] }, { ...scopeParams(scope), ids }));
  }

  /** The count of `kind` in the workspace (all workspaces when null), counted at most once per SIZE_TTL_MS. */
  private async size(scope: Scope | null, kind: VectorKind, counted: () => Promise<Row[]>): Promise<number> {
    const key = scope ? `${kind}\u0000${scopeKey(scope)}` : kind;
    const known = this.sizes.get(key);
    if (known && Date.now() - known.at < SIZE_TTL_MS) return known.total;
    const [row] = await counted();
    const total = num(row?.total);
    this.sizes.set(key, { total, at: Date.now() });
    return total;
  }

  /**
   * A write of this process makes a workspace's count stale at once while it is small enough for exact search (a
   * write can move it to the index). Past that, the counts only size the index's first fetch, which widens by
   * itself when short: they are kept until SIZE_TTL_MS, else ingestion would count the vectors before every search.
   */
  private forget(scope: Scope, kind: VectorKind): void {
    const key = `${kind}\u0000${scopeKey(scope)}`;
    const known = this.sizes.get(key);
    if (known && known.total > this.exactSearchLimit) return;
    this.sizes.delete(key);
    this.sizes.delete(kind);
  }

  async count(scope: Scope, kind: VectorKind): Promise<number> {
    const [row] = await this.db.read((tx) =>
      tx.runTemplate('vectors/count', { LABEL: VECTOR_LABELS[kind] }, { ...scopeParams(scope), dimension: null }),
    );
    return num(row?.total);
  }

  async vectorsOf(scope: Scope, kind: VectorKind, ids: string[]): Promise<Map<string, number[]>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.readRows('vectors/get', { ...scopeParams(scope), ids }, { LABEL: VECTOR_LABELS[kind] });
    return new Map(rows.filter((row) => Array.isArray(row.vector)).map((row) => [String(row.id), (row.vector as unknown[]).map(Number)]));
  }

  async ids(scope: Scope, kind: VectorKind): Promise<string[]> {
    const rows = await this.db.readRows('vectors/ids', scopeParams(scope), { LABEL: VECTOR_LABELS[kind] });
    return rows.map((row) => String(row.id));
  }

  async bytes(scope: Scope): Promise<number> {
    const [row] = await this.db.readRows('vectors/bytes', scopeParams(scope));
    return num(row?.bytes);
  }
}
