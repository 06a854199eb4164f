/**
 * The entity-resolution confirmation prompt (docs/architecture.md §5.10): two entity records, and the question
 * whether they name the same real-world thing. The answer's first word is YES or NO. The mock provider reads
 * the two records back with `parseResolutionPair`.
 */

export const RESOLUTION_PROMPT_VERSION = 1;

export interface ResolutionSubject {
  name: string;
  type: string;
  description: string;
}

const MARKER = '---TEXT---';
const FIELD = ' | ';

const SYSTEM = [
  'You decide whether two entities of a knowledge graph name the same real-world thing.',
  'Names may differ by spelling, abbreviation, initials, acronyms, legal suffixes or a qualifier.',
  'Different things with similar names (a city and a person named after it, a company and a product) are not the same.',
  'Answer with one word, YES or NO, then optionally one short sentence of reason.',
].join('\n');

function line(label: string, s: ResolutionSubject): string {
  const clean = (t: string) => t.replace(/\s+/g, ' ').replace(/\|/g, '/').trim().slice(0, 600);
  return `${label}${clean(s.name)}${FIELD}${clean(s.type)}${FIELD}${clean(s.description)}`;
}

export function resolutionPrompt(a: ResolutionSubject, b: ResolutionSubject): Array<{ role: 'system' | 'user'; content: string }> {
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: `Are these the same entity? (name | type | description)\n${MARKER}\n${line('A: ', a)}\n${line('B: ', b)}` },
  ];
}

/** The two records of a resolution prompt's text (after its marker), or null. */
export function parseResolutionPair(text: string): [ResolutionSubject, ResolutionSubject] | null {
  const records = text
    .split('\n')
    .map((l) => /^([AB]): (.*)$/.exec(l.trim()))
    .filter((m): m is RegExpExecArray => !!m)
    .map((m) => {
      const [name = '', type = '', ...rest] = m[2].split(FIELD);
      return { name, type, description: rest.join(FIELD) };
    });
  return records.length === 2 ? [records[0], records[1]] : null;
}

/** YES (same entity) or anything else. */
export function parseResolutionAnswer(text: string): boolean {
  return /^\W*yes\b/i.test(text.trim());
}
