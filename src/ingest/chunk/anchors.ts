import { type FenceIndex, fenceAround, lowerBound } from './text-layout';

/**
 * Content-defined cut points for the chunker (docs/architecture.md §5.2). Every paragraph, line and sentence end
 * outside a code fence is a candidate with a score: its kind first (paragraph over line over sentence), then a hash
 * of the characters after it. A candidate is an anchor when no candidate within `radius` tokens on either side
 * scores higher (of equal scores the earlier one wins). Whether a position is an anchor thus depends only on the
 * text within `radius` tokens of it, never on where the text starts or where earlier chunks ended: an edit moves
 * only the anchors near it, and the chunks between anchors further away stay as they were.
 */

/** Characters after a candidate that its hash covers. */
const CONTEXT_CHARS = 24;
const SENTENCE_END = new Set(['.', '!', '?', ';', '。', '！', '？', '；']);
const KIND_WEIGHT = 2 ** 32;

/** Kind of the boundary before text[p]: 3 paragraph, 2 line, 1 sentence end, 0 none. */
function kindAt(text: string, p: number): number {
  const prev = text[p - 1];
  if (prev === '\n') {
    let q = p - 2;
    while (q >= 0 && (text[q] === ' ' || text[q] === '\t' || text[q] === '\r')) q--;
    return q < 0 || text[q] === '\n' ? 3 : 2;
  }
  if (SENTENCE_END.has(prev) && /\s/.test(text[p] ?? '') && text[p] !== '\n') return 1;
  return 0;
}

/**
 * FNV-1a over the characters after p: the start of the text that follows the boundary, so that adding to the end of
 * a paragraph does not move the anchors around it.
 */
function hashAfter(text: string, p: number): number {
  let h = 0x811c9dc5;
  const end = Math.min(text.length, p + CONTEXT_CHARS);
  for (let i = p; i < end; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Anchors in text order: where each is (a character offset) and the index of the first token after it. */
export interface Anchors {
  positions: number[];
  tokens: Int32Array;
}

/**
 * The anchors of `text`. `tokenStarts` are the start offsets of its tokens (a
 * candidate's distance to another is counted in tokens).
 */
export function anchorCuts(text: string, tokenStarts: Int32Array, fences: FenceIndex, radius: number): Anchors {
  const positions: number[] = [];
  const tokens: number[] = [];
  const scores: number[] = [];
  const last = text.trimEnd().length;
  for (let p = 1; p < last; p++) {
    const kind = kindAt(text, p);
    if (kind === 0 || fenceAround(fences, p)) continue;
    // A run of line breaks is one boundary: its last position, where the next text starts.
    if (text[p] === '\n' || text[p] === '\r') continue;
    positions.push(p);
    tokens.push(lowerBound(tokenStarts, p));
    scores.push(kind * KIND_WEIGHT + hashAfter(text, p));
  }
  // Sliding maximum over [t - radius, t + radius]: a deque of indexes with decreasing scores (equal ones kept,
  // the earlier in front).
  const anchors: number[] = [];
  const deque: number[] = [];
  let head = 0;
  let next = 0;
  for (let i = 0; i < positions.length; i++) {
    while (next < positions.length && tokens[next] <= tokens[i] + radius) {
      while (deque.length > head && scores[deque[deque.length - 1]] < scores[next]) deque.pop();
      deque.push(next++);
    }
    while (tokens[deque[head]] < tokens[i] - radius) head++;
    if (deque[head] === i) anchors.push(i);
  }
  return { positions: anchors.map((i) => positions[i]), tokens: Int32Array.from(anchors, (i) => tokens[i]) };
}
