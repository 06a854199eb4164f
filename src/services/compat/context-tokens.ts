import { InvalidInputError } from '../../domain/errors';
import type { ChatMessage } from '../../llm/ports';
import { tokenEncoder } from '../../llm/tokens';

/**
 * The `context` of `/api/generate`: the conversation so far as cl100k token ids, which a client sends back with
 * its next prompt to continue. Each question ends with `<|endofprompt|>`, each answer with `<|endoftext|>`, so
 * the turns read back exactly.
 */

const END_OF_PROMPT = 100276;
const END_OF_TEXT = 100257;
const VOCABULARY = 100277;

export function encodeContext(turns: ChatMessage[]): number[] {
  const enc = tokenEncoder();
  const out: number[] = [];
  for (const turn of turns) {
    if (turn.role === 'system') continue;
    // Special-token strings inside the text are text, never markers (the encoder never reads them as special).
    out.push(...enc.encode(turn.content), turn.role === 'user' ? END_OF_PROMPT : END_OF_TEXT);
  }
  return out;
}

/** The turns of a `context` array; refused as 400 when it is not one this service produced. */
export function decodeContext(tokens: number[]): ChatMessage[] {
  const enc = tokenEncoder();
  const turns: ChatMessage[] = [];
  let start = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (!Number.isInteger(t) || t < 0 || t >= VOCABULARY)
      throw InvalidInputError.field('context', `token ${t} at index ${i} is not a token id`);
    if (t !== END_OF_PROMPT && t !== END_OF_TEXT) continue;
    turns.push({ role: t === END_OF_PROMPT ? 'user' : 'assistant', content: enc.decode(tokens.slice(start, i)) });
    start = i + 1;
  }
  if (start < tokens.length) turns.push({ role: 'user', content: enc.decode(tokens.slice(start)) });
  return turns;
}
