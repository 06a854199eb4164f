import type { ChunkRecord } from '../../domain/types';
import type { PageRange } from '../loaders/types';
import {
  type BoundaryTier,
  type FenceIndex,
  fenceAround,
  indexFences,
  lastBoundary,
  lineOf,
  lineStarts,
  lowerBound,
  safeCut,
} from './text-layout';
import { type Anchors, anchorCuts } from './anchors';
import { countTokens, type TokenLayout, tokenLayout } from '../../llm/tokens';

/**
 * Token chunking (docs/architecture.md §5.2): chunks of at most `chunkTokens` cl100k tokens with `overlapTokens` of
 * overlap, ending on a content-defined anchor (./anchors.ts) in the last 20 % of the window when there is one, else
 * at the best natural boundary near the limit, and never inside a code fence when a boundary outside it exists. Over
 * the last windows of a text, an anchor gives way when it would cost a chunk (TAIL_WINDOWS). The text is encoded
 * once; a chunk's exact token count reuses that encoding and re-encodes only the few pieces next to its end.
 * Every chunk is a slice of the text: `text.slice(char_start, char_end) === content`.
 */

/** A chunk as the chunker cuts it: the text and where it sits, before it becomes a stored `ChunkRecord`. */
export type TextChunk = Pick<
  ChunkRecord,
  'index' | 'content' | 'tokens' | 'char_start' | 'char_end' | 'start_line' | 'end_line' | 'page_start' | 'page_end'
>;

export interface ChunkOptions {
  chunkTokens?: number;
  overlapTokens?: number;
  /** Page ranges of a PDF's text, to give each chunk its pages. */
  pages?: PageRange[] | null;
}

/**
 * A boundary tier is used when it lies in the last part of the token window: `fraction` of the window but at
 * least `floor` tokens, and at most `cap` of the window. Large windows thus end close to their full size
 * (every chunk costs an extraction and a gleaning call): a paragraph end in the last tenth, else a line end,
 * else a sentence end in the last twentieth. Small windows keep to paragraph and line ends.
 */
const TIERS: Array<{ tier: BoundaryTier; fraction: number; floor: number; cap: number }> = [
  { tier: 'paragraph', fraction: 0.1, floor: 20, cap: 0.4 },
  { tier: 'line', fraction: 0.08, floor: 16, cap: 0.25 },
  { tier: 'sentence', fraction: 0.05, floor: 10, cap: 0.15 },
  { tier: 'word', fraction: 0.03, floor: 5, cap: 0.1 },
];
const MAX_SHRINKS = 8;
/**
 * Content-defined anchors (./anchors.ts) are more than this share of a chunk's new tokens apart; a chunk ends at the
 * last anchor in the part of its window past ANCHOR_SHARE of it. A chunk with none there ends so that the next one
 * reaches the next anchor, when both keep ANCHOR_MIN_SHARE of the window. Chunk ends thus fall on the same anchors
 * whatever came before them in the text: after an edit the chunks realign on the first anchor past it, and an
 * update re-extracts the chunks that hold the edit and seldom more than one on each side. Anchors a quarter of the
 * new tokens apart and the last fifth of the window keep chunks close to the window's size (about 2 % short of what
 * cuts near the limit make, where wider spacing cut them 5 to 15 % short, and did less well in chunk retrieval).
 */
const ANCHOR_RADIUS = 0.25;
const ANCHOR_SHARE = 0.8;
/**
 * Anchors at least this many tokens apart (half a window when that is less): in a small window a sentence end a
 * quarter window from a paragraph end would outscore nothing, and chunks would end mid-paragraph.
 */
const ANCHOR_MIN_RADIUS = 64;
/** A chunk is cut short to let the next one end on an anchor only when both keep at least this share of the window. */
const ANCHOR_MIN_SHARE = 0.7;
/**
 * Over the last this many windows of a text, a chunk gives up its anchor (and ends at the best boundary further on)
 * when ending there would leave the rest needing more chunks than full windows would: a text takes no more chunks than
 * cuts near the limit make (on the handbook corpus 130 chunks instead of 135). The price is locality: an edit in those
 * windows may move the chunk ends before it (on that corpus, 0.14 chunks beyond those holding an edit, against 0.08).
 */
const TAIL_WINDOWS = 5;

interface Layout {
  text: string;
  tokens: TokenLayout;
  /** Token start offsets (tokens.starts). */
  starts: Int32Array;
  fences: FenceIndex;
}

