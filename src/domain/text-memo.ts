/**
 * A pure function of a text, remembered for the texts it was last asked about, the oldest forgotten first, while
 * the remembered keys and values hold at most `maxChars` characters together (`charsOf` says how many a value
 * holds). Keyed by the text itself: a stored record's string is hashed once, and a changed record is a new key.
 * Bounded by characters rather than entries, because a description that changes with every upload leaves a long
 * key behind each time. For what every query rebuilds from the same stored texts (snippets, one-line descriptions,
 * the mock provider's sentences). Callers must not change what they are given.
 */
export function memoByText<T>(fn: (text: string) => T, maxChars: number, charsOf: (value: T) => number): (text: string) => T {
  const known = new CharBoundedMap<T>(maxChars);
  return (text) => {
    const hit = known.entry(text);
    if (hit !== undefined) return hit.value;
    // Computed from a copy of its own and remembered under it, so that neither the key nor slices of it in the value
    // keep a larger text alive: a section cut from a 50 KB prompt would otherwise hold the whole prompt.
    const own = ownCopy(text);
    const value = fn(own);
    known.set(own, value, text.length + charsOf(value));
    return value;
  };
}

/** Values held while their sizes (in characters) add up to at most `maxChars`, the oldest forgotten first. */
export class CharBoundedMap<T> {
  private readonly entries = new Map<string, { value: T; size: number }>();
  private heldChars = 0;

  constructor(private readonly maxChars: number) {}

  /** Characters held. */
  get held(): number {
    return this.heldChars;
  }

  /** The entry under `key`, if held. */
  entry(key: string): { value: T } | undefined {
    return this.entries.get(key);
  }

  /** Holds `value` under `key` in place of what it held, unless `size` alone is past the bound. */
  set(key: string, value: T, size: number): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.heldChars -= old.size;
    }
    if (size > this.maxChars) return;
    this.heldChars += size;
    for (const [held, entry] of this.entries) {
      if (this.heldChars <= this.maxChars) break;
      this.entries.delete(held);
      this.heldChars -= entry.size;
    }
    this.entries.set(key, { value, size });
  }

  /** Keys held, oldest first. */
  keys(): IterableIterator<string> {
    return this.entries.keys();
  }
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
