import { getEncoding } from 'js-tiktoken';
import { chunkText, type TextChunk } from '../../src/ingest/chunk/chunker';
import { countTokens } from '../../src/llm/tokens';

const reference = getEncoding('cl100k_base');
const referenceCount = (text: string) => reference.encode(text, [], []).length;

/** Deterministic pseudo-random text from pieces that stress tokenisation: emoji, CJK, CRLF, digits, fences. */
function randomText(seed: number, length: number): string {
  const pieces = [
    'Alice',
    ' works',
    ' with',
    ' Bob',
    '.',
    ',',
    ' ',
    '  ',
    '\n',
    '\n\n',
    '\r\n',
    '😀',
    '👍🏽',
    '東京',
    ' naïve',
    '123',
    '4567',
    '!',
    '?',
    '\t',
    "'s",
    ' <|endoftext|>',
    '—',
    ' the',
    ' graph',
  ];
  let s = '';
  let state = seed;
  while (s.length < length) {
    state = (state * 16807) % 2147483647;
    s += pieces[state % pieces.length];
  }
  return s;
}

function expectWellFormed(text: string, chunks: TextChunk[], size: number): void {
  chunks.forEach((c, i) => {
    expect(c.index).toBe(i);
    expect(text.slice(c.char_start, c.char_end)).toBe(c.content);
    expect(c.tokens).toBe(referenceCount(c.content));
    expect(c.tokens).toBeLessThanOrEqual(size);
    expect(c.start_line).toBe(text.slice(0, c.char_start).split('\n').length);
    expect(c.end_line).toBe(text.slice(0, c.char_end - 1).split('\n').length);
  });
  for (let i = 1; i < chunks.length; i++) {
    expect(chunks[i].char_start).toBeGreaterThan(chunks[i - 1].char_start);
    // Nothing but whitespace is ever left between two chunks.
    expect(text.slice(chunks[i - 1].char_end, Math.max(chunks[i - 1].char_end, chunks[i].char_start)).trim()).toBe('');
  }
  expect(text.slice(0, chunks[0].char_start).trim()).toBe('');
  expect(text.slice(chunks[chunks.length - 1].char_end).trim()).toBe('');
}

