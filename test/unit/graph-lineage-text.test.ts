import { LineIndex, chunkOffset, mentionSpan, sentenceSpans } from '../../src/domain/text';
import { makeChunk } from '../contract/fixtures';

describe('lineage text positions', () => {
  const text = 'First line.\nSecond line has Ada.\n\nFourth: Ada met Bob! Then they left.\nLast';

  it('gives 1-based line numbers of offsets and of ranges', () => {
    const lines = new LineIndex(text);
    expect(lines.lineAt(0)).toBe(1);
    expect(lines.lineAt(11)).toBe(1);
    expect(lines.lineAt(12)).toBe(2);
    expect(lines.lineAt(text.indexOf('Fourth'))).toBe(4);
    expect(lines.linesOf(text.indexOf('Second'), text.indexOf('Last') + 4)).toEqual({ start_line: 2, end_line: 5 });
    expect(lines.linesOf(0, 12)).toEqual({ start_line: 1, end_line: 1 });
  });

  it('splits sentences at terminal punctuation and blank lines, trimmed', () => {
    const spans = sentenceSpans(text).map((s) => text.slice(s.start, s.end));
    expect(spans).toEqual(['First line.', 'Second line has Ada.', 'Fourth: Ada met Bob!', 'Then they left.', 'Last']);
  });

  it('finds the contiguous sentences naming an entity, case-insensitively', () => {
    const span = mentionSpan(text, ['ADA']);
    expect(span && text.slice(span.start, span.end)).toBe('Second line has Ada.\n\nFourth: Ada met Bob!');
    const bob = mentionSpan(text, ['bob']);
    expect(bob && text.slice(bob.start, bob.end)).toBe('Fourth: Ada met Bob!');
    expect(mentionSpan(text, ['Carol'])).toBeNull();
  });

  it('locates a chunk by its char range, or by searching when the range is off', () => {
    const chunk = makeChunk('d', 0, { content: 'Ada met Bob', char_start: text.indexOf('Ada met'), char_end: 0 });
    expect(chunkOffset(text, chunk)).toBe(text.indexOf('Ada met'));
    expect(chunkOffset(text, { ...chunk, char_start: 3 })).toBe(text.indexOf('Ada met'));
    expect(chunkOffset(text, { ...chunk, content: 'not there' })).toBeNull();
  });
});
