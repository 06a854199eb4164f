import type { Scope, VectorHit, VectorKind, VectorPoint } from '../../domain/types';
import type { VectorFilter, VectorStore } from '../ports';
import { INT8_MIN_ROWS, VectorMatrix, writeNormalised } from './vector-matrix';
import { VectorSearchThread } from './vector-search-thread';
import { WorkspaceStates } from './workspaces';

/**
 * Below this many points a kind is searched exactly: the rows in bytes ranked on a search thread, the best
 * rescored on the floats (./vector-matrix.ts); from it on, unfiltered searches go through an HNSW index
 * (./hnsw.ts). The index is built on the event loop, a slice at a time, at about 1.5 ms a point, so it starts
 * past the 155,000 relationships of a 100,000-chunk corpus, which the byte scan serves (figures in the README,
 * from scripts/bench/ann.ts).
 */
export const DEFAULT_ANN_MIN_ROWS = 200_000;

type WorkspaceVectors = Map<VectorKind, VectorMatrix>;

export interface MemoryVectorOptions {
  /** Points of one workspace and kind from which searches go through the HNSW index. */
  annMinRows?: number;
  /** Points of one workspace and kind from which exact searches pick their candidates by bytes (./int8-rows.ts). */
  bytesMinRows?: number;
  /** Time an HNSW build spends at a turn of the event loop (ANN_SLICE_MS by default). */
  annSliceMs?: number;
  /**
   * Worker threads that rank the candidates of large unfiltered exact searches (./vector-search-thread.ts), so
   * that scans run beside the event loop; 0 (the default) searches in process. With two, relationship vectors
   * are scanned on the second and the other kinds on the first.
   */
  searchThreads?: number;
}

/**
 * The search thread of each kind, when there are two: relationships, the largest kind (about 1.5 per chunk),
 * on their own, so that the entity and relationship searches of a query scan side by side.
 */
const THREAD_OF_KIND: Record<VectorKind, number> = { chunk: 0, entity: 0, relationship: 1 };

export class MemoryVectorStore implements VectorStore {
  private readonly workspaces = new WorkspaceStates<WorkspaceVectors>(() => new Map());

  private readonly threads: VectorSearchThread[];

  constructor(private readonly options: MemoryVectorOptions = {}) {
    this.threads = Array.from({ length: Math.min(2, options.searchThreads ?? 0) }, () => new VectorSearchThread());
  }

  /**
   * The first point of a kind fixes its dimension; points of another dimension are refused (the whole batch,
   * before anything is written). An emptied kind accepts a new dimension.
   */
  async upsert(scope: Scope, kind: VectorKind, points: VectorPoint[]): Promise<void> {
    if (points.length === 0) return;
    const kinds = this.workspaces.obtain(scope);
    let matrix = kinds.get(kind);
    if (!matrix || matrix.count === 0) {
      matrix?.detach();
      matrix = new VectorMatrix(
        points[0].vector.length,
        this.options.annMinRows ?? DEFAULT_ANN_MIN_ROWS,
        this.options.bytesMinRows ?? INT8_MIN_ROWS,
        this.threadOf(kind),
        this.options.annSliceMs,
      );
      kinds.set(kind, matrix);
    }
    const dim = matrix.dimension;
    const odd = points.find((p) => p.vector.length !== dim);
    if (odd) throw new Error(`vector ${odd.id} has dimension ${odd.vector.length}, the ${kind} index holds ${dim}`);
    for (const point of points) matrix.upsert(point);
  }

  async search(scope: Scope, kind: VectorKind, vector: number[], topK: number, filter?: VectorFilter): Promise<VectorHit[]> {
    const matrix = this.workspaces.find(scope)?.get(kind);
    if (!matrix || matrix.count === 0 || topK <= 0) return [];
    if (vector.length !== matrix.dimension) {
      throw new Error(`query has dimension ${vector.length}, the ${kind} index holds ${matrix.dimension}`);
    }
    const query = new Float32Array(matrix.stride);
    writeNormalised(vector, query, 0);
    const documents = filter?.documentIds ? new Set(filter.documentIds) : null;
    if (documents?.size === 0 || filter?.ids?.length === 0) return [];
    return matrix.searchOffLoop(query, Math.floor(topK), documents, filter?.ids ?? null);
  }

  /** Resolves once no HNSW index of this store is being built (for benchmarks and tests). */
  async indexed(): Promise<void> {
    for (const [, kinds] of this.workspaces.entries()) for (const matrix of kinds.values()) await matrix.indexed();
  }

  async delete(scope: Scope, kind: VectorKind, ids: string[]): Promise<void> {
    const matrix = this.workspaces.find(scope)?.get(kind);
    if (matrix) for (const id of ids) matrix.delete(id);
  }

  async vectorsOf(scope: Scope, kind: VectorKind, ids: string[]): Promise<Map<string, number[]>> {
    const matrix = this.workspaces.find(scope)?.get(kind);
    const out = new Map<string, number[]>();
    for (const id of matrix ? ids : []) {
      const vector = matrix?.vectorOf(id);
      if (vector) out.set(id, vector);
    }
    return out;
  }

  async count(scope: Scope, kind: VectorKind): Promise<number> {
    return this.workspaces.find(scope)?.get(kind)?.count ?? 0;
  }

  async ids(scope: Scope, kind: VectorKind): Promise<string[]> {
    return this.workspaces.find(scope)?.get(kind)?.recordIds() ?? [];
  }

  async bytes(scope: Scope): Promise<number> {
    let total = 0;
    for (const matrix of this.workspaces.find(scope)?.values() ?? []) total += matrix.dimension * 4 * matrix.count;
    return total;
  }

  dropWorkspace(scope: Scope): void {
    for (const matrix of this.workspaces.find(scope)?.values() ?? []) matrix.detach();
    this.workspaces.drop(scope);
  }

  clear(): void {
    for (const [, kinds] of this.workspaces.entries()) for (const matrix of kinds.values()) matrix.detach();
    this.workspaces.clear();
  }

  /** Stops the search threads; searches run in process afterwards. */
  async close(): Promise<void> {
    this.clear();
    await Promise.all(this.threads.map((thread) => thread.close()));
  }

  private threadOf(kind: VectorKind): VectorSearchThread | null {
    if (this.threads.length === 0) return null;
    return this.threads[THREAD_OF_KIND[kind] % this.threads.length];
  }
}