export function chunkText(text: string, options: ChunkOptions = {}): TextChunk[] {
  const size = options.chunkTokens ?? 1200;
  const overlap = options.overlapTokens ?? 100;
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`chunkTokens must be a positive integer, got ${size}`);
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= size) {
    throw new RangeError(`overlapTokens must be an integer in [0, chunkTokens), got ${overlap}`);
  }
  if (!text.trim()) return [];

  const tokens = tokenLayout(text);
  const layout: Layout = { text, tokens, starts: tokens.starts, fences: indexFences(text) };
  const n = tokens.count;
  const lines = lineStarts(text);
  const anchors = anchorCuts(text, layout.starts, layout.fences, anchorRadius(size - overlap));
  const chunks: TextChunk[] = [];
  let t0 = 0;
  for (;;) {
    t0 = skipBlankPieces(layout, t0);
    const s = layout.starts[t0];
    let budget = size;
    let end =
      t0 + size >= n
        ? text.length
        : (anchorIn(anchors, t0 + Math.ceil(size * ANCHOR_SHARE), t0 + size) ??
          chooseCut(layout, t0, towardsAnchor(anchors, t0, size, overlap)));
    // Near the end of the text an anchor gives way when ending there would take one chunk more than full windows.
    const floor = earliestEnd(n, t0, size, overlap);
    if (end < text.length && tokenAt(layout, end) < floor) end = chooseCut(layout, t0, size, floor);
    let content = text.slice(s, end);
    let count = exactCount(layout, s, end);
    for (let shrinks = 0; count > size && budget > 1; shrinks++) {
      budget = Math.max(1, budget - (count - size) - (shrinks < MAX_SHRINKS ? 1 : budget >> 1));
      end = chooseCut(layout, t0, budget);
      content = text.slice(s, end);
      count = exactCount(layout, s, end);
    }
    if (content.trim()) {
      chunks.push({
        index: chunks.length,
        content,
        tokens: count,
        char_start: s,
        char_end: end,
        start_line: lineOf(lines, s),
        end_line: lineOf(lines, end - 1),
        ...pagesOf(options.pages, s, end),
      });
    }
    if (end >= text.length) break;
    t0 = nextStart(layout, t0, end, overlap);
  }
  return chunks;
}

/** Chunks that `remaining` tokens take at the fewest: full windows, each overlapping the one before. */
function fewestChunks(remaining: number, size: number, overlap: number): number {
  return remaining <= size ? 1 : 1 + Math.ceil((remaining - size) / (size - overlap));
}

/**
 * The earliest token a chunk starting at t0 may end before, so that the rest of the text still takes the fewest
 * chunks (every chunk costs an extraction and a gleaning call); 0 (anywhere) while more than TAIL_WINDOWS are left.
 */
function earliestEnd(n: number, t0: number, size: number, overlap: number): number {
  const fewest = fewestChunks(n - t0, size, overlap);
  return fewest <= 1 || fewest > TAIL_WINDOWS ? 0 : n + overlap - size - (fewest - 2) * (size - overlap);
}

/** Index of the token a cut at character `end` falls in (the next chunk's overlap is counted back from it). */
function tokenAt({ starts }: Layout, end: number): number {
  return lowerBound(starts, end + 1) - 1;
}

/** How far apart anchors are, in tokens, for windows of `fresh` new tokens. */
function anchorRadius(fresh: number): number {
  return Math.max(1, Math.floor(fresh * ANCHOR_RADIUS), Math.min(ANCHOR_MIN_RADIUS, Math.floor(fresh / 2)));
}

/**
 * The window of a chunk with no anchor near its end: one that lets the next chunk end at the next anchor, the
 * tokens up to that anchor shared out evenly between the two; the full window when the anchor is out of reach or
 * the two chunks would be short (below ANCHOR_MIN_SHARE of the window).
 */
function towardsAnchor({ tokens }: Anchors, t0: number, size: number, overlap: number): number {
  const next = lowerBound(tokens, t0 + size + 1);
  if (next >= tokens.length) return size;
  const ahead = tokens[next] - t0;
  // The next chunk starts `overlap` before this one's end and must end at the anchor past ANCHOR_SHARE of its window.
  const latest = ahead + overlap - Math.ceil(size * ANCHOR_SHARE);
  const earliest = ahead + overlap - size;
  if (earliest > size || latest < 1) return size;
  const half = Math.ceil((ahead + overlap) / 2);
  if (half < size * ANCHOR_MIN_SHARE) return size;
  const window = Math.max(1, Math.min(size, latest, Math.max(earliest + Math.ceil(size * 0.1), half)));
  return window < size * ANCHOR_MIN_SHARE ? size : window;
}

