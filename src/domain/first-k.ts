/**
 * The first `k` items in the order `compare` defines, as `[...items].sort(compare).slice(0, k)` gives them (ties
 * keep their input order), without sorting them all: hub entities bring thousands of relationships and
 * neighbours, of which a query keeps a few dozen. Kept in a short sorted list; most items are turned away by one
 * comparison with its last.
 */
export function firstK<T>(items: Iterable<T>, k: number, compare: (a: T, b: T) => number): T[] {
  const best: T[] = [];
  if (k <= 0) return best;
  for (const item of items) {
    if (best.length === k && compare(item, best[k - 1]) >= 0) continue;
    let at = best.length;
    while (at > 0 && compare(item, best[at - 1]) < 0) at--;
    best.splice(at, 0, item);
    if (best.length > k) best.pop();
  }
  return best;
}
