/** Position helpers for the chunker: line starts, code fences, cut boundaries. */

/** Index of the first element >= value in a sorted array. */
export function lowerBound(sorted: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Offsets where lines start (0 and every position after a '\n'). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** 1-based line of a character offset. */
export function lineOf(starts: number[], offset: number): number {
  return lowerBound(starts, offset + 1);
}

export interface Fence {
  /** Start of the opening ``` line. */
  start: number;
  /** End of the closing line (after its newline), or the end of the text for an unclosed fence. */
  end: number;
}

/** Markdown code fences (``` or ~~~, up to three spaces of indent), in text order. */
export function codeFences(text: string): Fence[] {
  const fences: Fence[] = [];
  const re = /^ {0,3}(`{3,}|~{3,})/gm;
  let open: { start: number; marker: string } | null = null;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (!open) {
      open = { start: m.index, marker: m[1] };
      continue;
    }
    if (m[1][0] === open.marker[0] && m[1].length >= open.marker.length) {
      const lineEnd = text.indexOf('\n', m.index);
      fences.push({ start: open.start, end: lineEnd < 0 ? text.length : lineEnd + 1 });
      open = null;
    }
  }
  if (open) fences.push({ start: open.start, end: text.length });
  return fences;
}

/** Fences with their start offsets, for binary search. */
export interface FenceIndex {
  fences: Fence[];
  starts: number[];
}

export function indexFences(text: string): FenceIndex {
  const fences = codeFences(text);
  return { fences, starts: fences.map((f) => f.start) };
}

/** The fence strictly containing a cut position, if any. */
export function fenceAround({ fences, starts }: FenceIndex, pos: number): Fence | null {
  const f = fences[lowerBound(starts, pos) - 1];
  return f && f.start < pos && pos < f.end ? f : null;
}

export type BoundaryTier = 'paragraph' | 'line' | 'sentence' | 'word';

const SENTENCE_END = new Set(['.', '!', '?', ';', '。', '！', '？', '；']);

/** Whether cutting before text[p] ends the chunk at a boundary of the tier. */
function isBoundary(text: string, p: number, tier: BoundaryTier): boolean {
  const prev = text[p - 1];
  switch (tier) {
    case 'line':
      return prev === '\n';
    case 'paragraph': {
      if (prev !== '\n') return false;
      let q = p - 2;
      while (q >= 0 && (text[q] === ' ' || text[q] === '\t' || text[q] === '\r')) q--;
      return q < 0 || text[q] === '\n';
    }
    case 'sentence':
      return SENTENCE_END.has(prev) && (p === text.length || /\s/.test(text[p]));
    case 'word':
      return /\s/.test(text[p]) && !/\s/.test(prev) && !isSurrogatePairMiddle(text, p);
  }
}

/**
 * The latest cut position in [from, to] at a boundary of the tier and outside every code fence, or -1.
 * Positions inside a fence are skipped in one jump to the fence's start.
 */
export function lastBoundary(text: string, tier: BoundaryTier, from: number, to: number, index: FenceIndex | null): number {
  const fences = index?.fences ?? [];
  let f = index ? lowerBound(index.starts, to) - 1 : -1;
  for (let p = to; p >= from && p > 0; p--) {
    while (f >= 0 && fences[f].start >= p) f--;
    if (f >= 0 && p < fences[f].end && p > fences[f].start) {
      p = fences[f].start + 1;
      continue;
    }
    if (isBoundary(text, p, tier)) return p;
  }
  return -1;
}

function isSurrogatePairMiddle(text: string, p: number): boolean {
  const hi = text.charCodeAt(p - 1);
  const lo = text.charCodeAt(p);
  return hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff;
}

/** Moves a cut off the middle of a surrogate pair or a CRLF. */
export function safeCut(text: string, p: number): number {
  if (p <= 0 || p >= text.length) return p;
  if (isSurrogatePairMiddle(text, p) || (text[p - 1] === '\r' && text[p] === '\n')) return p - 1;
  return p;
}
