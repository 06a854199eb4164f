import {
  BLOCK,
  BR,
  BR_IF,
  END,
  I32,
  I32_ADD,
  I32_GE_U,
  I32_LT_U,
  I32_MUL,
  I32_SHL,
  LOCAL_TEE,
  LOOP,
  SIMD,
  V128,
  V128_CONST_ZERO,
  V128_LOAD,
  VOID,
  get,
  i32,
  leb,
  name,
  section,
  set,
  vec,
  wasm,
  type WasmMemory,
} from './wasm-bytes';

/**
 * Integer dot products of a query with every row of a matrix of signed bytes, in WebAssembly SIMD: each 16
 * bytes of a row are widened to two i16x8 and multiplied with the query (held as i16) by `i32x4.dot_i16x8_s`.
 * A row of bytes is a quarter of a row of floats, so a scan reads a quarter of the memory. Rows are
 * `strideBytes` long, a multiple of 16; the query is `2 * strideBytes` long.
 */

const I32_STORE = 0x36;
const I16X8_EXTEND_LOW_I8X16_S = [SIMD, 0x87, 0x01];
const I16X8_EXTEND_HIGH_I8X16_S = [SIMD, 0x88, 0x01];
const I32X4_DOT_I16X8_S = [SIMD, 0xba, 0x01];
const I32X4_ADD = [SIMD, 0xae, 0x01];
const I32X4_EXTRACT = (lane: number) => [SIMD, 0x1b, lane];

// Parameters, then locals: row counter, byte offset within the row, row address, the query's address for the
// current bytes, two accumulators and the loaded bytes.
const [ROWS, COUNT, STRIDE, QUERY, OUT] = [0, 1, 2, 3, 4];
const [ROW, I, PTR, Q, ACC0, ACC1, BYTES] = [5, 6, 7, 8, 9, 10, 11];

const load = (base: number, offset: number) => [...get(base), ...V128_LOAD, 0x00, ...leb(offset)];
const widenAndDot = (widen: number[], queryOffset: number, acc: number) => [
  ...get(acc),
  ...get(BYTES),
  ...widen,
  ...load(Q, queryOffset),
  ...I32X4_DOT_I16X8_S,
  ...I32X4_ADD,
  ...set(acc),
];

const scanBody = [
  ...vec([
    [4, I32],
    [3, V128],
  ]),
  BLOCK,
  VOID,
  LOOP,
  VOID,
  ...get(ROW),
  ...get(COUNT),
  I32_GE_U,
  BR_IF,
  1,
  ...get(ROWS),
  ...get(ROW),
  ...get(STRIDE),
  I32_MUL,
  I32_ADD,
  ...set(PTR),
  ...V128_CONST_ZERO,
  LOCAL_TEE,
  ACC0,
  ...set(ACC1),
  ...i32(0),
  ...set(I),
  LOOP,
  VOID,
  // bytes = row[i .. i + 16]; q = query + 2 i
  ...get(PTR),
  ...get(I),
  I32_ADD,
  ...V128_LOAD,
  0x00,
  0x00,
  ...set(BYTES),
  ...get(QUERY),
  ...get(I),
  ...i32(1),
  I32_SHL,
  I32_ADD,
  ...set(Q),
  ...widenAndDot(I16X8_EXTEND_LOW_I8X16_S, 0, ACC0),
  ...widenAndDot(I16X8_EXTEND_HIGH_I8X16_S, 16, ACC1),
  ...get(I),
  ...i32(16),
  I32_ADD,
  LOCAL_TEE,
  I,
  ...get(STRIDE),
  I32_LT_U,
  BR_IF,
  0,
  END,
  // out[row] = the four lanes of acc0 + acc1, summed
  ...get(OUT),
  ...get(ROW),
  ...i32(2),
  I32_SHL,
  I32_ADD,
  ...get(ACC0),
  ...get(ACC1),
  ...I32X4_ADD,
  LOCAL_TEE,
  ACC0,
  ...I32X4_EXTRACT(0),
  ...get(ACC0),
  ...I32X4_EXTRACT(1),
  I32_ADD,
  ...get(ACC0),
  ...I32X4_EXTRACT(2),
  ...get(ACC0),
  ...I32X4_EXTRACT(3),
  I32_ADD,
  I32_ADD,
  I32_STORE,
  0x02,
  0x00,
  ...get(ROW),
  ...i32(1),
  I32_ADD,
  ...set(ROW),
  BR,
  0,
  END,
  END,
  END,
];

const moduleBytes = new Uint8Array([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
  ...section(1, vec([[0x60, ...vec([[I32], [I32], [I32], [I32], [I32]]), 0x00]])),
  ...section(2, vec([[...name('env'), ...name('memory'), 0x02, 0x00, 0x01]])),
  ...section(3, vec([[0x00]])),
  ...section(7, vec([[...name('scan'), 0x00, 0x00]])),
  ...section(10, vec([[...leb(scanBody.length), ...scanBody]])),
]);

let compiled: object | null = null;

/** out[r] = Σ rows[r][i] · query[i] for r < count, in i32 (byte offsets; rows i8, query i16, out i32). */
export type Int8ScanFunction = (rows: number, count: number, strideBytes: number, query: number, out: number) => void;

/** The kernel bound to a memory; byte offsets passed to it are offsets into that memory. */
export function int8Kernel(memory: WasmMemory): Int8ScanFunction {
  compiled ??= new wasm.Module(moduleBytes);
  return new wasm.Instance(compiled, { env: { memory } }).exports.scan as Int8ScanFunction;
}
