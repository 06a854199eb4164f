import { createBuiltinReranker } from '../../src/retrieval';
import { bm25Scores, minMax, termStats } from '../../src/retrieval/rerank/bm25';
import { cachedTermStats, countWords, wordCountsHeld } from '../../src/retrieval/rerank/word-counts';
import { termsOf, unique } from '../../src/retrieval/steps/terms';

/** Texts with the cases whole-word counting must get right: case, accents, digits, joiners, astral letters. */
const TEXTS = [
  'Acme, ACME and acmes; acme-corp. acme',
  'Zürich liegt am Zürichsee; ZÜRICH zählt 400000 Einwohner.',
  'İstanbul and ISTANBUL and istanbul',
  '𝐀𝐁𝐂 maths 𝐀𝐁𝐂maths and abc',
  "O'Brien's data-driven 3D models: 3d, 3-d, d3",
  '',
  '   ',
  'aa aaa aa a aaaa aa',
  'Ka lo mi ra ve tu sen dor bel fin gar hol jun kes lam nor pel quin ros tal ul vin wes yor zan '.repeat(40),
];

const QUERIES = [
  'Where is Acme headquartered, acme corp?',
  'zürich population ZÜRICH',
  'İstanbul istanbul',
  '𝐀𝐁𝐂 maths abc',
  "O'Brien 3D models d3",
  'aa aaa',
  'kalo mira sen dor quin',
  'nothing matches here',
];

/** The reranker's score as it was computed before the counts were cached: one scan per term. */
function referenceRanking(query: string, candidates: Array<{ text: string; score: number; tokens?: number }>, topK: number) {
  const terms = unique(termsOf(query));
  const lexical = minMax(
    bm25Scores(
      terms,
      candidates.map((c) => termStats(c.text, terms, c.tokens)),
    ),
  );
  const retrieval = minMax(candidates.map((c) => c.score));
  return candidates
    .map((_, index) => ({ index, score: 0.5 * lexical[index] + 0.5 * retrieval[index] }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, topK);
}

describe('cached word counts', () => {
  it('give the same term counts and lengths as scanning the text, on first use and from the cache', () => {
    for (const query of QUERIES) {
      const terms = unique(termsOf(query));
      for (const text of TEXTS) {
        const expected = termStats(text, terms);
        expect(cachedTermStats(text, terms)).toEqual(expected);
        expect(cachedTermStats(text, terms)).toEqual(expected);
        expect(cachedTermStats(text, terms, 17)).toEqual(termStats(text, terms, 17));
      }
    }
  });

  it('scan a text the first time it comes and count its words from the second', () => {
    const text = `A text met for the first time ${Math.random()}: fresh words, fresh counts.`;
    const terms = ['fresh', 'words'];
    expect(cachedTermStats(text, terms)).toEqual(termStats(text, terms));
    expect(wordCountsHeld(text)).toBe(false);
    expect(cachedTermStats(text, terms)).toEqual(termStats(text, terms));
    expect(wordCountsHeld(text)).toBe(true);
    expect(cachedTermStats(text, terms)).toEqual(termStats(text, terms));
  });

  it('counts terms that are not one run of word characters by scanning', () => {
    // Astral letters are not word characters one code unit at a time, so '𝐀𝐁𝐂' is matched as the scan matches it.
    expect(cachedTermStats(TEXTS[3], ['𝐀𝐁𝐂', 'maths', 'abc'])).toEqual(termStats(TEXTS[3], ['𝐀𝐁𝐂', 'maths', 'abc']));
    expect(cachedTermStats('a-b a-b ab', ['a-b'])).toEqual(termStats('a-b a-b ab', ['a-b']));
    expect(cachedTermStats('a-b a-b ab', ['a-b']).counts).toEqual([2]);
  });

  it('counts each maximal run of word characters and the runs of two or more', () => {
    const { runs, words } = countWords('Aa aa, b AA-x');
    expect([...runs]).toEqual([
      ['aa', 3],
      ['b', 1],
      ['x', 1],
    ]);
    expect(words).toBe(3);
  });

  it('leave the built-in reranker ranking exactly as the scan did', async () => {
    const candidates = TEXTS.map((text, i) => ({ text, score: ((i * 37) % 11) / 10, tokens: i % 2 ? 100 + i : undefined }));
    const reranker = createBuiltinReranker();
    for (const query of QUERIES) {
      for (let round = 0; round < 2; round++) {
        expect(await reranker.rerank(query, candidates, 5)).toEqual(referenceRanking(query, candidates, 5));
      }
    }
  });
});
