import { firstK } from '../../src/domain/first-k';
import { seededRandom } from '../contract/fixtures';

describe('firstK', () => {
  const byScore = (a: { score: number }, b: { score: number }) => b.score - a.score;

  it('equals sorting everything and keeping the first k, ties in input order', () => {
    const random = seededRandom(7);
    for (let round = 0; round < 200; round++) {
      const n = Math.floor(random() * 300);
      // Few distinct scores, so that many items tie and the input order decides among them.
      const items = Array.from({ length: n }, (_, id) => ({ id, score: Math.floor(random() * 8) }));
      for (const k of [0, 1, 5, 20, n, n + 3]) {
        expect(firstK(items, k, byScore)).toEqual([...items].sort(byScore).slice(0, k));
      }
    }
  });

  it('takes any iterable', () => {
    const scores = new Map([
      ['a', 1],
      ['b', 3],
      ['c', 2],
    ]);
    expect(firstK(scores.keys(), 2, (x, y) => (scores.get(y) as number) - (scores.get(x) as number))).toEqual(['b', 'c']);
  });
});
