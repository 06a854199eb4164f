import { ownCopy } from '../domain/text-memo';
import { TimeSlicer } from '../domain/turns';
import { type BpeRankData, CompactBpe } from './bpe';

/**
 * cl100k_base token counts (offline), shared by chunking, description budgets, prompt budgets and usage
 * estimates. One encoder per process, built on first use.
 *
 * cl100k first splits text into pieces with a regular expression, then byte-pair-encodes every piece on its
 * own. Doing the split here and caching each distinct piece's tokens gives the same counts as encoding the
 * whole text (up to MAX_PIECE_CHARS below), many times faster on natural text, and tells where every token
 * starts.
 */

let encoder: { enc: CompactBpe; pattern: RegExp } | undefined;
const pieceCache = new Map<string, Int32Array>();
const PIECE_CACHE_MAX = 200_000;
/**
 * Byte-pair encoding is quadratic in the piece length; a piece longer than this (a run of letters with no
 * space, such as a sequence or an encoded blob) is encoded in slices of this size. Counts of such pieces
 * may then differ from cl100k by a few tokens, rather than taking seconds per piece.
 */
const MAX_PIECE_CHARS = 256;
const SINGLE = Int32Array.of(0);

function load(): { enc: CompactBpe; pattern: RegExp } {
  if (!encoder) {
    // Loaded lazily: building the rank table takes a fraction of a second and many processes never count.
    /* eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, see above */
    const module = require('js-tiktoken/ranks/cl100k_base') as BpeRankData & { default?: BpeRankData };
    const ranks = module.default ?? module;
    // Sticky: a piece is matched where the last one ended, and `test` finds it without building a match array
    // (counting a long prompt with `exec` allocated six times as much, most of it those arrays).
    encoder = { enc: new CompactBpe(ranks), pattern: new RegExp(ranks.pat_str, 'yu') };
  }
  return encoder;
}

/** Encodes and decodes cl100k tokens; special-token strings are plain text. */
export function tokenEncoder(): Pick<CompactBpe, 'encode' | 'decode'> {
  return load().enc;
}

/** Character offsets (within the piece) where each of its tokens starts. */
function pieceTokenStarts(piece: string): Int32Array {
  let starts = pieceCache.get(piece);
  if (starts) return starts;
  if (piece.length > MAX_PIECE_CHARS) return longPieceTokenStarts(piece);
  const { enc } = load();
  // Special-token strings inside documents are plain text, never control tokens.
  const tokens = enc.encodePiece(piece);
  starts = tokens.length === 1 ? SINGLE : alignTokens(enc, piece, tokens);
  if (pieceCache.size >= PIECE_CACHE_MAX) pieceCache.clear();
  // A piece is a view into the text it was cut from: kept as it is, it would keep that text alive.
  pieceCache.set(ownCopy(piece), starts);
  return starts;
}

function longPieceTokenStarts(piece: string): Int32Array {
  const starts: number[] = [];
  for (let at = 0; at < piece.length;) {
    let end = Math.min(piece.length, at + MAX_PIECE_CHARS);
    const code = piece.charCodeAt(end - 1);
    if (end < piece.length && code >= 0xd800 && code <= 0xdbff) end--;
    for (const offset of pieceTokenStarts(piece.slice(at, end))) starts.push(at + offset);
    at = end;
  }
  return Int32Array.from(starts);
}

/**
 * Start offset of each token of a short text. A token holding part of a multi-byte character is decoded
 * together with its neighbours until the group matches the text; all of them start where the group does.
 */
function alignTokens(enc: CompactBpe, text: string, tokens: number[]): Int32Array {
  const starts = new Int32Array(tokens.length);
  let pos = 0;
  for (let i = 0; i < tokens.length;) {
    let end = i + 1;
    let decoded = enc.decode(tokens.slice(i, end));
    while (end < tokens.length && (decoded.endsWith('\uFFFD') || !text.startsWith(decoded, pos))) {
      decoded = enc.decode(tokens.slice(i, ++end));
    }
    for (let k = i; k < end; k++) starts[k] = pos;
    pos = Math.min(text.length, pos + decoded.length);
    i = end;
  }
  return starts;
}

/** Where the tokens and pieces of a text start; `pieceTokens[i]` counts the tokens before piece i. */
export interface TokenLayout {
  count: number;
  /** n + 1 entries: the start of every token, then the text length. */
  starts: Int32Array;
  /** P + 1 entries: the start of every piece, then the text length. */
  pieceStarts: Int32Array;
  pieceTokens: Int32Array;
}

/**
 * Where the piece starting at `at` ends. Every character starts a piece of cl100k's pattern (letters, digits,
 * white space and anything else each have an alternative), so pieces follow one another; were one not to match,
 * that character is passed over as a searching pattern would pass it over: the returned end is then negative,
 * minus the next position to try.
 */
function pieceEnd(pattern: RegExp, text: string, at: number): number {
  pattern.lastIndex = at;
  return pattern.test(text) && pattern.lastIndex > at ? pattern.lastIndex : -(at + 1);
}

export function tokenLayout(text: string): TokenLayout {
  const { pattern } = load();
  const tokenStarts: number[] = [];
  const pieceStarts: number[] = [];
  const pieceTokens: number[] = [];
  for (let at = 0; at < text.length;) {
    const end = pieceEnd(pattern, text, at);
    if (end < 0) {
      at = -end;
      continue;
    }
    pieceStarts.push(at);
    pieceTokens.push(tokenStarts.length);
    for (const offset of pieceTokenStarts(text.slice(at, end))) tokenStarts.push(at + offset);
    at = end;
  }
  pieceStarts.push(text.length);
  pieceTokens.push(tokenStarts.length);
  tokenStarts.push(text.length);
  return {
    count: tokenStarts.length - 1,
    starts: Int32Array.from(tokenStarts),
    pieceStarts: Int32Array.from(pieceStarts),
    pieceTokens: Int32Array.from(pieceTokens),
  };
}

/** Tokens of the pieces of `text` from `at`, up to `stop` (checked after each piece): the count and where it stopped. */
function countFrom(text: string, at: number, stop: () => boolean): { count: number; at: number } {
  const { pattern } = load();
  let count = 0;
  while (at < text.length) {
    const end = pieceEnd(pattern, text, at);
    if (end < 0) {
      at = -end;
      continue;
    }
    count += pieceTokenStarts(text.slice(at, end)).length;
    at = end;
    if (stop()) break;
  }
  return { count, at };
}

const NEVER = (): boolean => false;

export function countTokens(text: string): number {
  return text ? countFrom(text, 0, NEVER).count : 0;
}

/** `countTokens` of a long text, giving way to I/O every few milliseconds; the same count. */
export async function countTokensInSlices(text: string, slicer = new TimeSlicer()): Promise<number> {
  let count = 0;
  const due = (): boolean => slicer.due();
  for (let at = 0; at < text.length;) {
    const stretch = countFrom(text, at, due);
    count += stretch.count;
    at = stretch.at;
    if (at < text.length) await slicer.pause();
  }
  return count;
}

export function countMessageTokens(messages: ReadonlyArray<{ content: string }>): number {
  let total = 0;
  for (const m of messages) total += countTokens(m.content);
  return total;
}
