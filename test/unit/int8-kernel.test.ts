import { kernelMemory } from '../../src/store/memory/dot-kernel';
import { BLOCK_ROWS, int8Kernel, PAIR_BYTES } from '../../src/store/memory/int8-kernel';

/**
 * A block of `stride` columns of BLOCK_ROWS bytes at byte 0, the rows' scales after it, then the pairs, then
 * the scores.
 */
function setUp(stride: number, seed: number) {
  const scalesAt = stride * BLOCK_ROWS;
  const pairsAt = scalesAt + BLOCK_ROWS * 4;
  const outAt = pairsAt + stride * PAIR_BYTES;
  const memory = kernelMemory(Math.ceil((outAt + BLOCK_ROWS * 4) / 65_536));
  const block = new Int8Array(memory.buffer, 0, scalesAt);
  const scales = new Float32Array(memory.buffer, scalesAt, BLOCK_ROWS);
  let state = seed;
  const next = () => (state = (state * 1_103_515_245 + 12_345) % 2_147_483_648);
  for (let i = 0; i < block.length; i++) block[i] = (next() % 255) - 127;
  for (let r = 0; r < BLOCK_ROWS; r++) scales[r] = (next() % 1000) / 997;
  const byteOf = (row: number, column: number) => block[column * BLOCK_ROWS + row];
  /** What the kernel must write for a row whose sum is `sum`: the sum as f32, times the row's scale, as f32. */
  const scaled = (row: number, sum: number) => Math.fround(Math.fround(sum) * scales[row]);
  return { memory, scalesAt, pairsAt, outAt, next, byteOf, scaled };
}

describe('the SIMD byte dot-product kernel over a block stored column by column', () => {
  it.each([
    [16, 16],
    [48, 48],
    [256, BLOCK_ROWS],
    [1536, 64],
  ])('adds each row’s products with the query’s pairs of columns, exactly, then scales, at stride %i over %i rows', (stride, rows) => {
    const { memory, scalesAt, pairsAt, outAt, next, byteOf, scaled } = setUp(stride, stride);
    // About a fifth of the components, in no order, the last one paired with itself at weight 0.
    const columns = Array.from({ length: stride }, (_, i) => i).filter(() => next() % 5 === 0);
    if (columns.length % 2 === 0) columns.pop();
    const weights = columns.map(() => (next() % 2047) - 1023);
    const pairs = new Int32Array(memory.buffer, pairsAt, Math.ceil(columns.length / 2) * 3);
    for (let p = 0; 2 * p < columns.length; p++) {
      const [j, k] = [columns[2 * p], columns[2 * p + 1] ?? columns[2 * p]];
      const [wj, wk] = [weights[2 * p], 2 * p + 1 < columns.length ? weights[2 * p + 1] : 0];
      pairs.set([j * BLOCK_ROWS, k * BLOCK_ROWS, (wj & 0xffff) | (wk << 16)], p * 3);
    }
    new Int32Array(memory.buffer, outAt, BLOCK_ROWS).fill(5);
    int8Kernel(memory)(0, pairsAt, pairs.length / 3, rows, outAt, scalesAt);
    const scores = new Float32Array(memory.buffer, outAt, rows);
    for (let r = 0; r < rows; r++) {
      let sum = 5;
      columns.forEach((column, i) => (sum += byteOf(r, column) * weights[i]));
      expect(scores[r]).toBe(scaled(r, sum));
    }
    expect([...new Int32Array(memory.buffer, outAt + rows * 4, BLOCK_ROWS - rows)].every((v) => v === 5)).toBe(true);
  });

  it('reads every column of a dense query', () => {
    const stride = 64;
    const { memory, scalesAt, pairsAt, outAt, next, byteOf, scaled } = setUp(stride, 7);
    const weights = Array.from({ length: stride }, () => (next() % 2047) - 1023);
    const pairs = new Int32Array(memory.buffer, pairsAt, (stride / 2) * 3);
    for (let p = 0; p < stride / 2; p++) {
      pairs.set([2 * p * BLOCK_ROWS, (2 * p + 1) * BLOCK_ROWS, (weights[2 * p] & 0xffff) | (weights[2 * p + 1] << 16)], p * 3);
    }
    new Int32Array(memory.buffer, outAt, 32).fill(0);
    int8Kernel(memory)(0, pairsAt, stride / 2, 32, outAt, scalesAt);
    const scores = new Float32Array(memory.buffer, outAt, 32);
    for (let r = 0; r < 32; r++) {
      let sum = 0;
      for (let i = 0; i < stride; i++) sum += byteOf(r, i) * weights[i];
      expect(scores[r]).toBe(scaled(r, sum));
    }
  });

  it('only scales the sums for no pairs, and writes nothing for no rows', () => {
    const memory = kernelMemory();
    const out = new Int32Array(memory.buffer, 1024, 16).fill(7);
    new Float32Array(memory.buffer, 2048, 16).fill(0.5);
    new Int32Array(memory.buffer, 512, 3).set([0, 16, 0x00010001]);
    int8Kernel(memory)(0, 512, 1, 0, 1024, 2048);
    expect([...out]).toEqual(new Array(16).fill(7));
    int8Kernel(memory)(0, 512, 0, 16, 1024, 2048);
    expect([...new Float32Array(memory.buffer, 1024, 16)]).toEqual(new Array(16).fill(3.5));
  });
});
