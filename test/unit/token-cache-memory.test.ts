import v8 from 'node:v8';
import vm from 'node:vm';
import { memoByText } from '../../src/domain/text-memo';
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

describe('text memo memory', () => {
  it('keeps no larger text alive through the sections it remembers, in its keys or in slices of them', () => {
    // Sentences of a section: the values are slices of the key, as the mock provider's sentence memo has them.
    const sentences = memoByText(
      (t: string) => t.split('. '),
      1_000_000,
      (parts) => parts.reduce((n, p) => n + p.length, 0),
    );
    const before = liveHeap();
    // 100 prompts of 200 KB, each with a 40-character section remembered: views into the prompts would keep 20 MB.
    for (let i = 0; i < 100; i++) {
      const prompt = `${'plain words repeated here. '.repeat(7500)}section ${i} of this prompt. it ends here`;
      const section = prompt.slice(prompt.lastIndexOf('section'));
      expect(sentences(section)).toHaveLength(2);
    }
    expect(liveHeap() - before).toBeLessThan(5 * 1024 * 1024);
  });
});
