import { sleep, throwIfAborted } from '../../domain/abort';
import { nextTurn } from '../../domain/turns';
import type { EmbeddingProvider } from '../ports';

/**
 * Offline embeddings by signed feature hashing (docs/architecture.md §7): lower-cased word unigrams and character
 * 3-grams (with word boundaries) hashed with FNV-1a into `dimension` buckets, then L2-normalised.
 * Texts sharing words or word pieces land near each other; the same text always gives the same vector.
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const WORD_SEED = fnvStep(FNV_OFFSET, 0x77); // 'w'
const GRAM_SEED = fnvStep(FNV_OFFSET, 0x74); // 't'
const BOUNDARY = 0x23; // '#'
const WORD_WEIGHT = 1;
const GRAM_WEIGHT = 0.5;

function fnvStep(h: number, code: number): number {
  return Math.imul(h ^ code, FNV_PRIME) >>> 0;
}

function isWordChar(c: number): boolean {
  if (c < 128) return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
  return /[\p{L}\p{N}]/u.test(String.fromCharCode(c));
}

export class MockEmbeddings implements EmbeddingProvider {
  private readonly buffer: Float64Array;

  constructor(
    readonly provider = 'mock',
    readonly model = 'mock-embedding',
    readonly dimension = 256,
    /** Simulated latency per call: a number, or read at every call (benchmarks change it between phases). */
    private readonly latencyMs: number | (() => number) = 0,
  ) {
    if (!Number.isInteger(dimension) || dimension <= 0)
      throw new RangeError(`embedding dimension must be a positive integer, got ${dimension}`);
    this.buffer = new Float64Array(dimension);
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    const ms = typeof this.latencyMs === 'number' ? this.latencyMs : this.latencyMs();
    // Without simulated latency, still a later turn of the event loop, as a network answer would be.
    await (ms > 0 ? sleep(ms, signal) : nextTurn());
    throwIfAborted(signal);
    return texts.map((t) => this.embedOne(t));
  }

  /** Synchronous core, also handy for benchmarks. */
  embedOne(text: string): number[] {
    const v = this.buffer;
    v.fill(0);
    const s = text.toLowerCase();
    const n = s.length;
    let i = 0;
    while (i < n) {
      while (i < n && !isWordChar(s.charCodeAt(i))) i++;
      const start = i;
      while (i < n && isWordChar(s.charCodeAt(i))) i++;
      if (i > start) this.addWord(s, start, i);
    }
    let norm = 0;
    for (let k = 0; k < v.length; k++) norm += v[k] * v[k];
    const out = new Array<number>(v.length);
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let k = 0; k < v.length; k++) out[k] = v[k] * scale;
    return out;
  }

  private addWord(s: string, start: number, end: number): void {
    let h = WORD_SEED;
    for (let k = start; k < end; k++) h = fnvStep(h, s.charCodeAt(k));
    this.add(h, WORD_WEIGHT);
    // Character 3-grams over "#word#".
    const len = end - start + 2;
    for (let k = 0; k + 3 <= len; k++) {
      let g = GRAM_SEED;
      for (let j = k; j < k + 3; j++) {
        const c = j === 0 || j === len - 1 ? BOUNDARY : s.charCodeAt(start + j - 1);
        g = fnvStep(g, c);
      }
      this.add(g, GRAM_WEIGHT);
    }
  }

  private add(hash: number, weight: number): void {
    // Low bits pick the bucket, a high bit the sign, so collisions cancel out on average.
    const index = hash % this.dimension;
    this.buffer[index] += (hash & 0x80000000) !== 0 ? -weight : weight;
  }
}
