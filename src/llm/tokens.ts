import type { Tiktoken, TiktokenBPE } from 'js-tiktoken/lite';

/** Token counts with cl100k_base (offline). One encoder per process, built on first use. */

let encoder: Tiktoken | undefined;

function getEncoder(): Tiktoken {
  if (!encoder) {
    // Loaded lazily: the rank table is large and most code paths never count tokens.
    const { Tiktoken: Encoder } = require('js-tiktoken/lite') as typeof import('js-tiktoken/lite');
    const ranks = require('js-tiktoken/ranks/cl100k_base') as TiktokenBPE & { default?: TiktokenBPE };
    encoder = new Encoder(ranks.default ?? ranks);
  }
  return encoder;
}

/** BPE is quadratic in the length of one pre-token; long runs without spaces (base64, hashes) are sliced. */
const LONG_RUN = /\S{512,}/;
const SLICE = 32;

/** Prompts repeat (system prompts, examples): remember the counts of recent long texts. */
const CACHE_MIN_LENGTH = 256;
const CACHE_SIZE = 512;
const cache = new Map<string, number>();

export function countTokens(text: string): number {
  if (!text) return 0;
  if (text.length < CACHE_MIN_LENGTH) return encode(text);
  const cached = cache.get(text);
  if (cached !== undefined) return cached;
  const n = encode(text);
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(text, n);
  return n;
}

function encode(text: string): number {
  const enc = getEncoder();
  if (!LONG_RUN.test(text)) return enc.encode(text, [], []).length;
  let total = 0;
  for (const part of text.split(/(\S{512,})/)) {
    if (!part) continue;
    if (part.length >= 512 && !/\s/.test(part)) {
      for (let i = 0; i < part.length; i += SLICE) total += enc.encode(part.slice(i, i + SLICE), [], []).length;
    } else {
      total += enc.encode(part, [], []).length;
    }
  }
  return total;
}

export function countMessageTokens(messages: ReadonlyArray<{ content: string }>): number {
  let total = 0;
  for (const m of messages) total += countTokens(m.content);
  return total;
}
