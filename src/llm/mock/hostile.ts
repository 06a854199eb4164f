import { COMPLETION_MARKER, FIELD_DELIMITER } from '../../prompts/record-format';
import type { ChatMessage, FinishReason } from '../ports';
import type { PromptTask } from '../tasks';
import { countTokens, tokenLayout } from '../tokens';

/**
 * What real small models do to a prompt, played by the mock provider for tests (docs/architecture.md §7): a mock
 * model named `mock-<behaviour>` (listed in a catalog as a model of a provider of type `mock`) answers as the
 * behaviour says; `mock-llm` and any other name answer well.
 *
 * | behaviour      | what the model writes |
 * |----------------|------------------------|
 * | `echo`         | the prompt's own format lines (`entity<|>NAME<|>TYPE<|>DESCRIPTION`, ...); other tasks: the prompt back |
 * | `copy-example` | the prompt's example records instead of the text's |
 * | `loop`         | its first line again and again until the output limit cuts it |
 * | `truncate`     | its answer cut at four fifths, as at the output limit (keyword JSON left open) |
 * | `think`        | a `<think>` block (holding records of its own) before the answer |
 * | `refuse`       | a refusal, whatever the task |
 * | `empty`        | nothing |
 * | `delimiters`   | the records with ` | ` instead of the delimiter |
 * | `fenced`       | the answer inside a code fence |
 * | `json`         | the records as a JSON object |
 * | `ungrounded`   | the records, plus records for names the text does not hold |
 * | `prose`        | a sentence about the text instead of records |
 */

export const HOSTILE_BEHAVIOURS = [
  'echo',
  'copy-example',
  'loop',
  'truncate',
  'think',
  'refuse',
  'empty',
  'delimiters',
  'fenced',
  'json',
  'ungrounded',
  'prose',
] as const;
export type HostileBehaviour = (typeof HOSTILE_BEHAVIOURS)[number];

export function hostileBehaviourOf(model: string): HostileBehaviour | null {
  const m = /^mock-(.+)$/.exec(model);
  return m && (HOSTILE_BEHAVIOURS as readonly string[]).includes(m[1]) ? (m[1] as HostileBehaviour) : null;
}

export interface HostileAnswer {
  text: string;
  finish_reason: FinishReason;
}

const REFUSAL = "I'm sorry, but I can't help with that request.";
const INVENTED = ['Atlantis Shipping Company', 'Captain Nemo'];

/** The behaviour's answer, given the good answer the mock would give and the output limit. */
export function hostileAnswer(
  behaviour: HostileBehaviour,
  task: PromptTask,
  messages: ChatMessage[],
  good: string,
  maxTokens: number | undefined,
): HostileAnswer {
  const records = task === 'extract' || task === 'glean';
  const stop = (text: string): HostileAnswer => ({ text, finish_reason: 'stop' });
  switch (behaviour) {
    case 'echo':
      return stop(records ? [...formatLines(messages), COMPLETION_MARKER].join('\n') : lastUser(messages));
    case 'copy-example':
      return stop(records ? exampleLines(messages).join('\n') : good);
    case 'loop': {
      const line = good.split('\n').find((l) => l.trim()) ?? 'and so on';
      const limit = maxTokens ?? 4096;
      const times = Math.ceil(limit / Math.max(1, countTokens(`${line}\n`))) + 2;
      return cut(Array.from({ length: times }, () => line).join('\n'), limit);
    }
    case 'truncate':
      return { text: good.slice(0, Math.floor((good.length * 4) / 5)), finish_reason: 'length' };
    case 'think':
      return stop(
        `<think>\nThe user wants ${task}. Let me think.\nentity${FIELD_DELIMITER}Inner Thought${FIELD_DELIMITER}CONCEPT${FIELD_DELIMITER}Thinking aloud.\n</think>\n${good}`,
      );
    case 'refuse':
      return stop(REFUSAL);
    case 'empty':
      return stop('');
    case 'delimiters':
      return stop(records ? good.split(FIELD_DELIMITER).join(' | ') : good);
    case 'fenced':
      return stop(`\`\`\`${task === 'keywords' ? 'json' : 'text'}\n${good}\n\`\`\``);
    case 'json':
      return stop(records ? asJson(good) : good);
    case 'ungrounded':
      return stop(records ? withInventedRecords(good) : good);
    case 'prose':
      return stop(records ? 'The text describes several people and places and how they are connected.' : good);
  }
}

/** The output cut at `maxTokens` tokens, as a provider's limit cuts it. */
function cut(text: string, maxTokens: number): HostileAnswer {
  const layout = tokenLayout(text);
  if (layout.count <= maxTokens) return { text, finish_reason: 'stop' };
  return { text: text.slice(0, layout.starts[maxTokens]), finish_reason: 'length' };
}

function lastUser(messages: ChatMessage[]): string {
  return [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
}

/** The lines of the prompt's format description: records whose fields are upper-case words. */
function formatLines(messages: ChatMessage[]): string[] {
  const system = messages.find((m) => m.role === 'system')?.content ?? '';
  return system.split('\n').filter((l) => /^(entity|relation)<\|>[A-Z]+<\|>/.test(l.trim()));
}

/** The example's records, as the prompt gives them. */
function exampleLines(messages: ChatMessage[]): string[] {
  const lines = (messages.find((m) => m.role === 'user')?.content ?? '').split('\n');
  const start = lines.findIndex((l) => /^example/i.test(l.trim()));
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.trim()) break;
    out.push(line);
  }
  return out;
}

function asJson(recordsText: string): string {
  const entities: object[] = [];
  const relationships: object[] = [];
  for (const line of recordsText.split('\n')) {
    const f = line.split(FIELD_DELIMITER);
    if (f[0] === 'entity') entities.push({ name: f[1], type: f[2], description: f[3] });
    if (f[0] === 'relation') relationships.push({ source: f[1], target: f[2], keywords: f[3], description: f[4] });
  }
  return JSON.stringify({ entities, relationships }, null, 2);
}

function withInventedRecords(recordsText: string): string {
  const lines = recordsText.split('\n').filter((l) => l !== COMPLETION_MARKER);
  const first = lines.find((l) => l.startsWith(`entity${FIELD_DELIMITER}`))?.split(FIELD_DELIMITER)[1];
  const D = FIELD_DELIMITER;
  lines.push(`entity${D}${INVENTED[0]}${D}ORGANIZATION${D}A shipping company.`, `entity${D}${INVENTED[1]}${D}PERSON${D}A captain.`);
  lines.push(`relation${D}${INVENTED[1]}${D}${INVENTED[0]}${D}works for${D}The captain works for the company.`);
  if (first) lines.push(`relation${D}${first}${D}${INVENTED[0]}${D}partner${D}An invented partnership.`);
  return [...lines, COMPLETION_MARKER].join('\n');
}
