import { packByWeight } from '../../src/domain/pack';

describe('packByWeight', () => {
  const length = (s: string) => s.length;

  it('closes a group before the item that would take it past the budget, keeping the order', () => {
    expect(packByWeight(['aa', 'bbb', 'c', 'dddd', 'e'], length, 5)).toEqual([['aa', 'bbb'], ['c', 'dddd'], ['e']]);
  });

  it('puts an item heavier than the budget in a group of its own', () => {
    expect(packByWeight(['a', 'bbbbbbb', 'c'], length, 3)).toEqual([['a'], ['bbbbbbb'], ['c']]);
  });

  it('closes a group at maxItems items whatever its weight', () => {
    expect(packByWeight([1, 1, 1, 1, 1], () => 0, 10, 2)).toEqual([[1, 1], [1, 1], [1]]);
  });

  it('makes no group of nothing', () => {
    expect(packByWeight([], length, 5)).toEqual([]);
  });
});
