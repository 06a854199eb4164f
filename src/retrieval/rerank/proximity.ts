/**
 * Characters of text within which query terms count as one passage: about a sentence of prose (the handbook's
 * sentences average some 110 characters, the generated corpus's 90).
 */
export const PROXIMITY_WINDOW = 200;

/**
 * How much of the query one passage of a text answers: the largest weighted share of the (distinct, lower-case)
 * query terms that occur as whole words within `window` characters of each other. BM25 counts terms anywhere in a
 * chunk; a question names several things, and the chunk that answers it names them together. The scorer gives 1
 * when one passage holds every term, 0 when the text holds none. Terms are runs of letters and digits (`termsOf`);
 * each text is read once, by one case-insensitive expression for all of them. Given how often each term occurs in
 * the text (`counts`, aligned with `terms`), a text holding at most one of them is not read: its passage is that term.
 */
export function proximityScorer(
  terms: readonly string[],
  weights: readonly number[],
  window = PROXIMITY_WINDOW,
): (text: string, counts?: readonly number[]) => number {
  const index = new Map<string, number>();
  terms.forEach((term, t) => {
    if (term.length > 0 && weights[t] > 0 && !index.has(term)) index.set(term, t);
  });
  const total = [...index.values()].reduce((sum, t) => sum + weights[t], 0);
  if (total <= 0) return () => 0;
  // Longest first, so that a term is not taken for another it starts with; the look-arounds keep whole words.
  const alternatives = [...index.keys()].sort((a, b) => b.length - a.length).map(escape);
  const matcher = new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}])`, 'giu');
  return (text, counts) => {
    if (counts) {
      const present = [...index.values()].filter((t) => counts[t] > 0);
      if (present.length <= 1) return present.length === 0 ? 0 : weights[present[0]] / total;
    }
    const inWindow = new Array<number>(terms.length).fill(0);
    const at: number[] = [];
    const term: number[] = [];
    let first = 0;
    let covered = 0;
    let best = 0;
    matcher.lastIndex = 0;
    for (let m = matcher.exec(text); m !== null; m = matcher.exec(text)) {
      const t = index.get(m[0].toLowerCase());
      if (t === undefined) continue;
      at.push(m.index);
      term.push(t);
      if (inWindow[t]++ === 0) covered += weights[t];
      while (m.index - at[first] > window) {
        const left = term[first++];
        if (--inWindow[left] === 0) covered -= weights[left];
      }
      if (covered > best) best = covered;
    }
    return Math.min(1, best / total);
  };
}

function escape(term: string): string {
  return term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
