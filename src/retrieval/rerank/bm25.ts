/** Okapi BM25 with the usual constants. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/**
 * BM25 of each document (given as its terms) for the query terms, with idf computed over the documents given:
 * the candidates of one query are the collection.
 */
export function bm25Scores(queryTerms: readonly string[], documents: ReadonlyArray<readonly string[]>): number[] {
  const n = documents.length;
  if (n === 0) return [];
  const query = [...new Set(queryTerms)];
  const frequencies = documents.map((terms) => {
    const tf = new Map<string, number>();
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    return tf;
  });
  const averageLength = documents.reduce((sum, d) => sum + d.length, 0) / n || 1;
  const idf = new Map<string, number>();
  for (const term of query) {
    let containing = 0;
    for (const tf of frequencies) if (tf.has(term)) containing++;
    idf.set(term, Math.log(1 + (n - containing + 0.5) / (containing + 0.5)));
  }
  return frequencies.map((tf, i) => {
    const lengthNorm = BM25_K1 * (1 - BM25_B + (BM25_B * documents[i].length) / averageLength);
    let score = 0;
    for (const term of query) {
      const f = tf.get(term);
      if (f) score += (idf.get(term) as number) * ((f * (BM25_K1 + 1)) / (f + lengthNorm));
    }
    return score;
  });
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
