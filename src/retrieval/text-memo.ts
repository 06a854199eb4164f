/**
 * A pure function of a text, remembered for the texts it was last asked about, the oldest forgotten first, while
 * the remembered keys and values hold at most `maxChars` characters together. Keyed by the text itself: a stored
 * record's string is hashed once, and a changed record is a new key. Bounded by characters rather than entries,
 * because a description that changes with every upload leaves a long key behind each time.
 * For the small per-record strings every query rebuilds (snippets, one-line descriptions).
 */
export function memoText(fn: (text: string) => string, maxChars: number): (text: string) => string {
  const known = new Map<string, string>();
  let held = 0;
  return (text) => {
    const hit = known.get(text);
    if (hit !== undefined) return hit;
    const value = fn(text);
    const size = text.length + value.length;
    if (size > maxChars) return value;
    held += size;
    for (const [key, old] of known) {
      if (held <= maxChars) break;
      known.delete(key);
      held -= key.length + old.length;
    }
    known.set(text, value);
    return value;
  };
}
