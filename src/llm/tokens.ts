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

export function countTokens(text: string): number {
  if (!text) return 0;
  return getEncoder().encode(text, [], []).length;
}

export function countMessageTokens(messages: ReadonlyArray<{ content: string }>): number {
  let total = 0;
  for (const m of messages) total += countTokens(m.content);
  return total;
}
