import { kernelMemory } from './dot-kernel';
import { int8Kernel, type Int8ScanFunction } from './int8-kernel';

const PAGE = 65_536;
/** Largest byte of a row: each row is scaled so its largest component is this. */
const ROW_LEVELS = 127;
/** Largest query component as i16: fine enough, and far from overflowing the i32 sums at any dimension. */
const QUERY_LEVELS = 1023;

/**
 * A copy of a matrix's rows as signed bytes, each row with its own scale, in a WebAssembly memory of its own:
 * rows from byte 0, then the query (i16) and one i32 score per row. Scanning it reads a quarter of the bytes of
 * the float rows, so it serves to pick candidates that the float rows then score exactly. Row numbers follow
 * the float rows (./vector-matrix.ts).
 */
export class Int8Rows {
  private readonly memory = kernelMemory();
  private readonly scan: Int8ScanFunction;
  private capacity = 0;
  private bytes = new Int8Array(0);
  private scales = new Float32Array(0);
  private readonly best = new BestRows();

  constructor(private readonly stride: number) {
    this.scan = int8Kernel(this.memory);
  }

  /** Row `row` from the float row at `offset` of `source` (stride floats). */
  write(row: number, source: Float32Array, offset: number): void {
    this.reserve(row + 1);
    const { stride } = this;
    let largest = 0;
    for (let i = 0; i < stride; i++) largest = Math.max(largest, Math.abs(source[offset + i]));
    const scale = largest > 0 ? ROW_LEVELS / largest : 0;
    const at = row * stride;
    for (let i = 0; i < stride; i++) this.bytes[at + i] = Math.round(source[offset + i] * scale);
    this.scales[row] = largest / ROW_LEVELS;
  }

  /** Copies row `from` over row `to` (a delete moves the last row into the hole). */
  move(from: number, to: number): void {
    const { stride } = this;
    this.bytes.copyWithin(to * stride, from * stride, (from + 1) * stride);
    this.scales[to] = this.scales[from];
  }

  /**
   * The `pool` rows of 0..count-1 with the best approximate scores with a normalised query padded to the stride
   * (in the query's units, the same for every row, so they rank as the true scores do up to the rounding),
   * skipping rows `keep` refuses. In no particular order; the view is valid until the next call.
   */
  candidates(query: Float32Array, count: number, pool: number, keep?: (row: number) => boolean): Int32Array {
    const { stride } = this;
    const queryAt = this.capacity * stride;
    const outAt = queryAt + stride * 2;
    let largest = 0;
    for (let i = 0; i < stride; i++) largest = Math.max(largest, Math.abs(query[i]));
    const scale = largest > 0 ? QUERY_LEVELS / largest : 0;
    const q = new Int16Array(this.memory.buffer, queryAt, stride);
    for (let i = 0; i < stride; i++) q[i] = Math.round(query[i] * scale);
    this.scan(0, count, stride, queryAt, outAt);
    const raw = new Int32Array(this.memory.buffer, outAt, count);
    const best = this.best.reset(pool);
    const { scales } = this;
    for (let r = 0; r < count; r++) {
      const score = raw[r] * scales[r];
      if (best.refuses(score) || (keep && !keep(r))) continue;
      best.offer(score, r);
    }
    return best.rows();
  }

  private reserve(rowsNeeded: number): void {
    if (rowsNeeded <= this.capacity) return;
    const capacity = Math.max(rowsNeeded, this.capacity * 2, 64);
    const bytes = capacity * this.stride + this.stride * 2 + capacity * 4;
    const pages = Math.ceil(bytes / PAGE) - this.memory.buffer.byteLength / PAGE;
    if (pages > 0) this.memory.grow(pages);
    this.capacity = capacity;
    this.bytes = new Int8Array(this.memory.buffer, 0, capacity * this.stride);
    const scales = new Float32Array(capacity);
    scales.set(this.scales);
    this.scales = scales;
  }
}

/** A min-heap of the best rows by score, reused from search to search; ties keep the row seen first. */
class BestRows {
  private scores = new Float32Array(0);
  private kept = new Int32Array(0);
  private size = 0;
  private k = 0;

  reset(k: number): this {
    if (this.kept.length < k) {
      this.scores = new Float32Array(k);
      this.kept = new Int32Array(k);
    }
    this.k = k;
    this.size = 0;
    return this;
  }

  /** True when a row of this score would not be kept. */
  refuses(score: number): boolean {
    return this.size === this.k && score <= this.scores[0];
  }

  offer(score: number, row: number): void {
    const { scores, kept } = this;
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (scores[parent] <= score) break;
        scores[i] = scores[parent];
        kept[i] = kept[parent];
        i = parent;
      }
      scores[i] = score;
      kept[i] = row;
      return;
    }
    // Replace the root (the worst kept) and sift down.
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.k) break;
      const right = left + 1;
      const child = right < this.k && scores[right] < scores[left] ? right : left;
      if (scores[child] >= score) break;
      scores[i] = scores[child];
      kept[i] = kept[child];
      i = child;
    }
    scores[i] = score;
    kept[i] = row;
  }

  rows(): Int32Array {
    return this.kept.subarray(0, this.size);
  }
}
