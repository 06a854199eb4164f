import {
  END,
  I32,
  I32_ADD,
  I32_LOAD,
  I32_MUL,
  I32_SHL,
  LOCAL_TEE,
  SIMD,
  V128,
  V128_LOAD,
  countedLoop,
  get,
  i32,
  kernelInstances,
  kernelModule,
  leb,
  set,
  vec,
  wordAddress,
  type WasmMemory,
} from './wasm-bytes';

/**
 * Integer dot products of a query with the rows of a block of signed bytes, in WebAssembly SIMD, reading only
 * the query's non-zero components. A block holds `BLOCK_ROWS` rows column by column: component i of every row,
 * then component i + 1. The query comes as pairs of components (the offsets of their two columns in the block
 * and their two weights as i16): for every 16 rows, the bytes of the two columns are interleaved, widened to
 * i16 and multiplied by the weights with `i32x4.dot_i16x8_s`, which sums each row's two products; the sums
 * are added to one i32 score per row. A query of a short text embedded by feature hashing has a fifth of its
 * components non-zero, so a scan reads a fifth of the bytes; a dense query reads them all, at the cost of a
 * scan row by row.
 */

/**
 * Rows per block: each pair of columns reads two runs of 4 KB and adds to 16 KB of scores. Shorter runs scanned
 * slower (0.91 ms for 155,261 rows with a fifth of the columns; 1.58 ms with blocks of 512 rows).
 */
export const BLOCK_ROWS = 4096;
/** Bytes of one pair of the query: two column offsets and the two weights packed as an i32. */
export const PAIR_BYTES = 12;

const V128_STORE = [SIMD, 0x0b];
const I8X16_SHUFFLE = [SIMD, 0x0d];
const I32X4_SPLAT = [SIMD, 0x11];
const I16X8_EXTEND_LOW_I8X16_S = [SIMD, 0x87, 0x01];
const I16X8_EXTEND_HIGH_I8X16_S = [SIMD, 0x88, 0x01];
const I32X4_DOT_I16X8_S = [SIMD, 0xba, 0x01];
const I32X4_ADD = [SIMD, 0xae, 0x01];
const F32X4_MUL = [SIMD, 0xe6, 0x01];
const F32X4_CONVERT_I32X4_S = [SIMD, 0xfa, 0x01];

/** Lanes 0..15 are the first column's bytes, 16..31 the second's: rows 0-7 and rows 8-15 of both, interleaved. */
const INTERLEAVE_LOW = [0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23];
const INTERLEAVE_HIGH = INTERLEAVE_LOW.map((lane) => lane + 8);

// Parameters, then locals: pair counter, row offset, the two columns' addresses, the scores' address for the
// current rows; the packed weights, the two columns' bytes, and their interleavings.
const [BLOCK_AT, PAIRS, PAIR_COUNT, ROWS, OUT, SCALES] = [0, 1, 2, 3, 4, 5];
const [P, R, COL_J, COL_K, SCORES, W, A, B, LO, HI] = [6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

const memarg = (offset: number) => [0x00, ...leb(offset)];
const pairField = (offset: number) => [...get(PAIRS), ...get(P), ...i32(PAIR_BYTES), I32_MUL, I32_ADD, I32_LOAD, 0x02, ...leb(offset)];

/** scores[lane group] += dot(widened half of an interleaving, weights). */
const addDot = (source: number, widen: number[], offset: number) => [
  ...get(SCORES),
  ...get(SCORES),
  ...V128_LOAD,
  ...memarg(offset),
  ...get(source),
  ...widen,
  ...get(W),
  ...I32X4_DOT_I16X8_S,
  ...I32X4_ADD,
  ...V128_STORE,
  ...memarg(offset),
];

/** scores[4 rows] = f32(scores) · scales[the same rows]; SCORES and COL_J hold their addresses. */
const scaleFour = (offset: number) => [
  ...get(SCORES),
  ...get(SCORES),
  ...V128_LOAD,
  ...memarg(offset),
  ...F32X4_CONVERT_I32X4_S,
  ...get(COL_J),
  ...V128_LOAD,
  ...memarg(offset),
  ...F32X4_MUL,
  ...V128_STORE,
  ...memarg(offset),
];

/** The bytes of 16 rows of the column whose address is in local `address`, into local `target`. */
const loadRows = (address: number, target: number) => [...get(address), ...get(R), I32_ADD, ...V128_LOAD, ...memarg(0), ...set(target)];
const interleave = (lanes: number[], target: number) => [...get(A), ...get(B), ...I8X16_SHUFFLE, ...lanes, ...set(target)];

/** For 16 rows of a pair of columns: interleave their bytes, then add the four groups of four rows' sums. */
const pairRows = [
  ...loadRows(COL_J, A),
  ...loadRows(COL_K, B),
  ...interleave(INTERLEAVE_LOW, LO),
  ...interleave(INTERLEAVE_HIGH, HI),
  ...wordAddress(OUT, R),
  ...set(SCORES),
  ...addDot(LO, I16X8_EXTEND_LOW_I8X16_S, 0),
  ...addDot(LO, I16X8_EXTEND_HIGH_I8X16_S, 16),
  ...addDot(HI, I16X8_EXTEND_LOW_I8X16_S, 32),
  ...addDot(HI, I16X8_EXTEND_HIGH_I8X16_S, 48),
];

/** For one pair: the two columns' addresses and the weights, then every 16 rows of the block. */
const pair = [
  ...get(BLOCK_AT),
  ...pairField(0),
  I32_ADD,
  ...set(COL_J),
  ...get(BLOCK_AT),
  ...pairField(4),
  I32_ADD,
  ...set(COL_K),
  ...pairField(8),
  ...I32X4_SPLAT,
  ...set(W),
  ...countedLoop(R, ROWS, 16, pairRows),
];

/** For 16 rows: their sums as f32, times their scales. */
const scaleRows = [
  ...get(OUT),
  ...get(R),
  ...i32(2),
  I32_SHL,
  LOCAL_TEE,
  COL_K,
  I32_ADD,
  ...set(SCORES),
  ...get(SCALES),
  ...get(COL_K),
  I32_ADD,
  ...set(COL_J),
  ...scaleFour(0),
  ...scaleFour(16),
  ...scaleFour(32),
  ...scaleFour(48),
];

const scanBody = [
  ...vec([
    [5, I32],
    [5, V128],
  ]),
  ...countedLoop(P, PAIR_COUNT, 1, pair),
  // Then each row's sum, as f32, times the row's scale.
  ...countedLoop(R, ROWS, 16, scaleRows),
  END,
];

const instantiate = kernelInstances(kernelModule([{ name: 'scan', params: 6, body: scanBody }]));

/**
 * out[r] = (out[r] + Σ over the pairs of rows[r][j] · wj + rows[r][k] · wk) · scales[r], for r < rows (a
 * multiple of 16, at most BLOCK_ROWS), where the block is at `block` and pair p is at pairs + 12 p: the byte
 * offsets of columns j and k within the block (j · BLOCK_ROWS), then wj | wk << 16. The sums are i32, the
 * scales and the results f32 (out holds i32 sums going in, f32 scores coming out). All offsets are byte offsets.
 */
export type Int8ScanFunction = (block: number, pairs: number, pairCount: number, rows: number, out: number, scales: number) => void;

/** The kernel bound to a memory; byte offsets passed to it are offsets into that memory. */
export function int8Kernel(memory: WasmMemory): Int8ScanFunction {
  return instantiate(memory).scan as Int8ScanFunction;
}
