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
/** Up to this many vectors per workspace and kind, search is exact; above, the vector index answers. */
const EXACT_SEARCH_LIMIT = 5_000;
/** The index is shared by all workspaces: ask it for more than needed, and more again when filtering ate it. */
const OVERFETCH = 10;
const MAX_FETCH = 10_000;
const BATCH = 500;

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
  ) {}

  /** The vector indexes of the configured dimension, created when missing. */
  async ensureIndexes(): Promise<void> {
    checkDimension(this.indexedDimension);
    let created = false;
    for (const kind of Object.keys(VECTOR_LABELS) as VectorKind[]) {
      const index = vectorIndexName(kind, this.indexedDimension);
      const [existing] = await this.db.readRows('schema/vector-index-dimension', { name: index });
      if (existing && num(existing.dimension) !== this.indexedDimension) {
        throw new Error(
          `Neo4j vector index ${index} holds ${num(existing.dimension)}-dimension vectors, not ` +
            `SERVICE_EMBEDDING_DIMENSION=${this.indexedDimension}; drop it (DROP INDEX ${index}) and restart`,
        );
      }
      if (existing) continue;
      const text = cypherTemplate('schema/vector-index', {
        INDEX: index,
        LABEL: VECTOR_LABELS[kind],
        PROPERTY: vectorProperty(this.indexedDimension),
      });
      await this.db.runSchema(text, { dimension: int(this.indexedDimension) });
      created = true;
    }
    if (created) await this.db.runSchema(cypherText('schema/await-indexes'));
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
    const k = Math.floor(topK);
    if (k <= 0 || vector.length === 0 || filter?.documentIds?.length === 0 || filter?.ids?.length === 0) return [];
    const dimension = vector.length;
    const params = {
      ...scopeParams(scope),
      dimension: int(dimension),
      property: vectorProperty(dimension),
      vector,
      document_ids: filter?.documentIds ?? null,
      top_k: count(k),
      query_norm: norm(vector),
    };
    const label = { LABEL: VECTOR_LABELS[kind] };
    if (filter?.ids) {
      const ids = [...new Set(filter.ids)];
      return this.db.read(async (tx) => hitsFrom(await tx.runTemplate('vectors/search-ids', label, { ...params, ids })));
    }
    return this.db.read(async (tx) => {
      if (dimension === this.indexedDimension && !filter?.documentIds && params.query_norm > 0) {
        const [size] = await tx.runTemplate('vectors/count', label, params);
        if (num(size?.total) > this.exactSearchLimit) {
          const index = vectorIndexName(kind, dimension);
          for (let fetch = k * OVERFETCH; fetch <= MAX_FETCH; fetch *= 4) {
            const rows = await tx.run('vectors/search-index', { ...params, index, fetch: count(fetch) });
            if (rows.length >= k) return hitsFrom(rows);
          }
        }
      }
      return hitsFrom(await tx.runTemplate('vectors/search-exact', label, params));
    });
  }

  async delete(scope: Scope, kind: VectorKind, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.write((tx) => tx.runTemplate('vectors/delete', { LABEL: VECTOR_LABELS[kind] }, { ...scopeParams(scope), ids }));
  }

  async count(scope: Scope, kind: VectorKind): Promise<number> {
    const [row] = await this.db.read((tx) =>
      tx.runTemplate('vectors/count', { LABEL: VECTOR_LABELS[kind] }, { ...scopeParams(scope), dimension: null }),
    );
    return num(row?.total);
  }

  async bytes(scope: Scope): Promise<number> {
    const [row] = await this.db.readRows('vectors/bytes', scopeParams(scope));
    return num(row?.bytes);
  }
}
