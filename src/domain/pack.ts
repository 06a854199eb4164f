/**
 * Consecutive items in groups, in their order: a group closes before the item that would take its weight past
 * `budget`, or its size past `maxItems`; an item heavier than the budget alone makes a group of its own.
 */
export function packByWeight<T>(items: Iterable<T>, weightOf: (item: T) => number, budget: number, maxItems = Infinity): T[][] {
  const groups: T[][] = [];
  let group: T[] = [];
  let weight = 0;
  for (const item of items) {
    const w = weightOf(item);
    if (group.length > 0 && (group.length >= maxItems || weight + w > budget)) {
      groups.push(group);
      group = [];
      weight = 0;
    }
    group.push(item);
    weight += w;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}
