import {
  COMPLETION_MARKER,
  type ExtractedEntity,
  type ExtractedRelation,
  FIELD_DELIMITER,
  formatEntityRecord,
  formatRelationRecord,
} from '../../prompts/record-format';
import { RELATION_PATTERNS } from './lexicon';
import { type Analysis, analyse } from './text';

/**
 * Extraction and gleaning for the mock provider, in the real record format. One call names at most
 * MAX_ENTITIES_PER_CALL entities (the most mentioned first), so long chunks leave work for gleaning.
 */

export const MAX_ENTITIES_PER_CALL = 20;
export const MAX_RELATIONS_PER_CALL = 40;
/** A mention is related to the next few entities of its sentence, not to every one. */
const RELATION_WINDOW = 3;

export function extractRecords(text: string): string {
  const analysis = analyse(text);
  const entities = analysis.candidates.slice(0, MAX_ENTITIES_PER_CALL);
  const emitted = new Set(entities.map((c) => key(c.name)));
  const relations = relationsOf(analysis).filter((r) => emitted.has(key(r.source)) && emitted.has(key(r.target)));
  return render(
    entities.map((c) => entityOf(analysis, c.name, c.type, c.sentences)),
    relations.slice(0, MAX_RELATIONS_PER_CALL),
  );
}

/** Records the earlier outputs missed; only the completion marker when there is nothing new. */
export function gleanRecords(text: string, previousOutputs: string[]): string {
  const analysis = analyse(text);
  const named = new Set<string>();
  const related = new Set<string>();
  for (const line of previousOutputs.join('\n').split('\n')) {
    const fields = line.trim().split(FIELD_DELIMITER);
    if (fields[0] === 'entity' && fields[1]) named.add(key(fields[1]));
    if (fields[0] === 'relation' && fields[1] && fields[2]) related.add(pairKey(fields[1], fields[2]));
  }
  const fresh = analysis.candidates.filter((c) => !named.has(key(c.name))).slice(0, MAX_ENTITIES_PER_CALL);
  const known = new Set([...named, ...fresh.map((c) => key(c.name))]);
  const relations = relationsOf(analysis).filter(
    (r) => known.has(key(r.source)) && known.has(key(r.target)) && !related.has(pairKey(r.source, r.target)),
  );
  return render(
    fresh.map((c) => entityOf(analysis, c.name, c.type, c.sentences)),
    relations.slice(0, MAX_RELATIONS_PER_CALL),
  );
}

function render(entities: ExtractedEntity[], relations: ExtractedRelation[]): string {
  const lines = [...entities.map(formatEntityRecord), ...relations.map(formatRelationRecord), COMPLETION_MARKER];
  return lines.join('\n');
}

function entityOf(analysis: Analysis, name: string, type: string, sentences: number[]): ExtractedEntity {
  const evidence = sentences
    .slice(0, 2)
    .map((i) => analysis.sentences[i])
    .join(' ');
  return { name: clean(name), type, description: clean(cap(evidence, 400)) };
}

/** Entities sharing a sentence, in reading order; the words between them choose the keyword. */
function relationsOf(analysis: Analysis): ExtractedRelation[] {
  const out: ExtractedRelation[] = [];
  const seen = new Set<string>();
  analysis.mentions.forEach((mentions, si) => {
    const sentence = analysis.sentences[si];
    for (let a = 0; a < mentions.length; a++) {
      let partners = 0;
      for (let b = a + 1; b < mentions.length && partners < RELATION_WINDOW; b++) {
        const [m, n] = [mentions[a], mentions[b]];
        if (key(m.name) === key(n.name)) continue;
        partners++;
        const pk = pairKey(m.name, n.name);
        if (seen.has(pk)) continue;
        seen.add(pk);
        const between = sentence.slice(m.end, n.start).toLowerCase();
        const keyword = RELATION_PATTERNS.find(([re]) => re.test(between))?.[1] ?? 'related to';
        out.push({ source: clean(m.name), target: clean(n.name), keywords: [keyword], description: clean(cap(sentence, 300)) });
      }
    }
  });
  return out;
}

const key = (name: string) => name.trim().toLowerCase();
const pairKey = (a: string, b: string) => [key(a), key(b)].sort().join('\u0000');

/** Record fields are single-line and must not contain the delimiter. */
function clean(s: string): string {
  return s.split(FIELD_DELIMITER).join(' ').replace(COMPLETION_MARKER, ' ').replace(/\s+/g, ' ').trim();
}

export function cap(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
