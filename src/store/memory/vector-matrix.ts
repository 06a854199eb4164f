import type { VectorHit, VectorPoint } from '../../domain/types';
import { dotKernel, kernelMemory, type Kernel, ROW_ALIGN } from './dot-kernel';
import { HnswIndex } from './hnsw';
import { Int8Rows } from './int8-rows';
import { TopK } from './top-k';
import type { VectorSearchThread } from './vector-search-thread';

const PAGE = 65_536;

/**
 * From this many rows, an exact search first ranks the rows by their bytes (./int8-rows.ts) and scores only
 * the best `candidatesFor(k)` of them on the floats; below it, the floats are scanned directly.
 */
export const INT8_MIN_ROWS = 2_048;

/** Candidates scored on the floats for a top k: rounding to bytes moves a score by about 0.002. */
export function candidatesFor(k: number): number {
  return 4 * k + 64;
}

/** Rows are padded with zeros to a multiple of 16 floats so the SIMD kernel needs no remainder loop. */
export function strideOf(dimension: number): number {
  return Math.ceil(dimension / ROW_ALIGN) * ROW_ALIGN;
}

/** Time an HNSW build takes at a turn of the event loop before it lets other work run. */
export const ANN_SLICE_MS = 5;

/** An HNSW index being built a slice at a time: the rows before `next` are in it. */
interface AnnBuild {
  index: HnswIndex;
  next: number;
}

/**
 * The vectors of one workspace and kind: rows of one WebAssembly memory, each normalised at insert so a cosine
 * is a dot product, scored all at once by the SIMD kernel (./dot-kernel.ts) and kept in a top-k heap. The
 * memory holds the rows from byte 0, then a scratch area (the query, then one score per row); it grows by
 * doubling and never moves the rows. Deleting moves the last row into the hole. From `annMinRows` points on,
 * unfiltered searches go through an HNSW index kept beside the rows, updated with every upsert and delete. The
 * index is built (and rebuilt once deletes have worn it) in slices of `annSliceMs` between other work, at
 * about 1.5 ms a point: searches stay exact, or on the worn index, until it is complete. Filtered searches
 * stay exact.
 */
export class VectorMatrix {
  readonly stride: number;
  private readonly memory = kernelMemory();
  private readonly kernel: Kernel;
  private capacity = 0;
  private rows = new Float32Array(0);
  private readonly ids: string[] = [];
  private readonly documentIds: string[][] = [];
  private readonly rowById = new Map<string, number>();
  private ann: HnswIndex | null = null;
  private building: AnnBuild | null = null;
  private readonly whenBuilt: Array<() => void> = [];
  /** The rows in bytes, kept from `bytesMinRows` rows on. */
  private bytes: Int8Rows | null = null;
  /** The matrix's number on the search thread once it ranks candidates there, with the rows not sent yet. */
  private onThread: number | null = null;
  private readonly unsent = new Set<number>();
  /** Counts upserts and deletes: a search whose candidates came back after a write runs again in process. */
  private writes = 0;

  constructor(
    readonly dimension: number,
    private readonly annMinRows: number,
    private readonly bytesMinRows = INT8_MIN_ROWS,
    private readonly thread: VectorSearchThread | null = null,
    private readonly annSliceMs = ANN_SLICE_MS,
  ) {
    this.stride = strideOf(dimension);
    this.kernel = dotKernel(this.memory);
  }

  get count(): number {
    return this.ids.length;
  }

  recordIds(): string[] {
    return [...this.ids];
  }

  /** The stored (normalised) vector of a record, or null. */
  vectorOf(id: string): number[] | null {
    const row = this.rowById.get(id);
    if (row === undefined) return null;
    return Array.from(this.rows.subarray(row * this.stride, row * this.stride + this.dimension));
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
    if (this.bytes) this.bytes.write(row, this.rows, row * this.stride);
    else if (this.ids.length >= this.bytesMinRows) this.buildBytes();
    this.writes++;
    if (this.onThread !== null) this.unsent.add(row);
    else if (this.thread && this.ids.length >= this.bytesMinRows) this.attach(this.thread);
    this.ann?.add(point.id, this.rows, row * this.stride);
    if (this.building) {
      if (row < this.building.next) this.building.index.add(point.id, this.rows, row * this.stride);
    } else if (!this.ann && this.ids.length >= this.annMinRows) this.buildAnn();
  }

  private buildBytes(): void {
    const bytes = new Int8Rows(this.stride);
    for (let row = 0; row < this.ids.length; row++) bytes.write(row, this.rows, row * this.stride);
    this.bytes = bytes;
  }

