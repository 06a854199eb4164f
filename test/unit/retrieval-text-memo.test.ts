import { type CharBoundedMap, memoText } from '../../src/domain/text-memo';
import { descriptionLine } from '../../src/retrieval/prompts/context';
import { ChunkSnippets, snippetOf } from '../../src/retrieval/sources';

describe('memoText', () => {
  it('answers as the function does, for texts it remembers and for texts it has forgotten', () => {
    let calls = 0;
    const upper = memoText((t) => {
      calls++;
      return t.toUpperCase();
    }, 4);
    expect(upper('a')).toBe('A');
    expect(upper('a')).toBe('A');
    expect(calls).toBe(1);
    expect(upper('b')).toBe('B');
    expect(upper('c')).toBe('C');
    // Each entry holds 2 characters and 4 fit: 'a' was the oldest of three, forgotten, computed again.
    expect(upper('a')).toBe('A');
    expect(calls).toBe(4);
  });

  it('gives the snippets snippetOf gives', () => {
    const snippet = memoText(snippetOf, 1_000);
    const texts = ['short text', `${'word '.repeat(200)}end`, '  spaced\n\nlines  ', 'x'.repeat(700)];
    for (const round of [1, 2]) for (const t of texts) expect([round, snippet(t)]).toEqual([round, snippetOf(t)]);
  });

  it('snippetOf folds every run of whitespace as /\\s+/ does, Unicode spaces and line separators included', () => {
    const reference = (text: string) => {
      const flat = text.slice(0, 600).replace(/\s+/g, ' ').trim();
      if (flat.length <= 300 && text.length <= 600) return flat;
      const cut = flat.slice(0, 300);
      const space = cut.lastIndexOf(' ');
      return `${space > 180 ? cut.slice(0, space) : cut}…`;
    };
    const pieces = ['word', ' ', '  ', '\n', '\t', '\u00a0', '\u2028', '\u3000', '\ufeff', ' \n ', 'é', '…'];
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647) % pieces.length;
    for (let n = 0; n < 300; n++) {
      const text = Array.from({ length: 1 + (n % 250) * 3 }, () => pieces[next()]).join('');
      expect(snippetOf(text)).toBe(reference(text));
    }
  });

  it('ChunkSnippets gives the snippet of the text a chunk has now, whatever it had before under the same id', () => {
    const snippets = new ChunkSnippets();
    const long = `${'alpha beta gamma '.repeat(60)}tail`;
    const texts = [
      'short text',
      'short text, longer now',
      'short',
      long,
      `${long} and more at the end`,
      `Changed head. ${long}`,
      'x'.repeat(600),
      'x'.repeat(601),
      'x'.repeat(600),
      '',
    ];
    for (const round of [1, 2])
      for (const text of texts) expect([round, text, snippets.of('chunk-1', text)]).toEqual([round, text, snippetOf(text)]);
    // Texts under ids of their own, asked twice each.
    texts.forEach((text, i) => expect(snippets.of(`c${i}`, text)).toBe(snippetOf(text)));
    texts.forEach((text, i) => expect(snippets.of(`c${i}`, text)).toBe(snippetOf(text)));
  });

  it('ChunkSnippets holds at most its characters, forgetting the oldest chunk first', () => {
    const snippets = new ChunkSnippets(25);
    // Each chunk holds its head (5 characters) and its snippet (5): two fit in 25.
    for (const id of ['a', 'b', 'c']) expect(snippets.of(id, `${id}-abc`)).toBe(`${id}-abc`);
    const { made } = snippets as unknown as { made: CharBoundedMap<unknown> };
    const held = made.held;
    expect(held).toBe(20);
    expect([...made.keys()]).toEqual(['b', 'c']);
  });

  it('holds at most its characters, keys and values together, and never keeps a text larger than that', () => {
    let calls = 0;
    const same = memoText((t) => {
      calls++;
      return t;
    }, 100);
    const long = 'x'.repeat(40);
    same(long);
    same(long);
    expect(calls).toBe(1);
    // 102 characters with its value: answered every time, never remembered.
    const longer = 'y'.repeat(51);
    same(longer);
    same(longer);
    expect(calls).toBe(3);
    same(long);
    expect(calls).toBe(3);
    // A second text pushes the first one out (80 + 60 > 100).
    same('w'.repeat(30));
    same(long);
    expect(calls).toBe(5);
  });
});

describe('descriptionLine', () => {
  it('flattens whitespace exactly as replacing every run with one space and trimming does', () => {
    const texts = [
      'one line',
      ' lead',
      'trail ',
      'two  spaces',
      'tab\there',
      'new\nline',
      'a\r\nb',
      '\u00a0nbsp',
      'x',
      '',
      '  ',
      'ok. fine',
    ];
    for (const round of [1, 2])
      for (const t of texts) expect([round, t, descriptionLine(t)]).toEqual([round, t, t.replace(/\s+/g, ' ').trim()]);
  });
});