describe('chunkText', () => {
  test('keeps a short text in one chunk holding all of it', () => {
    const text = 'Alice works with Bob.\nThey build a graph.';
    const [chunk, ...rest] = chunkText(text);
    expect(rest).toEqual([]);
    expect(chunk).toEqual({
      index: 0,
      content: text,
      tokens: referenceCount(text),
      char_start: 0,
      char_end: text.length,
      start_line: 1,
      end_line: 2,
      page_start: null,
      page_end: null,
    });
  });

  test('returns no chunks for empty or whitespace-only text', () => {
    expect(chunkText('')).toEqual([]);
    expect(chunkText(' \n\t ')).toEqual([]);
  });

  test('slices, token counts, line numbers and coverage hold on unicode, emoji and CRLF text', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const size = 10 + ((seed * 37) % 90);
      const overlap = seed % 3 === 0 ? 0 : (seed * 7) % Math.min(size, 25);
      const text = randomText(seed, 600 + seed * 40);
      const chunks = chunkText(text, { chunkTokens: size, overlapTokens: overlap });
      expect(chunks.length).toBeGreaterThan(1);
      expectWellFormed(text, chunks, size);
    }
  });

  test('counts tokens exactly like cl100k_base', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const text = randomText(seed * 11, 50 + seed * 97);
      expect(countTokens(text)).toBe(referenceCount(text));
    }
  });

  test('overlaps consecutive chunks by about the overlap size', () => {
    const text = Array.from({ length: 300 }, (_, i) => `Sentence number ${i} talks about topic ${i % 7}.`).join(' ');
    const chunks = chunkText(text, { chunkTokens: 120, overlapTokens: 20 });
    expect(chunks.length).toBeGreaterThan(5);
    for (let i = 1; i < chunks.length; i++) {
      const shared = text.slice(chunks[i].char_start, chunks[i - 1].char_end);
      expect(chunks[i].char_start).toBeLessThan(chunks[i - 1].char_end);
      expect(countTokens(shared)).toBeGreaterThanOrEqual(15);
      expect(countTokens(shared)).toBeLessThanOrEqual(30);
    }
    expectWellFormed(text, chunks, 120);
  });

  test('ends chunks at paragraph or line boundaries when there are some near the limit', () => {
    const text = Array.from({ length: 80 }, (_, i) => `Paragraph ${i} has a few words about the knowledge graph.\nAnd a second line.`).join(
      '\n\n',
    );
    const chunks = chunkText(text, { chunkTokens: 100, overlapTokens: 10 });
    for (const chunk of chunks.slice(0, -1)) expect(chunk.content.endsWith('\n')).toBe(true);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.tokens).toBeGreaterThan(60);
  });

  test('never cuts inside a code fence that fits in a chunk', () => {
    const fence = ['```ts', ...Array.from({ length: 12 }, (_, i) => `const value${i} = compute(${i}); // step ${i}`), '```'].join('\n');
    const prose = (n: number) => Array.from({ length: n }, (_, i) => `Line ${i} of prose about retrieval.`).join('\n');
    const text = [prose(8), fence, prose(8), fence, prose(8), fence, prose(4)].join('\n');
    const fences: Array<[number, number]> = [];
    for (let at = text.indexOf('```ts'); at >= 0; at = text.indexOf('```ts', at + 1)) fences.push([at, text.indexOf('\n```', at) + 4]);
    expect(countTokens(fence)).toBeLessThan(250);
    const chunks = chunkText(text, { chunkTokens: 250, overlapTokens: 20 });
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks.slice(0, -1)) {
      for (const [start, end] of fences) expect(c.char_end <= start || c.char_end >= end).toBe(true);
    }
    expect(chunks.filter((c) => c.content.includes(fence))).toHaveLength(3);
    expectWellFormed(text, chunks, 250);
  });

  test('splits a code fence larger than a chunk at line breaks', () => {
    const fence = ['```', ...Array.from({ length: 60 }, (_, i) => `print("row ${i}")`), '```'].join('\n');
    const chunks = chunkText(fence, { chunkTokens: 80, overlapTokens: 0 });
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks.slice(0, -1)) expect(c.content.endsWith('\n')).toBe(true);
    expectWellFormed(fence, chunks, 80);
  });

  test('cuts a single long line without boundaries at the token limit', () => {
    const text = 'ab'.repeat(20_000);
    const chunks = chunkText(text, { chunkTokens: 50, overlapTokens: 5 });
    expect(chunks.length).toBeGreaterThan(100);
    for (const c of chunks) {
      expect(text.slice(c.char_start, c.char_end)).toBe(c.content);
      expect(c.tokens).toBeLessThanOrEqual(50);
      expect([c.start_line, c.end_line]).toEqual([1, 1]);
    }
    for (const c of chunks.slice(0, -1)) expect(c.tokens).toBeGreaterThan(40);
    expect(chunks[chunks.length - 1].char_end).toBe(text.length);
  });

  test('numbers lines and pages of a paged text', () => {
    const text = 'one\ntwo\n\nthree\nfour';
    const pages = [
      { page: 1, char_start: 0, char_end: 7 },
      { page: 2, char_start: 9, char_end: 19 },
    ];
    const chunks = chunkText(text, { chunkTokens: 3, overlapTokens: 0, pages });
    expectWellFormed(text, chunks, 3);
    const holding = (word: string) => chunks.find((c) => c.content.includes(word));
    expect(holding('one')).toMatchObject({ start_line: 1, page_start: 1, page_end: 1 });
    expect(holding('three')).toMatchObject({ start_line: 4, page_start: 2, page_end: 2 });
    expect(holding('four')).toMatchObject({ end_line: 5, page_start: 2, page_end: 2 });
  });

  test('a text of up to five windows takes the fewest chunks full windows would: its last anchors give way', () => {
    const size = 400;
    const overlap = 40;
    let texts = 0;
    for (const step of [3, 5, 7, 13]) {
      const paragraphs = Array.from({ length: 60 }, (_, n) =>
        Array.from({ length: 2 + ((n * step) % 17) }, (_, i) => `Member ${n} of team ${i} wrote part ${n * 31 + i} of the report.`).join(
          ' ',
        ),
      );
      for (let count = 2; count <= paragraphs.length; count++) {
        const text = paragraphs.slice(0, count).join('\n\n');
        const n = countTokens(text);
        const fewest = n <= size ? 1 : 1 + Math.ceil((n - size) / (size - overlap));
        if (fewest > 5) break;
        const chunks = chunkText(text, { chunkTokens: size, overlapTokens: overlap });
        expectWellFormed(text, chunks, size);
        // With step 13 and 13 paragraphs, ending every chunk on an anchor takes 6 chunks where 5 do.
        expect(chunks.length).toBe(fewest);
        texts++;
      }
    }
    expect(texts).toBeGreaterThan(40);
  });

  test('an edit changes the chunks that hold it and few others: chunk ends fall on anchors of the text', () => {
    // Paragraphs of 30 to 250 tokens, ~50 chunks of 400 tokens.
    const paragraphs = Array.from({ length: 150 }, (_, n) =>
      Array.from({ length: 2 + ((n * 7) % 11) }, (_, i) => `Member ${n} of team ${i} wrote part ${n * 31 + i} of the report.`).join(' '),
    );
    const options = { chunkTokens: 400, overlapTokens: 40 };
    const before = chunkText(paragraphs.join('\n\n'), options);
    expect(before.length).toBeGreaterThan(45);
    const known = new Set(before.map((c) => c.content));
    const changes = (edited: string[]) => {
      const after = chunkText(edited.join('\n\n'), options);
      expectWellFormed(edited.join('\n\n'), after, 400);
      return {
        touched: after.filter((c) => c.content.includes('Inserted remark')).length,
        changed: after.filter((c) => !known.has(c.content)).length,
      };
    };
    expect(changes(paragraphs.map((p, i) => (i === 0 ? `Inserted remark. ${p}` : p)))).toEqual({ touched: 1, changed: 1 });
    for (let at = 5; at < paragraphs.length; at += 15) {
      const { touched, changed } = changes(paragraphs.map((p, i) => (i >= at && i < at + 3 ? `${p} Inserted remark ${i}.` : p)));
      expect(touched).toBeGreaterThan(0);
      expect(changed).toBeLessThanOrEqual(touched + 2);
    }
  });

  test('rejects an overlap that is not smaller than the chunk size', () => {
    expect(() => chunkText('text', { chunkTokens: 10, overlapTokens: 10 })).toThrow(RangeError);
    expect(() => chunkText('text', { chunkTokens: 0 })).toThrow(RangeError);
  });
});