  /** Resolves once no HNSW index is being built. */
  indexed(): Promise<void> {
    return this.building ? new Promise((resolve) => this.whenBuilt.push(resolve)) : Promise.resolve();
  }

  /** Starts building an index of the current rows, a slice at a time; it replaces `ann` once complete. */
  private buildAnn(): void {
    const build: AnnBuild = { index: new HnswIndex(this.stride), next: 0 };
    this.building = build;
    const slice = () => {
      if (this.building !== build) return this.settleBuild();
      const until = performance.now() + this.annSliceMs;
      do {
        const row = build.next++;
        if (row < this.ids.length) build.index.add(this.ids[row], this.rows, row * this.stride);
      } while (build.next < this.ids.length && performance.now() < until);
      if (build.next < this.ids.length) return void setImmediate(slice);
      this.ann = build.index;
      this.building = null;
      this.settleBuild();
    };
    setImmediate(slice);
  }

  private settleBuild(): void {
    if (this.building) return;
    for (const resolve of this.whenBuilt.splice(0)) resolve();
  }

  delete(id: string): void {
    const row = this.rowById.get(id);
    if (row === undefined) return;
    const last = this.ids.length - 1;
    if (row !== last) {
      const stride = this.stride;
      this.rows.copyWithin(row * stride, last * stride, (last + 1) * stride);
      this.bytes?.move(last, row);
      if (this.onThread !== null) this.unsent.add(row);
      this.ids[row] = this.ids[last];
      this.documentIds[row] = this.documentIds[last];
      this.rowById.set(this.ids[row], row);
      // A row the build had not reached moves to where it has been: it goes into the index now.
      const build = this.building;
      if (build && last >= build.next && row < build.next) build.index.add(this.ids[row], this.rows, row * stride);
    }
    this.ids.pop();
    this.documentIds.pop();
    this.rowById.delete(id);
    this.writes++;
    this.ann?.delete(id);
    this.building?.index.delete(id);
    if (this.ids.length < this.annMinRows / 2) {
      this.ann = null;
      this.building = null;
    } else if (this.ann?.worn && !this.building) this.buildAnn();
  }

  /**
   * Best `topK` rows by dot product with a normalised query (padded to the stride), optionally only rows of
   * the given documents, or only the given ids.
   */
  search(query: Float32Array, topK: number, documents: Set<string> | null, only: string[] | null = null): VectorHit[] {
    const { ids } = this;
    if (this.ann && !documents && !only) return this.ann.search(query, topK);
    const heap = new TopK(topK);
    if (only) {
      const rows: number[] = [];
      for (const id of new Set(only)) {
        const row = this.rowById.get(id);
        if (row !== undefined && (!documents || belongsTo(this.documentIds[row], documents))) rows.push(row);
      }
      // The kernel needs scratch room for the rows' numbers and scores; a long list is scored here instead.
      if (2 * rows.length <= this.capacity) return this.bestOf(query, topK, Int32Array.from(rows));
      for (const row of rows) heap.offer(dot(this.rows, row * this.stride, query, this.stride), row, ids);
      return heap.drain(ids);
    }
    const pool = candidatesFor(topK);
    if (ids.length >= this.bytesMinRows && 2 * pool <= ids.length) return this.searchByBytes(query, topK, pool, documents);
    const scores = this.scoreAll(query);
    for (let row = 0, n = ids.length; row < n; row++) {
      if (documents && !belongsTo(this.documentIds[row], documents)) continue;
      heap.offer(scores[row], row, ids);
    }
    return heap.drain(ids);
  }

  /**
   * As `search`, with the candidates of an unfiltered exact search ranked on the search thread: the event loop
   * only scores them on the floats. Runs in process when a write came in meanwhile or the thread failed.
   */
  async searchOffLoop(query: Float32Array, topK: number, documents: Set<string> | null, only: string[] | null): Promise<VectorHit[]> {
    const pool = candidatesFor(topK);
    const count = this.ids.length;
    const thread = this.thread;
    const offLoop = this.onThread !== null && thread?.usable && !this.ann && !documents && !only && 2 * pool <= count;
    if (!offLoop) return this.search(query, topK, documents, only);
    this.sendRows(thread);
    const writes = this.writes;
    const rows = await thread.candidates(this.onThread as number, query.slice(0, this.stride), count, pool).catch(() => null);
    if (!rows || writes !== this.writes) return this.search(query, topK, documents, only);
    return this.bestOf(query, topK, rows);
  }

