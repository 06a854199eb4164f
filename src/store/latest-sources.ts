/** The last `n` of a record's source ids (the latest come last): none when `n` is 0, where `slice(-0)` keeps all. */
export function latestOf<T>(list: readonly T[], n: number): T[] {
  return n <= 0 ? [] : list.slice(-n);
}
