/** Plain term extraction: the keyword fallback and the tokeniser of the built-in reranker share it. */

const STOPWORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both ' +
    'but by can could did do does doing down during each few for from further had has have having he her here hers ' +
    'him his how i if in into is it its itself just me more most my no nor not now of off on once only or other our ' +
    'out over own same she should so some such than that the their them then there these they this those through to ' +
    'too under until up very was we were what when where which while who whom why will with would you your yours ' +
    'tell explain describe give list show know please does'
  ).split(' '),
);

const NOT_WORD = /[^\p{L}\p{N}]+/u;

/** Lower-cased runs of letters and digits of two or more characters, stopwords removed, in order (repeats kept). */
export function termsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(NOT_WORD)
    .filter((word) => word.length >= 2 && !STOPWORDS.has(word));
}

/** Capitalised phrases ("Marie Curie", "Acme Corp") that do not open a sentence alone. */
export function namedPhrasesOf(text: string): string[] {
  const phrases: string[] = [];
  for (const match of text.matchAll(/\b\p{Lu}[\p{L}\p{N}]*(?:\s+\p{Lu}[\p{L}\p{N}]*)*/gu)) {
    const phrase = match[0];
    const first = match.index === 0 || /[.!?]\s*$/.test(text.slice(0, match.index));
    if (first && !phrase.includes(' ') && STOPWORDS.has(phrase.toLowerCase())) continue;
    phrases.push(phrase);
  }
  return phrases;
}

export function unique(items: readonly string[]): string[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = item.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
