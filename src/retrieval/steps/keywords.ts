import type { ChatMessage, LlmProvider } from '../../llm/ports';
import { modelFailure } from '../generate';
import { keywordsPrompt, parseKeywords } from '../prompts/keywords';
import type { Keywords } from '../types';
import { namedPhrasesOf, termsOf, unique } from './terms';

export interface KeywordResult {
  keywords: Keywords;
  /** Input + output tokens of the call. */
  tokens: number;
}

/**
 * One LLM call for high- and low-level keywords. An answer cut short keeps the keywords it completed; one with none
 * falls back to terms of the question (origin `fallback`, shown in a query's debug output), so retrieval still runs; a failing call (provider down, aborted) fails the query.
 */
export async function extractKeywords(
  llm: LlmProvider,
  query: string,
  history: readonly ChatMessage[],
  signal?: AbortSignal,
): Promise<KeywordResult> {
  let completion;
  try {
    completion = await llm.complete(keywordsPrompt(query, history), {
      task: 'keywords',
      json: true,
      temperature: 0,
      maxTokens: 512,
      signal,
    });
  } catch (err) {
    throw modelFailure(llm, err);
  }
  const tokens = completion.usage.input_tokens + completion.usage.output_tokens;
  const parsed = parseKeywords(completion.text);
  if (parsed && parsed.high.length + parsed.low.length > 0) {
    // A JSON object cut at the output limit gives what it completed (`recovered`).
    return { keywords: { high: parsed.high, low: parsed.low, origin: parsed.recovered ? 'recovered' : 'llm' }, tokens };
  }
  return { keywords: fallbackKeywords(query), tokens };
}

/** Named phrases are low-level keywords; the remaining content words are high-level ones. */
export function fallbackKeywords(query: string): Keywords {
  const low = unique(namedPhrasesOf(query));
  const named = new Set(low.flatMap((p) => termsOf(p)));
  const high = unique(termsOf(query).filter((t) => !named.has(t)));
  return { high: high.length ? high : low, low: low.length ? low : high, origin: 'fallback' };
}
