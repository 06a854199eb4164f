/** Okapi BM25 with the usual constants. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** How often each query term occurs in one document, and the document's length in words. */
export interface TermStats {
  /** Aligned with the query terms. */
  counts: number[];
  length: number;
}

/**
 * BM25 of each document for the (distinct) query terms, with idf computed over the documents given: the
 * candidates of one query are the collection.
 */
export function bm25Scores(terms: readonly string[], documents: readonly TermStats[], idf = idfOf(terms, documents)): number[] {
  const n = documents.length;
  if (n === 0) return [];
  const averageLength = documents.reduce((sum, d) => sum + d.length, 0) / n || 1;
  return documents.map((d) => {
    const lengthNorm = BM25_K1 * (1 - BM25_B + (BM25_B * d.length) / averageLength);
    let score = 0;
    for (let t = 0; t < terms.length; t++) {
      const f = d.counts[t];
      if (f > 0) score += idf[t] * ((f * (BM25_K1 + 1)) / (f + lengthNorm));
    }
    return score;
  });
}

/** BM25's inverse document frequency of each query term, over the documents given. */
export function idfOf(terms: readonly string[], documents: readonly TermStats[]): number[] {
  const n = documents.length;
  return terms.map((_, t) => {
    let containing = 0;
    for (const d of documents) if (d.counts[t] > 0) containing++;
    return Math.log(1 + (n - containing + 0.5) / (containing + 0.5));
  });
}

/**
 * Counts whole-word occurrences of the (lower-case) terms, without splitting the text into a token array:
 * candidates are long and there are many per query. The length is counted in words unless given.
 */
export function termStats(text: string, terms: readonly string[], knownLength?: number): TermStats {
  const lower = text.toLowerCase();
  const counts = terms.map((term) => {
    let count = 0;
    for (let at = lower.indexOf(term); at >= 0; at = lower.indexOf(term, at + term.length)) {
      const before = at === 0 || !isWordChar(lower.charCodeAt(at - 1));
      const end = at + term.length;
      if (before && (end === lower.length || !isWordChar(lower.charCodeAt(end)))) count++;
    }
    return count;
  });
  return { counts, length: knownLength ?? wordCount(lower) };
}

/** Runs of two or more letters or digits. */
function wordCount(text: string): number {
  let length = 0;
  let run = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && isWordChar(text.charCodeAt(i))) {
      run++;
    } else {
      if (run >= 2) length++;
      run = 0;
    }
  }
  return length;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** A letter or digit, judged one UTF-16 code unit at a time. */
export function isWordChar(code: number): boolean {
  if (code < 128) return (code >= 48 && code <= 57) || (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
  return LETTER_OR_DIGIT.test(String.fromCharCode(code));
}

/** Min-max to [0, 1]; all-equal values map to 1 when positive, else 0. */
export function minMax(values: readonly number[]): number[] {
  if (values.length === 0) return [];
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (hi === lo) return values.map(() => (hi > 0 ? 1 : 0));
  return values.map((v) => (v - lo) / (hi - lo));
}
