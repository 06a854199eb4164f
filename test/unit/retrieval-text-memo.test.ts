import { memoText } from '../../src/retrieval/text-memo';
import { snippetOf } from '../../src/retrieval/sources';

describe('memoText', () => {
  it('answers as the function does, for texts it remembers and for texts it has forgotten', () => {
    let calls = 0;
    const upper = memoText((t) => {
      calls++;
      return t.toUpperCase();
    }, 2);
    expect(upper('a')).toBe('A');
    expect(upper('a')).toBe('A');
    expect(calls).toBe(1);
    expect(upper('b')).toBe('B');
    expect(upper('c')).toBe('C');
    // 'a' was the oldest of three with room for two: computed again, same answer.
    expect(upper('a')).toBe('A');
    expect(calls).toBe(4);
  });

  it('gives the snippets snippetOf gives', () => {
    const snippet = memoText(snippetOf, 4);
    const texts = ['short text', `${'word '.repeat(200)}end`, '  spaced\n\nlines  ', 'x'.repeat(700)];
    for (const round of [1, 2]) for (const t of texts) expect([round, snippet(t)]).toEqual([round, snippetOf(t)]);
  });
});