/** The last anchor whose first token index lies in [from, to], as a character offset. */
function anchorIn({ positions, tokens }: Anchors, from: number, to: number): number | undefined {
  const i = lowerBound(tokens, to + 1) - 1;
  return i >= 0 && tokens[i] >= from ? positions[i] : undefined;
}

/**
 * Where a chunk starting at token t0 with `budget` tokens should end (exclusive char offset, > start): at a
 * boundary at or after token `earliest`, else at the limit.
 */
function chooseCut({ text, starts, fences }: Layout, t0: number, budget: number, earliest?: number): number {
  const s = starts[t0];
  const last = Math.min(t0 + budget, starts.length - 1);
  const atLeast = earliest === undefined ? s + 1 : Math.max(s + 1, starts[Math.min(earliest, last)]);
  let limit = safeCut(text, starts[last]);
  if (limit <= s) limit = starts[last];
  if (limit >= text.length) return text.length;
  for (const { tier, fraction, floor, cap } of TIERS) {
    const slack = Math.min(Math.max(Math.floor(budget * fraction), floor), Math.floor(budget * cap));
    // One token more: the token ending at a boundary may hold its punctuation and the line break together.
    const first = t0 + budget - slack - 1;
    const from = Math.max(first > t0 ? starts[Math.min(first, last)] : s + 1, atLeast);
    const p = lastBoundary(text, tier, from, limit, fences);
    if (p > s) return p;
  }
  // The limit falls inside a fence that fits in one chunk: end before it, the next chunk holds it whole.
  const fence = fenceAround(fences, limit);
  if (fence && fence.start >= atLeast) {
    const fenceTokens = lowerBound(starts, fence.end) - lowerBound(starts, fence.start);
    if (fenceTokens <= budget) return fence.start;
  }
  const line = lastBoundary(text, 'line', atLeast, limit, null);
  if (line > s) return line;
  return limit > s ? limit : s + 1;
}

/**
 * Tokens of text[s, end) as if encoded alone. Pieces before the cut tokenise as in the whole text; the
 * last pieces (and a whitespace run before them) may split differently once the text ends there, so only
 * they are encoded again. A start inside a piece falls back to encoding the slice.
 */
function exactCount({ text, tokens }: Layout, s: number, end: number): number {
  const { pieceStarts, pieceTokens } = tokens;
  const first = lowerBound(pieceStarts, s);
  if (pieceStarts[first] !== s) return countTokens(text.slice(s, end));
  let tail = Math.max(first, lowerBound(pieceStarts, end) - 3);
  while (tail > first && !text.slice(pieceStarts[tail - 1], pieceStarts[tail]).trim()) tail--;
  return pieceTokens[tail] - pieceTokens[first] + countTokens(text.slice(pieceStarts[tail], end));
}

/** A chunk does not start with blank lines or spaces: they stay with the previous chunk or nowhere. */
function skipBlankPieces({ text, tokens }: Layout, t0: number): number {
  const { pieceStarts, pieceTokens } = tokens;
  let piece = lowerBound(pieceStarts, tokens.starts[t0]);
  if (pieceStarts[piece] !== tokens.starts[t0]) return t0;
  while (piece < pieceStarts.length - 2 && !text.slice(pieceStarts[piece], pieceStarts[piece + 1]).trim()) piece++;
  return Math.max(t0, pieceTokens[piece]);
}

/**
 * Token index of the next chunk's start: `overlap` tokens before the token holding the cut (so nothing
 * between two chunks is skipped), moved back to the start of its piece; always after the current start.
 */
function nextStart(layout: Layout, t0: number, end: number, overlap: number): number {
  const { starts, tokens } = layout;
  const tEnd = tokenAt(layout, end);
  let next = tEnd - overlap > t0 ? tEnd - overlap : tEnd;
  const pieceFirstToken = tokens.pieceTokens[lowerBound(tokens.pieceStarts, starts[next] + 1) - 1];
  if (starts[pieceFirstToken] > starts[t0]) next = pieceFirstToken;
  while (next < tokens.count && starts[next] <= starts[t0]) next++;
  return next;
}

function pagesOf(pages: PageRange[] | null | undefined, start: number, end: number): Pick<TextChunk, 'page_start' | 'page_end'> {
  if (!pages || pages.length === 0) return { page_start: null, page_end: null };
  const first = pages.find((p) => p.char_end > start) ?? pages[pages.length - 1];
  let lastPage = pages[0];
  for (const p of pages) if (p.char_start <= end - 1) lastPage = p;
  return { page_start: first.page, page_end: Math.max(first.page, lastPage.page) };
}
