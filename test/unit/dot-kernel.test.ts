import { dotKernel, kernelMemory } from '../../src/store/memory/dot-kernel';

describe('the SIMD dot-product kernel', () => {
  it.each([16, 48, 256, 1536])('scores every row, and rows picked by number, like the scalar dot product at stride %i', (stride) => {
    const rows = 37;
    const memory = kernelMemory(Math.ceil(((rows + 1) * stride * 4 + rows * 4 + 32) / 65_536));
    const { scan, gather } = dotKernel(memory);
    const floats = new Float32Array(memory.buffer, 0, (rows + 1) * stride);
    let seed = stride;
    for (let i = 0; i < floats.length; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      floats[i] = seed / 1_073_741_824 - 1;
    }
    const queryAt = rows * stride * 4;
    const scoresAt = queryAt + stride * 4;
    scan(0, rows, stride * 4, queryAt, scoresAt);
    const scores = new Float32Array(memory.buffer, scoresAt, rows);
    for (let r = 0; r < rows; r++) {
      let expected = 0;
      for (let i = 0; i < stride; i++) expected += floats[r * stride + i] * floats[rows * stride + i];
      expect(scores[r]).toBeCloseTo(expected, 3);
    }
    const picked = [5, 0, 36, 5];
    const idsAt = scoresAt + rows * 4;
    new Int32Array(memory.buffer, idsAt, picked.length).set(picked);
    const gatheredAt = idsAt + picked.length * 4;
    gather(0, idsAt, picked.length, stride * 4, queryAt, gatheredAt);
    expect([...new Float32Array(memory.buffer, gatheredAt, picked.length)]).toEqual(picked.map((r) => scores[r]));
  });

  it('writes nothing for zero rows', () => {
    const memory = kernelMemory();
    const out = new Float32Array(memory.buffer, 1024, 4).fill(7);
    dotKernel(memory).scan(0, 0, 64, 512, 1024);
    expect([...out]).toEqual([7, 7, 7, 7]);
  });
});
