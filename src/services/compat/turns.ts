import { InvalidInputError } from '../../domain/errors';
import type { ChatMessage } from '../../llm/ports';
import { COMPAT_MODES, type CompatMode } from './models';

/**
 * How a chat client's conversation becomes a RAG query (docs/api.md §4.12): the last user message is the
 * question, the messages before it are the history, system messages become the system prompt, and a leading
 * `/local`, `/global`, `/naive`, `/hybrid`, `/mix`, `/bypass` or `/context` selects the mode.
 */

/** A message as the compatibility APIs carry it, reduced to text. */
export interface CompatMessage {
  role: string;
  content: string;
}

export interface RagTurn {
  query: string;
  history: ChatMessage[];
  systemPrompt: string | null;
  /** The mode of the question's prefix, if it has one. */
  prefixMode: CompatMode | null;
}

const PREFIX = new RegExp(`^\\s*/(${COMPAT_MODES.join('|')})(?=\\s|$)\\s*`, 'i');

/** Splits a leading mode prefix off a message: `/local who is Alice?` -> local, `who is Alice?`. */
export function splitModePrefix(text: string): { mode: CompatMode | null; rest: string } {
  const m = PREFIX.exec(text);
  if (!m) return { mode: null, rest: text };
  return { mode: m[1].toLowerCase() as CompatMode, rest: text.slice(m[0].length) };
}

/** The roles a conversation may hold; `developer` is OpenAI's newer name for system. */
export function roleOf(role: string): ChatMessage['role'] | 'tool' {
  if (role === 'system' || role === 'developer') return 'system';
  if (role === 'user' || role === 'assistant') return role;
  return 'tool';
}

/** The RAG query of a conversation; refused (naming `field`) when it holds no question. */
export function ragTurnOf(messages: CompatMessage[], field = 'messages'): RagTurn {
  const lastUser = messages.map((m) => roleOf(m.role)).lastIndexOf('user');
  if (lastUser < 0) throw InvalidInputError.field(field, 'no user message to answer');
  const { mode, rest } = splitModePrefix(messages[lastUser].content);
  const query = rest.trim();
  if (!query) throw InvalidInputError.field(field, 'the last user message holds no question');
  const system = messages
    .filter((m) => roleOf(m.role) === 'system' && m.content.trim())
    .map((m) => m.content.trim())
    .join('\n\n');
  const history: ChatMessage[] = [];
  for (const m of messages.slice(0, lastUser)) {
    const role = roleOf(m.role);
    // Tool traffic has no place in a RAG prompt; earlier questions lose their mode prefix.
    if (role === 'user') history.push({ role, content: splitModePrefix(m.content).rest });
    else if (role === 'assistant') history.push({ role, content: m.content });
  }
  return { query, history, systemPrompt: system || null, prefixMode: mode };
}

/** A conversation handed to a model as it is (a provider model without a mode prefix). */
export function directMessages(messages: CompatMessage[], field = 'messages'): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const m of messages) {
    const role = roleOf(m.role);
    if (role !== 'tool') out.push({ role, content: m.content });
  }
  if (!out.some((m) => m.role === 'user')) throw InvalidInputError.field(field, 'no user message to answer');
  return out;
}