  /** Stops ranking candidates on the search thread (the matrix is being dropped). */
  detach(): void {
    this.building = null;
    if (this.onThread === null) return;
    if (this.thread?.usable) this.thread.drop(this.onThread);
    this.onThread = null;
    this.unsent.clear();
  }

  private attach(thread: VectorSearchThread): void {
    this.onThread = thread.register();
    for (let row = 0; row < this.ids.length; row++) this.unsent.add(row);
  }

  /** Posts the rows written since the last search, as they are now. */
  private sendRows(thread: VectorSearchThread): void {
    if (this.unsent.size === 0) return;
    const rows = Int32Array.from([...this.unsent].filter((row) => row < this.ids.length));
    this.unsent.clear();
    const { stride } = this;
    const floats = new Float32Array(rows.length * stride);
    rows.forEach((row, i) => floats.set(this.rows.subarray(row * stride, (row + 1) * stride), i * stride));
    thread.write(this.onThread as number, stride, rows, floats);
  }

  /** The best `pool` rows by their bytes, then the best `topK` of those by their floats. */
  private searchByBytes(query: Float32Array, topK: number, pool: number, documents: Set<string> | null): VectorHit[] {
    const keep = documents ? (row: number) => belongsTo(this.documentIds[row], documents) : undefined;
    const bytes = this.bytes as Int8Rows;
    return this.bestOf(query, topK, bytes.candidates(query, this.ids.length, pool, keep));
  }

  /** The best `topK` of the given rows by their floats. */
  private bestOf(query: Float32Array, topK: number, rows: Int32Array): VectorHit[] {
    const { ids } = this;
    const scores = this.scoreRows(query, rows);
    const heap = new TopK(topK);
    for (let j = 0; j < rows.length; j++) heap.offer(scores[j], rows[j], ids);
    return heap.drain(ids);
  }

  /**
   * The dot products of the query with the given rows, by the kernel (the same sums as a scan); at most half
   * the capacity of rows, as their numbers and scores share the scores' scratch area. The view is valid until
   * the next call.
   */
  private scoreRows(query: Float32Array, rows: Int32Array): Float32Array {
    const rowBytes = this.stride * 4;
    const queryAt = this.capacity * rowBytes;
    const rowsAt = queryAt + rowBytes;
    const outAt = rowsAt + rows.length * 4;
    new Float32Array(this.memory.buffer, queryAt, this.stride).set(query.subarray(0, this.stride));
    new Int32Array(this.memory.buffer, rowsAt, rows.length).set(rows);
    this.kernel.gather(0, rowsAt, rows.length, rowBytes, queryAt, outAt);
    return new Float32Array(this.memory.buffer, outAt, rows.length);
  }

  /** Every row's dot product with the query, by the kernel; the view is valid until the next call. */
  private scoreAll(query: Float32Array): Float32Array {
    const rowBytes = this.stride * 4;
    const queryAt = this.capacity * rowBytes;
    const scoresAt = queryAt + rowBytes;
    new Float32Array(this.memory.buffer, queryAt, this.stride).set(query.subarray(0, this.stride));
    this.kernel.scan(0, this.ids.length, rowBytes, queryAt, scoresAt);
    return new Float32Array(this.memory.buffer, scoresAt, this.ids.length);
  }

  private reserve(rowsNeeded: number): void {
    if (rowsNeeded <= this.capacity) return;
    const capacity = Math.max(rowsNeeded, this.capacity * 2, 64);
    const bytes = capacity * this.stride * 4 + this.stride * 4 + capacity * 4;
    const pages = Math.ceil(bytes / PAGE) - this.memory.buffer.byteLength / PAGE;
    if (pages > 0) this.memory.grow(pages);
    this.capacity = capacity;
    this.rows = new Float32Array(this.memory.buffer, 0, capacity * this.stride);
  }
}

/** Dot product of a row and the query, for a few rows picked by id; `stride` is a multiple of 4. */
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
  return Math.fround(s0 + s1 + s2 + s3);
}

function belongsTo(documentIds: readonly string[], documents: Set<string>): boolean {
  for (const id of documentIds) if (documents.has(id)) return true;
  return false;
}

/** Writes `vector / |vector|` (zeros for a zero vector) into `target` at `offset`. */
export function writeNormalised(vector: ArrayLike<number>, target: Float32Array, offset: number): void {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i] * vector[i];
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let i = 0; i < vector.length; i++) target[offset + i] = vector[i] * scale;
}
