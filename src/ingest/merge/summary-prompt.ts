import type { ChatMessage } from '../../llm/ports';
import { TEXT_MARKER } from '../extract/prompt';

/**
 * The description summary prompt (docs/architecture.md §5.5): several description fragments of one entity or
 * relationship, one per line after `---TEXT---`, become one description.
 */

export const SUMMARY_PROMPT_VERSION = 1;

export interface SummarySubject {
  kind: 'entity' | 'relationship';
  /** Entity name, or `SOURCE - TARGET` for a relationship. */
  name: string;
}

const SYSTEM =
  'You merge descriptions for a knowledge graph. You write one coherent description in the third person ' +
  'that keeps every distinct fact of the fragments, resolves repetitions, and adds nothing that is not in them. ' +
  'Answer with the description only, as plain text.';

export function summaryPrompt(subject: SummarySubject, fragments: string[], maxWords: number): ChatMessage[] {
  const user = [
    `${subject.kind === 'entity' ? 'Entity' : 'Relationship'}: ${subject.name}`,
    `Write a single description of at most ${maxWords} words from the description fragments below, one per line.`,
    TEXT_MARKER,
    ...fragments.map((f) => f.replace(/\s+/g, ' ').trim()),
  ].join('\n');
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: user },
  ];
}
