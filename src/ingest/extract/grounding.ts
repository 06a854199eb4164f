import type { ParsedEntity, ParsedRelation } from '../../records/extractions';
import { EXAMPLE_NAMES, PLACEHOLDER_NAMES } from '../../prompts/extraction';
import { countDrop, type DropCounts, type DropReason } from './parser';

/**
 * Grounding: an extracted name is kept only when the chunk's text names it. Both sides are compared after
 * normalising case, diacritics, punctuation and whitespace ("Curie's" holds "Curie", "São Paulo" holds "Sao
 * Paulo"); runs of single letters are joined ("U.S.A." is "USA"); an acronym also matches the initials of words
 * of the text ("WHO" in "World Health Organization"); a leading article or a bracketed aside of the name is
 * optional ("The Beatles", "International Business Machines (IBM)").
 */

const SKIPPED_IN_INITIALS = new Set(['of', 'the', 'and', 'for', 'de', 'du', 'des', 'la', 'le', 'der', 'und', 'on', 'in', 'at']);
const ARTICLE = /^(?:the|a|an|le|la|les|l|el|der|die|das)\s+/;

/** Letters that carry their mark in themselves (no decomposition separates it). */
const FOLDED: Record<string, string> = { ł: 'l', ø: 'o', đ: 'd', ð: 'd', ß: 'ss', æ: 'ae', œ: 'oe', ı: 'i', þ: 'th', ħ: 'h' };

/** Lower case, no diacritics, punctuation as spaces, single letters joined, one space between words. */
export function groundingForm(text: string): string {
  const words = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[łøđðßæœıþħ]/g, (c) => FOLDED[c])
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter(Boolean);
  const out: string[] = [];
  let letters = '';
  for (const w of words) {
    if (w.length === 1 && /\p{L}/u.test(w)) {
      letters += w;
      continue;
    }
    if (letters) out.push(letters);
    letters = '';
    out.push(w);
  }
  if (letters) out.push(letters);
  return out.join(' ');
}

/** The normalised text of a chunk, prepared once for all the names of its records. */
export class GroundingText {
  private readonly padded: string;
  private readonly words: string[];
  private initials: Set<string> | null = null;

  constructor(text: string) {
    const form = groundingForm(text);
    this.padded = ` ${form} `;
    this.words = form ? form.split(' ') : [];
  }

  /** Whether the text names `name`. */
  names(name: string): boolean {
    for (const variant of variantsOf(name)) {
      if (this.padded.includes(` ${variant} `)) return true;
    }
    return isAcronym(name) && this.initialsOfRuns().has(name.replace(/[^\p{L}\p{N}]/gu, '').toLowerCase());
  }

  /** Initials of every run of up to 8 words (words such as "of" may be skipped). */
  private initialsOfRuns(): Set<string> {
    if (this.initials) return this.initials;
    const found = new Set<string>();
    for (let i = 0; i < this.words.length; i++) {
      let strict = '';
      let loose = '';
      for (let j = i; j < Math.min(this.words.length, i + 8); j++) {
        const w = this.words[j];
        strict += w[0];
        if (!SKIPPED_IN_INITIALS.has(w)) loose += w[0];
        if (strict.length >= 2) found.add(strict);
        if (loose.length >= 2) found.add(loose);
      }
    }
    this.initials = found;
    return found;
  }
}

function variantsOf(name: string): string[] {
  const whole = groundingForm(name);
  if (!whole) return [];
  const out = new Set([whole]);
  const unbracketed = groundingForm(name.replace(/\([^)]*\)|\[[^\]]*\]/g, ' '));
  if (unbracketed) out.add(unbracketed);
  for (const v of [...out]) {
    const bare = v.replace(ARTICLE, '');
    if (bare) out.add(bare);
    // A possessive or plural written onto the name ("Curie's" as a name, "Beatles" for "Beatle").
    const singular = v.replace(/ s$|(?<=\p{L}{3})s$/u, '');
    if (singular && singular !== v) out.add(singular);
  }
  // The bracketed part on its own, when it is an acronym ("IBM" of "International Business Machines (IBM)").
  for (const m of name.matchAll(/\(([^)]*)\)/g)) {
    const inner = groundingForm(m[1]);
    if (inner && isAcronym(m[1])) out.add(inner);
  }
  return [...out];
}

/** Two to eight capitals (dots allowed): "WHO", "U.S.", "NASA". */
export function isAcronym(name: string): boolean {
  const compact = name.replace(/[.\s&]/g, '');
  return /^\p{Lu}{2,8}s?$/u.test(compact);
}

/** A name that is one of the format's field names (`NAME`, `SOURCE`, `<entity_name>`): the model echoed the prompt. */
export function isPlaceholder(name: string): boolean {
  const bare = name.trim().replace(/^[<{[]+|[>}\]]+$/g, '');
  if (bare !== name.trim()) return true;
  return bare === bare.toUpperCase() && PLACEHOLDER_NAMES.includes(bare.replace(/\s+/g, '_'));
}

const EXAMPLES = new Set(EXAMPLE_NAMES.map(groundingForm));

/**
 * The records a chunk's text grounds: an entity whose name the text holds, a relationship whose two ends it
 * holds. What is dropped is counted in `drops` by reason: a placeholder, a name of the prompt's example, any
 * other name the text does not hold.
 */
export function groundRecords(
  found: { entities: ParsedEntity[]; relations: ParsedRelation[] },
  text: GroundingText,
  drops: DropCounts,
): { entities: ParsedEntity[]; relations: ParsedRelation[] } {
  const verdict = (name: string): DropReason | null => {
    if (isPlaceholder(name)) return 'placeholder';
    if (text.names(name)) return null;
    return EXAMPLES.has(groundingForm(name)) ? 'example' : 'not_in_text';
  };
  const entities = found.entities.filter((e) => {
    const reason = verdict(e.name);
    if (reason) countDrop(drops, reason);
    return !reason;
  });
  const relations = found.relations.filter((r) => {
    const reason = verdict(r.source_name) ?? verdict(r.target_name);
    if (reason) countDrop(drops, reason);
    return !reason;
  });
  return { entities, relations };
}
