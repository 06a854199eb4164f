/**
 * A pure function of a text, remembered for the last `size` texts it was asked about (the oldest forgotten
 * first). Keyed by the text itself: a stored record's string is hashed once, and a changed record is a new key.
 * For the small per-record strings every query rebuilds (snippets, one-line descriptions).
 */
export function memoText(fn: (text: string) => string, size: number): (text: string) => string {
  const known = new Map<string, string>();
  return (text) => {
    const hit = known.get(text);
    if (hit !== undefined) return hit;
    const value = fn(text);
    if (known.size >= size) known.delete(known.keys().next().value as string);
    known.set(text, value);
    return value;
  };
}
