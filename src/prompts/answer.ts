import type { ChatMessage } from '../llm/ports';
import { countTokens } from '../llm/tokens';
import type { PromptOverride } from './overrides';

/**
 * The answer prompt, version 1: role, rules and the retrieved context in the system message, earlier turns as
 * messages, the question last. When nothing was retrieved the prompt says so in so many words, so that any
 * model is told not to invent an answer.
 */

export const ANSWER_PROMPT_VERSION = 1;

/** The phrase every model (the mock included) reads as "answer that nothing was found". */
export const NO_CONTEXT = 'No context was retrieved';

const ROLE =
  'You are a helpful assistant that answers questions from the context below: entities and relationships of a ' +
  'knowledge graph and chunks of the source documents.';

const RULES = [
  '- Answer only from the context. If it does not contain the answer, say that you do not know.',
  '- Cite the sources you use by their reference numbers in square brackets, for example [1] or [2][3].',
  '- Answer in the language of the question. Use Markdown when it helps.',
].join('\n');

const NO_CONTEXT_TEXT =
  `${NO_CONTEXT} for this question: the knowledge base holds nothing relevant to it (or nothing that passes the ` +
  'document filter). Say plainly that no relevant information was found in the knowledge base. Do not invent an answer.';

const DIRECT_ROLE = 'You are a helpful assistant. Answer the question directly.';

/** Earlier turns kept in a prompt: the most recent ones, within both bounds. */
export const HISTORY_MESSAGES = 10;
export const HISTORY_TOKENS = 2000;

export interface AnswerPromptInput {
  query: string;
  /** The formatted context; '' when nothing was retrieved. */
  context: string;
  systemPrompt: string | null;
  history: readonly ChatMessage[];
  /** Bypass mode: no retrieval happened, so the prompt neither offers nor denies a context. */
  direct: boolean;
  /** A file's role and rules in place of the built-in ones (./overrides.ts). */
  override?: PromptOverride | null;
}

export function answerPrompt(input: AnswerPromptInput): ChatMessage[] {
  const parts: string[] = [];
  if (input.systemPrompt?.trim()) parts.push(input.systemPrompt.trim());
  if (input.direct) {
    parts.push(DIRECT_ROLE);
  } else {
    const instructions = input.override ? [input.override.text] : [`---Role---\n${ROLE}`, `---Rules---\n${RULES}`];
    parts.push(...instructions, `---Context---\n${input.context || NO_CONTEXT_TEXT}`);
  }
  return [{ role: 'system', content: parts.join('\n\n') }, ...recentHistory(input.history), { role: 'user', content: input.query }];
}

/** The last turns that fit, oldest first; system turns are dropped (the prompt has its own). */
export function recentHistory(history: readonly ChatMessage[], maxMessages = HISTORY_MESSAGES, maxTokens = HISTORY_TOKENS): ChatMessage[] {
  const kept: ChatMessage[] = [];
  let used = 0;
  for (let i = history.length - 1; i >= 0 && kept.length < maxMessages; i--) {
    const turn = history[i];
    if (turn.role === 'system' || !turn.content.trim()) continue;
    const tokens = countTokens(turn.content);
    if (used + tokens > maxTokens) break;
    used += tokens;
    kept.push({ role: turn.role, content: turn.content });
  }
  return kept.reverse();
}

/** The prompt as readable text (`prompt_only`). */
export function renderPrompt(messages: readonly ChatMessage[]): string {
  return messages.map((m) => `[${m.role}]\n${m.content}`).join('\n\n');
}
