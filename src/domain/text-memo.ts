/**
 * A pure function of a text, remembered for the texts it was last asked about, the oldest forgotten first, while
 * the remembered keys and values hold at most `maxChars` characters together (`charsOf` says how many a value
 * holds). Keyed by the text itself: a stored record's string is hashed once, and a changed record is a new key.
 * Bounded by characters rather than entries, because a description that changes with every upload leaves a long
 * key behind each time. For what every query rebuilds from the same stored texts (snippets, one-line descriptions,
 * the mock provider's sentences). Callers must not change what they are given.
 */
export function memoByText<T>(fn: (text: string) => T, maxChars: number, charsOf: (value: T) => number): (text: string) => T {
  const known = new Map<string, { value: T; size: number }>();
  let held = 0;
  return (text) => {
    const hit = known.get(text);
    if (hit !== undefined) return hit.value;
    // Computed from a copy of its own and remembered under it, so that neither the key nor slices of it in the value
    // keep a larger text alive: a section cut from a 50 KB prompt would otherwise hold the whole prompt.
    const own = ownCopy(text);
    const value = fn(own);
    const size = text.length + charsOf(value);
    if (size > maxChars) return value;
    held += size;
    for (const [key, old] of known) {
      if (held <= maxChars) break;
      known.delete(key);
      held -= old.size;
    }
    known.set(own, { value, size });
    return value;
  };
}

/**
 * A copy of `text` that holds no larger string. V8 cuts a substring of 13 characters or more as a view into the
 * string it came from, which then lives as long as the view; a shorter one is a copy already.
 */
export function ownCopy(text: string): string {
  return text.length < 13 ? text : ` ${text}`.slice(1);
}

/** `memoByText` of a function from text to text. */
export function memoText(fn: (text: string) => string, maxChars: number): (text: string) => string {
  return memoByText(fn, maxChars, (value) => value.length);
}
