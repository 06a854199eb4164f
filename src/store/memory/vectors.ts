import type { Scope, VectorHit, VectorKind, VectorPoint } from '../../domain/types';
import type { VectorFilter, VectorStore } from '../ports';
import { HnswIndex } from './hnsw';
import { compareIds } from './records';
import { WorkspaceStates } from './workspaces';

/** Rows are padded with zeros to a multiple of 4 floats so the dot product needs no remainder loop. */
function strideOf(dimension: number): number {
  return Math.ceil(dimension / 4) * 4;
}

/**
 * Below this many points a kind is searched exactly (about 5 ms at 20,000 points of 256 dimensions); from it
 * on, through an HNSW index (./hnsw.ts).
 */
export const DEFAULT_ANN_MIN_ROWS = 20_000;

/**
 * The vectors of one workspace and kind: rows of a contiguous Float32Array, each normalised at insert so a
 * cosine is a dot product, scanned in order. Deleting moves the last row into the hole. From `annMinRows`
 * points on, unfiltered searches go through an HNSW index kept beside the rows (built once when the kind
 * reaches that size, then updated with every upsert and delete); filtered ones stay exact.
 */
class VectorMatrix {
  readonly stride: number;
  private rows = new Float32Array(0);
  private readonly ids: string[] = [];
  private readonly documentIds: string[][] = [];
  private readonly rowById = new Map<string, number>();
  private ann: HnswIndex | null = null;

  constructor(
    readonly dimension: number,
    private readonly annMinRows: number,
  ) {
    this.stride = strideOf(dimension);
  }

  get count(): number {
    return this.ids.length;
  }

  upsert(point: VectorPoint): void {
    let row = this.rowById.get(point.id);
    if (row === undefined) {
      row = this.ids.length;
      this.reserve(row + 1);
      this.ids.push(point.id);
      this.documentIds.push([]);
      this.rowById.set(point.id, row);
    }
    this.documentIds[row] = [...point.document_ids];
    writeNormalised(point.vector, this.rows, row * this.stride);
    if (this.ann) this.ann.add(point.id, this.rows, row * this.stride);
    else if (this.ids.length >= this.annMinRows) this.buildAnn();
  }

  private buildAnn(): void {
    const ann = new HnswIndex(this.stride);
    for (let row = 0; row < this.ids.length; row++) ann.add(this.ids[row], this.rows, row * this.stride);
    this.ann = ann;
  }

  delete(id: string): void {
    const row = this.rowById.get(id);
    if (row === undefined) return;
    const last = this.ids.length - 1;
    if (row !== last) {
      const stride = this.stride;
      this.rows.copyWithin(row * stride, last * stride, (last + 1) * stride);
      this.ids[row] = this.ids[last];
      this.documentIds[row] = this.documentIds[last];
      this.rowById.set(this.ids[row], row);
    }
    this.ids.pop();
    this.documentIds.pop();
    this.rowById.delete(id);
    if (this.ann) {
      this.ann.delete(id);
      if (this.ids.length < this.annMinRows / 2) this.ann = null;
      else if (this.ann.worn) this.buildAnn();
    }
  }

  /**
   * Best `topK` rows by dot product with a normalised query (padded to the stride), optionally only rows of
   * the given documents.
   */
  search(query: Float32Array, topK: number, documents: Set<string> | null, only: string[] | null = null): VectorHit[] {
    const { rows, stride, ids } = this;
    if (this.ann && !documents && !only) return this.ann.search(query, topK);
    const heap = new TopK(topK);
    if (only) {
      for (const id of new Set(only)) {
        const row = this.rowById.get(id);
        if (row === undefined || (documents && !belongsTo(this.documentIds[row], documents))) continue;
        heap.offer(dot(rows, row * stride, query, stride), row, ids);
      }
      return heap.drain(ids);
    }
    for (let row = 0, n = ids.length; row < n; row++) {
      if (documents && !belongsTo(this.documentIds[row], documents)) continue;
      heap.offer(dot(rows, row * stride, query, stride), row, ids);
    }
    return heap.drain(ids);
  }

  private reserve(rowsNeeded: number): void {
    const needed = rowsNeeded * this.stride;
    if (needed <= this.rows.length) return;
    const grown = new Float32Array(Math.max(needed, this.rows.length * 2, 64 * this.stride));
    grown.set(this.rows);
    this.rows = grown;
  }
}

/** Dot product of a row and the query; `stride` is a multiple of 4. Kept apart so V8 optimises it alone. */
function dot(rows: Float32Array, offset: number, query: Float32Array, stride: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  for (let i = 0, p = offset; i < stride; i += 4, p += 4) {
    s0 += rows[p] * query[i];
    s1 += rows[p + 1] * query[i + 1];
    s2 += rows[p + 2] * query[i + 2];
    s3 += rows[p + 3] * query[i + 3];
  }
  return s0 + s1 + s2 + s3;
}

