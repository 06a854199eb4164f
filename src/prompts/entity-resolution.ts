/**
 * The entity-resolution confirmation prompt (docs/architecture.md §5.10): numbered pairs of entity records, and
 * for each the question whether its two records name the same real-world thing. The answer holds one line per
 * pair, `<number>: YES` or `<number>: NO`. The mock provider reads the pairs back with `parseResolutionPairs`.
 */

export const RESOLUTION_PROMPT_VERSION = 2;

export interface ResolutionSubject {
  name: string;
  type: string;
  description: string;
}

export type ResolutionPair = [ResolutionSubject, ResolutionSubject];

/** Pairs asked in one call at most. */
export const RESOLUTION_BATCH = 16;

const MARKER = '---TEXT---';
const FIELD = ' | ';
/** Of a description, what a record line keeps: enough to tell two things apart, a batch stays small. */
const DESCRIPTION_CHARS = 300;

const SYSTEM = [
  'You decide, for each numbered pair of entities of a knowledge graph, whether its two entities name the same real-world thing.',
  'Names may differ by spelling, abbreviation, initials, acronyms, legal suffixes or a qualifier.',
  'Different things with similar names (a city and a person named after it, a company and a product, two versions or models) are not the same.',
  "Answer with one line per pair, in the order given: the pair's number, a colon, then YES or NO. Write nothing else.",
].join('\n');

const clean = (t: string, max: number) => t.replace(/\s+/g, ' ').replace(/\|/g, '/').trim().slice(0, max);

/** A record's line: `<number><A|B>: name | type | description`. */
export function resolutionLine(label: string, s: ResolutionSubject): string {
  return `${label}: ${clean(s.name, 200)}${FIELD}${clean(s.type, 60)}${FIELD}${clean(s.description, DESCRIPTION_CHARS)}`;
}

export function resolutionPrompt(pairs: ResolutionPair[]): Array<{ role: 'system' | 'user'; content: string }> {
  const blocks = pairs.map(([a, b], i) => `${resolutionLine(`${i + 1}A`, a)}\n${resolutionLine(`${i + 1}B`, b)}`);
  return [
    { role: 'system', content: SYSTEM },
    {
      role: 'user',
      content: `Is each pair one entity? ${pairs.length} pair${pairs.length === 1 ? '' : 's'} (name | type | description):\n${MARKER}\n${blocks.join('\n\n')}`,
    },
  ];
}

/** Output tokens a batch may take: a short line per pair, and room for a stray word. */
export function resolutionMaxTokens(pairs: number): number {
  return 8 * pairs + 24;
}

/** The pairs of a resolution prompt's text (after its marker), in order; a pair missing a record is left out. */
export function parseResolutionPairs(text: string): ResolutionPair[] {
  const records = new Map<number, Partial<Record<'A' | 'B', ResolutionSubject>>>();
  for (const l of text.split('\n')) {
    const m = /^(\d+)([AB]): (.*)$/.exec(l.trim());
    if (!m) continue;
    const [name = '', type = '', ...rest] = m[3].split(FIELD);
    const pair = records.get(Number(m[1])) ?? {};
    pair[m[2] as 'A' | 'B'] = { name, type, description: rest.join(FIELD) };
    records.set(Number(m[1]), pair);
  }
  return [...records.entries()].sort((x, y) => x[0] - y[0]).flatMap(([, p]) => (p.A && p.B ? [[p.A, p.B] as ResolutionPair] : []));
}

/**
 * The verdicts of an answer, one per pair asked: true (same) or false from the lines `<n>: YES` / `<n>: NO` (also
 * `<n>. yes`, `**<n>**: No`...), null for a pair without a verdict or with both. An echo of the prompt, an answer
 * cut off, a loop or anything else that does not read as verdicts leaves the pairs it does not answer null: the
 * caller merges none of them. A single pair may also be answered by a leading YES or NO.
 */
export function parseResolutionVerdicts(text: string, pairs: number): Array<boolean | null> {
  const said = new Map<number, Set<boolean>>();
  for (const l of text.split('\n')) {
    const m = /^\W*(?:pair\s*)?(\d{1,3})\W+(yes|no)\b/i.exec(l);
    if (!m) continue;
    const n = Number(m[1]);
    if (n < 1 || n > pairs) continue;
    said.set(n, (said.get(n) ?? new Set()).add(m[2].toLowerCase() === 'yes'));
  }
  if (pairs === 1 && said.size === 0) {
    const bare = /^\W*(yes|no)\b/i.exec(text.trim());
    if (bare) said.set(1, new Set([bare[1].toLowerCase() === 'yes']));
  }
  return Array.from({ length: pairs }, (_, i) => {
    const verdicts = said.get(i + 1);
    return verdicts?.size === 1 ? [...verdicts][0] : null;
  });
}
