import { firstK } from '../domain/first-k';

/**
 * Local expansion's order of the relationships around its seeds, ids aside: those joining more seeds first, then
 * those whose end points have the larger sum of degrees, then the heavier. Shared by the expansion (which breaks
 * the ties left by id) and by the stores that keep only what it will keep (`AroundOptions.keep`).
 */
export interface AroundRank {
  joined: number;
  rank: number;
  weight: number;
}

export function byAroundRank(a: AroundRank, b: AroundRank): number {
  return b.joined - a.joined || b.rank - a.rank || b.weight - a.weight;
}

/** The items ranking within the first `keep`, with every one tied with the last of them; in their input order. */
export function withinFirst<T extends AroundRank>(items: T[], keep: number): T[] {
  if (items.length <= keep) return items;
  const last = firstK(items, keep, byAroundRank).at(-1);
  return last ? items.filter((item) => byAroundRank(item, last) <= 0) : [];
}