function belongsTo(documentIds: readonly string[], documents: Set<string>): boolean {
  for (const id of documentIds) if (documents.has(id)) return true;
  return false;
}

/** Writes `vector / |vector|` (zeros for a zero vector) into `target` at `offset`. */
function writeNormalised(vector: ArrayLike<number>, target: Float32Array, offset: number): void {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i] * vector[i];
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let i = 0; i < vector.length; i++) target[offset + i] = vector[i] * scale;
}

/**
 * A min-heap of the best k (score, row) pairs seen: the root is the worst kept, so most candidates are refused
 * with one comparison. Equal scores rank by id so results are deterministic.
 */
class TopK {
  private readonly scores: Float64Array;
  private readonly rows: Int32Array;
  private size = 0;

  constructor(private readonly k: number) {
    this.scores = new Float64Array(Math.max(0, k));
    this.rows = new Int32Array(Math.max(0, k));
  }

  offer(score: number, row: number, ids: readonly string[]): void {
    if (this.k <= 0) return;
    if (this.size < this.k) {
      this.scores[this.size] = score;
      this.rows[this.size] = row;
      this.siftUp(this.size++, ids);
    } else if (score > this.scores[0] || (score === this.scores[0] && ids[row] < ids[this.rows[0]])) {
      this.scores[0] = score;
      this.rows[0] = row;
      this.siftDown(0, ids);
    }
  }

  /** Best first. */
  drain(ids: readonly string[]): VectorHit[] {
    const hits: VectorHit[] = [];
    for (let i = 0; i < this.size; i++) hits.push({ id: ids[this.rows[i]], score: this.scores[i] });
    return hits.sort((a, b) => b.score - a.score || compareIds(a.id, b.id));
  }

  /** True when slot a ranks below slot b. */
  private worse(a: number, b: number, ids: readonly string[]): boolean {
    const sa = this.scores[a];
    const sb = this.scores[b];
    return sa < sb || (sa === sb && ids[this.rows[a]] > ids[this.rows[b]]);
  }

  private swap(a: number, b: number): void {
    const s = this.scores[a];
    this.scores[a] = this.scores[b];
    this.scores[b] = s;
    const r = this.rows[a];
    this.rows[a] = this.rows[b];
    this.rows[b] = r;
  }

  private siftUp(i: number, ids: readonly string[]): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(i, parent, ids)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(i: number, ids: readonly string[]): void {
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < this.size && this.worse(left, worst, ids)) worst = left;
      if (right < this.size && this.worse(right, worst, ids)) worst = right;
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }
}

type WorkspaceVectors = Map<VectorKind, VectorMatrix>;

export interface MemoryVectorOptions {
  /** Points of one workspace and kind from which searches go through the HNSW index. */
  annMinRows?: number;
}

export class MemoryVectorStore implements VectorStore {
  private readonly workspaces = new WorkspaceStates<WorkspaceVectors>(() => new Map());

  constructor(private readonly options: MemoryVectorOptions = {}) {}

  /**
   * The first point of a kind fixes its dimension; points of another dimension are refused (the whole batch,
   * before anything is written). An emptied kind accepts a new dimension.
   */
  async upsert(scope: Scope, kind: VectorKind, points: VectorPoint[]): Promise<void> {
    if (points.length === 0) return;
    const kinds = this.workspaces.obtain(scope);
    let matrix = kinds.get(kind);
    if (!matrix || matrix.count === 0) {
      matrix = new VectorMatrix(points[0].vector.length, this.options.annMinRows ?? DEFAULT_ANN_MIN_ROWS);
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
    return matrix.search(query, Math.floor(topK), documents, filter?.ids ?? null);
  }

  async delete(scope: Scope, kind: VectorKind, ids: string[]): Promise<void> {
    const matrix = this.workspaces.find(scope)?.get(kind);
    if (matrix) for (const id of ids) matrix.delete(id);
  }

  async count(scope: Scope, kind: VectorKind): Promise<number> {
    return this.workspaces.find(scope)?.get(kind)?.count ?? 0;
  }

  async bytes(scope: Scope): Promise<number> {
    let total = 0;
    for (const matrix of this.workspaces.find(scope)?.values() ?? []) total += matrix.dimension * 4 * matrix.count;
    return total;
  }

  dropWorkspace(scope: Scope): void {
    this.workspaces.drop(scope);
  }

  clear(): void {
    this.workspaces.clear();
  }
}
