import type { ChatMessage } from '../llm/ports';

/**
 * Keyword extraction prompt, version 1: asks for JSON with high-level (themes) and low-level (named things)
 * keywords, as LightRAG does. Earlier turns are included so that follow-up questions resolve their references.
 */

export const KEYWORDS_PROMPT_VERSION = 1;

export interface KeywordsJson {
  high_level_keywords: string[];
  low_level_keywords: string[];
}

const INSTRUCTIONS = [
  'You extract search keywords from a question for a knowledge-graph retrieval system.',
  'High-level keywords name the overarching concepts or themes of the question.',
  'Low-level keywords name specific entities, people, places, products, terms or details.',
  'Use the conversation history only to resolve what the question refers to.',
  'Answer with one JSON object and nothing else, in exactly this form:',
  '{"high_level_keywords": ["..."], "low_level_keywords": ["..."]}',
].join('\n');

/** At most this many earlier turns, each shortened, go into the keyword prompt. */
const HISTORY_TURNS = 6;
const HISTORY_CHARS = 600;

export function keywordsPrompt(query: string, history: readonly ChatMessage[]): ChatMessage[] {
  const turns = history
    .filter((m) => m.role !== 'system')
    .slice(-HISTORY_TURNS)
    .map((m) => `${m.role}: ${m.content.length > HISTORY_CHARS ? `${m.content.slice(0, HISTORY_CHARS)}...` : m.content}`);
  const user = [turns.length ? `Conversation history:\n${turns.join('\n')}\n` : '', `Question: ${query}`].join('\n');
  return [
    { role: 'system', content: INSTRUCTIONS },
    { role: 'user', content: user.trim() },
  ];
}

/**
 * Reads the model's answer: tolerant to code fences, reasoning blocks and prose around the object, to keyword
 * lists given as comma-separated strings, and to an object cut short (the output limit): the complete strings of
 * each list are kept. Null when no usable object is found.
 */
export function parseKeywords(text: string): { high: string[]; low: string[]; recovered?: boolean } | null {
  const unfenced = text.replace(/<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi, '').replace(/```(?:json)?/gi, '');
  const start = unfenced.indexOf('{');
  if (start < 0) return null;
  const end = unfenced.lastIndexOf('}');
  let parsed: unknown;
  try {
    parsed = end > start ? JSON.parse(unfenced.slice(start, end + 1)) : undefined;
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined) return recoverKeywords(unfenced.slice(start));
  if (!parsed || typeof parsed !== 'object') return null;
  const record = parsed as Record<string, unknown>;
  const high = keywordList(record.high_level_keywords);
  const low = keywordList(record.low_level_keywords);
  if (!high || !low) return null;
  return { high, low };
}

/** The complete strings of each keyword list of an object cut short; null when there are none. */
function recoverKeywords(cut: string): { high: string[]; low: string[]; recovered: true } | null {
  const listOf = (key: string): string[] => {
    const at = cut.search(new RegExp(`"${key}"\\s*:\\s*\\[`));
    if (at < 0) return [];
    const rest = cut.slice(cut.indexOf('[', at) + 1);
    const close = rest.indexOf(']');
    const body = close >= 0 ? rest.slice(0, close) : rest;
    const strings = [...body.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => {
      try {
        return JSON.parse(`"${m[1]}"`) as string;
      } catch {
        return m[1];
      }
    });
    return keywordList(strings) ?? [];
  };
  const high = listOf('high_level_keywords');
  const low = listOf('low_level_keywords');
  return high.length + low.length > 0 ? { high, low, recovered: true } : null;
}

function keywordList(value: unknown): string[] | null {
  if (value === undefined || value === null) return [];
  const items = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : null;
  if (!items) return null;
  const seen = new Set<string>();
  const out: string[] = [];
  for (const item of items) {
    if (typeof item !== 'string') continue;
    const keyword = item.trim().replace(/\s+/g, ' ');
    const key = keyword.toLowerCase();
    if (keyword && !seen.has(key)) {
      seen.add(key);
      out.push(keyword);
    }
  }
  return out;
}
