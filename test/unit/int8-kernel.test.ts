import { kernelMemory } from '../../src/store/memory/dot-kernel';
import { int8Kernel } from '../../src/store/memory/int8-kernel';

describe('the SIMD byte dot-product kernel', () => {
  it.each([16, 48, 256, 1536])('scores every row exactly like the integer dot product at stride %i', (stride) => {
    const rows = 37;
    const memory = kernelMemory(Math.ceil((rows * stride + stride * 2 + rows * 4 + 64) / 65_536));
    const scan = int8Kernel(memory);
    const bytes = new Int8Array(memory.buffer, 0, rows * stride);
    const queryAt = rows * stride;
    const query = new Int16Array(memory.buffer, queryAt, stride);
    let seed = stride;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (next() % 255) - 127;
    for (let i = 0; i < stride; i++) query[i] = (next() % 2047) - 1023;
    const outAt = queryAt + stride * 2;
    scan(0, rows, stride, queryAt, outAt);
    const scores = new Int32Array(memory.buffer, outAt, rows);
    for (let r = 0; r < rows; r++) {
      let expected = 0;
      for (let i = 0; i < stride; i++) expected += bytes[r * stride + i] * query[i];
      expect(scores[r]).toBe(expected);
    }
  });

  it('writes nothing for zero rows', () => {
    const memory = kernelMemory();
    const out = new Int32Array(memory.buffer, 1024, 4).fill(7);
    int8Kernel(memory)(0, 0, 16, 512, 1024);
    expect([...out]).toEqual([7, 7, 7, 7]);
  });
});
