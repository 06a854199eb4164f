import type { ChunkRecord } from './types';

/** Where things sit in a document's text: line numbers, chunk offsets and the sentences naming an entity. */

/** 1-based line numbers of character offsets, by binary search over the newline positions. */
export class LineIndex {
  private readonly newlines: number[] = [];

  constructor(text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.newlines.push(i);
  }

  /** Line holding the character at `offset`. */
  lineAt(offset: number): number {
    let lo = 0;
    let hi = this.newlines.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.newlines[mid] < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  }

  /** Lines covering the characters [start, end). */
  linesOf(start: number, end: number): { start_line: number; end_line: number } {
    return { start_line: this.lineAt(start), end_line: this.lineAt(Math.max(start, end - 1)) };
  }
}

/** Offset of the chunk's text in the document: its char range when that holds the text, else a search. */
export function chunkOffset(documentText: string, chunk: ChunkRecord): number | null {
  const { content } = chunk;
  if (documentText.startsWith(content, chunk.char_start)) return chunk.char_start;
  const near = documentText.indexOf(content, Math.max(0, chunk.char_start - content.length));
  if (near !== -1) return near;
  const anywhere = documentText.indexOf(content);
  return anywhere === -1 ? null : anywhere;
}

export interface Span {
  start: number;
  end: number;
}

const SENTENCE_END = /[.!?]+(?=\s|$)|\n\s*\n/g;
const MAX_MENTION_CHARS = 1000;

/** Sentence spans of a text: ends at `.`, `!` or `?` before whitespace, and at blank lines. */
export function sentenceSpans(text: string): Span[] {
  const spans: Span[] = [];
  let start = 0;
  for (const match of text.matchAll(SENTENCE_END)) {
    const end = (match.index ?? 0) + match[0].length;
    pushTrimmed(text, start, end, spans);
    start = end;
  }
  pushTrimmed(text, start, text.length, spans);
  return spans;
}

function pushTrimmed(text: string, start: number, end: number, spans: Span[]): void {
  while (start < end && /\s/.test(text[start])) start++;
  while (end > start && /\s/.test(text[end - 1])) end--;
  if (end > start) spans.push({ start, end });
}

/**
 * The contiguous part of `text` from the first to the last sentence naming one of `names`
 * (case-insensitive), kept under ~1000 characters; null when no sentence names it.
 */
export function mentionSpan(text: string, names: string[]): Span | null {
  const needles = [...new Set(names.map((n) => n.trim().toLowerCase()).filter(Boolean))];
  if (needles.length === 0) return null;
  const lower = text.toLowerCase();
  const hits = sentenceSpans(text).filter((s) => {
    const sentence = lower.slice(s.start, s.end);
    return needles.some((needle) => sentence.includes(needle));
  });
  if (hits.length === 0) return null;
  let end = hits[0].end;
  for (const hit of hits.slice(1)) {
    if (hit.end - hits[0].start > MAX_MENTION_CHARS) break;
    end = hit.end;
  }
  return { start: hits[0].start, end };
}

/** Names an entity may appear under in text: its display name, and its id with spaces for underscores. */
export function entityNames(entity: { id: string; name: string }): string[] {
  return [entity.name, entity.id.replace(/_/g, ' ')];
}

export function preview(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}
