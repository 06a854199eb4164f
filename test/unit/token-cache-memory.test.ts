import v8 from 'node:v8';
import vm from 'node:vm';
import { countTokens } from '../../src/llm/tokens';

v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;

function liveHeap(): number {
  collect();
  return process.memoryUsage().heapUsed;
}

describe('token counting memory', () => {
  it('keeps no counted text alive through the pieces it caches', () => {
    countTokens('loads the rank table first');
    const letters = (i: number) => [...i.toString(26)].map((d) => String.fromCharCode(97 + parseInt(d, 26))).join('');
    const before = liveHeap();
    // 100 texts of 200 KB, each with a piece never seen before: a cache keyed by views into the texts would keep 20 MB.
    for (let i = 0; i < 100; i++) {
      const text = `${'plain words repeated here '.repeat(8000)}unrepeatedpiece${letters(i)}`;
      expect(countTokens(text)).toBeGreaterThan(8000);
    }
    expect(liveHeap() - before).toBeLessThan(5 * 1024 * 1024);
  });
});
