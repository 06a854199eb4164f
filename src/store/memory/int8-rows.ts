import { kernelMemory } from './dot-kernel';
import { BLOCK_ROWS, int8Kernel, type Int8ScanFunction, PAIR_BYTES } from './int8-kernel';

const PAGE = 65_536;
/** Largest byte of a row: each row is scaled so its largest component is this. */
const ROW_LEVELS = 127;
/** Largest query component as i16: fine enough, and far from overflowing the i32 sums at any dimension. */
const QUERY_LEVELS = 1023;

/**
 * A copy of a matrix's rows as signed bytes, each row with its own scale, in a WebAssembly memory of its own:
 * blocks of BLOCK_ROWS rows from byte 0, each stored column by column (./int8-kernel.ts), then the query's
 * pairs of non-zero components and one i32 score per row. Scanning it reads at most a quarter of the bytes of
 * the float rows, and only the columns where the query is not zero, so it serves to pick candidates that the
 * float rows then score exactly. Row numbers follow the float rows (./vector-matrix.ts); the memory grows by
 * whole blocks and never moves them.
 */
export class Int8Rows {
  private readonly memory = kernelMemory();
  private readonly scan: Int8ScanFunction;
  private capacity = 0;
  private bytes = new Int8Array(0);
  /** The same memory as floats, for the scales. */
  private floats = new Float32Array(0);
  /** A block: its columns of BLOCK_ROWS bytes, then the scale of each of its rows (f32). */
  private readonly blockBytes: number;
  private readonly best = new BestRows();

  constructor(private readonly stride: number) {
    this.scan = int8Kernel(this.memory);
    this.blockBytes = stride * BLOCK_ROWS + BLOCK_ROWS * 4;
  }

  /** Row `row` from the float row at `offset` of `source` (stride floats). */
  write(row: number, source: Float32Array, offset: number): void {
    this.reserve(row + 1);
    const { stride } = this;
    let largest = 0;
    for (let i = 0; i < stride; i++) largest = Math.max(largest, Math.abs(source[offset + i]));
    const scale = largest > 0 ? ROW_LEVELS / largest : 0;
    const at = this.firstByteOf(row);
    for (let i = 0; i < stride; i++) this.bytes[at + i * BLOCK_ROWS] = Math.round(source[offset + i] * scale);
    this.floats[this.scaleIndexOf(row)] = largest / ROW_LEVELS;
  }

  /** Copies row `from` over row `to` (a delete moves the last row into the hole). */
  move(from: number, to: number): void {
    const source = this.firstByteOf(from);
    const target = this.firstByteOf(to);
    for (let i = 0, n = this.stride * BLOCK_ROWS; i < n; i += BLOCK_ROWS) this.bytes[target + i] = this.bytes[source + i];
    this.floats[this.scaleIndexOf(to)] = this.floats[this.scaleIndexOf(from)];
  }

  /**
   * The `pool` rows of 0..count-1 with the best approximate scores with a normalised query padded to the stride
   * (in the query's units, the same for every row, so they rank as the true scores do up to the rounding),
   * skipping rows `keep` refuses. In no particular order; the view is valid until the next call.
   */
  candidates(query: Float32Array, count: number, pool: number, keep?: (row: number) => boolean): Int32Array {
    const pairsAt = this.blocks() * this.blockBytes;
    const outAt = pairsAt + this.pairBytes();
    const pairs = this.writePairs(query, pairsAt);
    const scores = new Float32Array(this.memory.buffer, outAt, count);
    if (pairs > 0) {
      new Int32Array(this.memory.buffer, outAt, roundUp(count, 16)).fill(0);
      const scalesAt = this.stride * BLOCK_ROWS;
      for (let first = 0, block = 0; first < count; first += BLOCK_ROWS, block += this.blockBytes) {
        const rows = roundUp(Math.min(BLOCK_ROWS, count - first), 16);
        this.scan(block, pairsAt, pairs, rows, outAt + first * 4, block + scalesAt);
      }
    } else scores.fill(0);
    const best = this.best.reset(pool);
    for (let r = 0; r < count; r++) {
      const score = scores[r];
      if (best.refuses(score) || (keep && !keep(r))) continue;
      best.offer(score, r);
    }
    return best.rows();
  }

  /**
   * Writes the query's non-zero components, in i16 units, as pairs for the kernel; an odd one out is paired
   * with itself at weight 0. Returns the number of pairs.
   */
  private writePairs(query: Float32Array, at: number): number {
    const { stride } = this;
    let largest = 0;
    for (let i = 0; i < stride; i++) largest = Math.max(largest, Math.abs(query[i]));
    const scale = largest > 0 ? QUERY_LEVELS / largest : 0;
    const pairs = new Int32Array(this.memory.buffer, at, this.pairBytes() / 4);
    let pair = 0;
    let open = -1;
    for (let i = 0; i < stride; i++) {
      const weight = Math.round(query[i] * scale);
      if (weight === 0) continue;
      if (open < 0) {
        open = pair * 3;
        pairs[open] = pairs[open + 1] = i * BLOCK_ROWS;
        pairs[open + 2] = weight & 0xffff;
        pair++;
      } else {
        pairs[open + 1] = i * BLOCK_ROWS;
        pairs[open + 2] |= weight << 16;
        open = -1;
      }
    }
    return pair;
  }

  /** Where row `row`'s first component is: its block, then its place in the block's first column. */
  private firstByteOf(row: number): number {
    return Math.floor(row / BLOCK_ROWS) * this.blockBytes + (row % BLOCK_ROWS);
  }

  /** Where row `row`'s scale is, in floats. */
  private scaleIndexOf(row: number): number {
    return (Math.floor(row / BLOCK_ROWS) * this.blockBytes + this.stride * BLOCK_ROWS) / 4 + (row % BLOCK_ROWS);
  }

  private blocks(): number {
    return this.capacity / BLOCK_ROWS;
  }

  /** Room for the most pairs a query can have, a multiple of 16 bytes. */
  private pairBytes(): number {
    return roundUp(Math.ceil(this.stride / 2) * PAIR_BYTES, 16);
  }

  private reserve(rowsNeeded: number): void {
    if (rowsNeeded <= this.capacity) return;
    const capacity = roundUp(Math.max(rowsNeeded, this.capacity * 2), BLOCK_ROWS);
    const held = (capacity / BLOCK_ROWS) * this.blockBytes;
    const pages = Math.ceil((held + this.pairBytes() + capacity * 4) / PAGE) - this.memory.buffer.byteLength / PAGE;
    if (pages > 0) this.memory.grow(pages);
    this.capacity = capacity;
    this.bytes = new Int8Array(this.memory.buffer, 0, held);
    this.floats = new Float32Array(this.memory.buffer, 0, held / 4);
  }
}

function roundUp(n: number, multiple: number): number {
  return Math.ceil(n / multiple) * multiple;
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
