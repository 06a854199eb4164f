import {
  FIRST_NAMES,
  KNOWN_LOCATION_PHRASES,
  KNOWN_LOCATIONS,
  KNOWN_ORGANIZATIONS,
  LOCATION_HEADS,
  MONTHS_AND_DAYS,
  NAME_CONNECTORS,
  NOT_A_SURNAME,
  ORGANIZATION_WORDS,
  PERSON_TITLES,
  SENTENCE_STARTERS,
  STOPWORDS,
  TECHNOLOGY_HEADS,
  TECHNOLOGY_WORDS,
} from './lexicon';

/** Text rules of the mock provider: sentences, words, candidate entities and their types. */

// Company suffixes (Inc., Corp.) are left out: they end sentences as often as not.
const ABBREVIATIONS = new Set(['dr', 'mr', 'mrs', 'ms', 'prof', 'st', 'jr', 'sr', 'vs', 'e.g', 'i.e', 'u.s', 'no']);
/** Longer than any abbreviation: how far back from a full stop the word before it is looked for. */
const WORD_TAIL = 64;
const TOKEN_RE = /[\p{L}\p{N}]+(?:['’\-&.][\p{L}\p{N}]+)*/gu;

export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const block of text.split(/\n\s*\n|\r?\n(?=\s*(?:[-*•]|\d+[.)])\s)|\r?\n/)) {
    let start = 0;
    const re = /[.!?]+["')\]]*\s+(?=["'([]?[\p{Lu}\p{N}])/gu;
    for (let m = re.exec(block); m; m = re.exec(block)) {
      // The word before the stop; only the tail is searched (a search from the sentence start is quadratic).
      const before = block.slice(Math.max(start, m.index - WORD_TAIL), m.index);
      const lastWord = /([\p{L}.]+)$/u.exec(before)?.[1]?.toLowerCase() ?? '';
      if (ABBREVIATIONS.has(lastWord) || /^\p{Lu}$/u.test(lastWord)) continue;
      push(out, block.slice(start, m.index + m[0].trimEnd().length));
      start = m.index + m[0].length;
    }
    push(out, block.slice(start));
  }
  return out;
}

function push(out: string[], s: string): void {
  const t = s.replace(/\s+/g, ' ').trim();
  if (t) out.push(t);
}

export interface Token {
  text: string;
  start: number;
  end: number;
}

export function tokens(sentence: string): Token[] {
  const out: Token[] = [];
  for (const m of sentence.matchAll(TOKEN_RE)) out.push({ text: m[0], start: m.index, end: m.index + m[0].length });
  return out;
}

/** Lower-cased content words (no stopwords, trailing plural s dropped) for overlap scoring. */
export function contentWords(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(TOKEN_RE)) {
    const w = m[0].endsWith("'s") || m[0].endsWith('’s') ? m[0].slice(0, -2) : m[0];
    if (w.length < 2 || STOPWORDS.has(w)) continue;
    out.push(w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w);
  }
  return out;
}

const isCapitalised = (w: string) => /^\p{Lu}/u.test(w) || /^[\p{Ll}\p{N}]+\p{Lu}/u.test(w);
const isAcronym = (w: string) => /^\p{Lu}[\p{Lu}\p{N}&]+$/u.test(w);

export interface Mention {
  name: string;
  sentence: number;
  start: number;
  end: number;
}

export interface Candidate {
  name: string;
  type: string;
  mentions: number;
  firstSentence: number;
  /** Indices of the sentences that mention it, in order. */
  sentences: number[];
}

export interface Analysis {
  sentences: string[];
  /** Mentions per sentence, in reading order. */
  mentions: Mention[][];
  /** Candidates by importance: mention count, then first appearance. */
  candidates: Candidate[];
}

/** Finds candidate entities (capitalised phrases, acronyms) and their mentions, sentence by sentence. */
export function analyse(text: string): Analysis {
  const sentences = splitSentences(text);
  const rawMentions = sentences.map((s) => phrases(s));
  // A single capitalised word that only ever starts sentences is probably just a capitalised word.
  const midSentence = new Set<string>();
  for (const list of rawMentions) for (const m of list) if (!m.initial) midSentence.add(m.name.toLowerCase());

  const byKey = new Map<string, Candidate>();
  const mentions: Mention[][] = rawMentions.map((list, si) => {
    const kept: Mention[] = [];
    for (const m of list) {
      const key = m.name.toLowerCase();
      if (m.initial && !m.name.includes(' ') && !isAcronym(m.name) && !midSentence.has(key) && !isKnownWord(key)) continue;
      let c = byKey.get(key);
      if (!c) {
        c = { name: m.name, type: classify(m.name, sentences[si].slice(0, m.start)), mentions: 0, firstSentence: si, sentences: [] };
        byKey.set(key, c);
      }
      c.mentions++;
      if (c.sentences[c.sentences.length - 1] !== si) c.sentences.push(si);
      kept.push({ name: c.name, sentence: si, start: m.start, end: m.end });
    }
    return kept;
  });
  const candidates = [...byKey.values()].sort((a, b) => b.mentions - a.mentions || a.firstSentence - b.firstSentence);
  return { sentences, mentions, candidates };
}

interface RawMention {
  name: string;
  start: number;
  end: number;
  initial: boolean;
}

function phrases(sentence: string): RawMention[] {
  const toks = tokens(sentence);
  const out: RawMention[] = [];
  let i = 0;
  while (i < toks.length) {
    if (!isCapitalised(toks[i].text)) {
      i++;
      continue;
    }
    let j = i;
    // Extend over capitalised words and connectors followed by a capitalised word, separated by plain spaces.
    while (j + 1 < toks.length && /^\s+$|^ & $/.test(sentence.slice(toks[j].end, toks[j + 1].start)) && j - i < 6) {
      const next = toks[j + 1].text;
      if (isCapitalised(next)) j++;
      else if (
        NAME_CONNECTORS.has(next) &&
        j + 2 < toks.length &&
        isCapitalised(toks[j + 2].text) &&
        /^\s+$/.test(sentence.slice(toks[j + 1].end, toks[j + 2].start))
      )
        j += 2;
      else break;
    }
    let first = i;
    // Drop a leading sentence starter ("The University of Oxford", "In Paris").
    while (first <= j && SENTENCE_STARTERS.has(toks[first].text.toLowerCase()) && !isAcronym(toks[first].text)) first++;
    if (first <= j) {
      const name = cleanName(sentence.slice(toks[first].start, toks[j].end));
      if (keepName(name)) out.push({ name, start: toks[first].start, end: toks[j].end, initial: first === 0 });
    }
    i = j + 1;
  }
  return out;
}

function cleanName(raw: string): string {
  return raw
    .replace(/['’]s$/u, '')
    .replace(/\.$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function keepName(name: string): boolean {
  if (name.length < 2 || /^\p{N}+$/u.test(name)) return false;
  const lower = name.toLowerCase();
  if (!name.includes(' ') && (MONTHS_AND_DAYS.has(lower) || STOPWORDS.has(lower) || PERSON_TITLES.has(lower))) return false;
  return true;
}

function isKnownWord(lower: string): boolean {
  return FIRST_NAMES.has(lower) || KNOWN_LOCATIONS.has(lower) || TECHNOLOGY_WORDS.has(lower) || KNOWN_ORGANIZATIONS.has(lower);
}

/** ORGANIZATION, TECHNOLOGY, LOCATION, PERSON or CONCEPT, from the words and what precedes the mention. */
export function classify(name: string, before: string): string {
  const words = name.split(' ');
  const lower = words.map((w) => w.toLowerCase().replace(/\.$/, ''));
  const last = lower[lower.length - 1];
  if (lower.some((w) => ORGANIZATION_WORDS.has(w)) || KNOWN_ORGANIZATIONS.has(lower.join(' '))) return 'ORGANIZATION';
  if (lower.some((w) => TECHNOLOGY_WORDS.has(w)) || (words.length > 1 && TECHNOLOGY_HEADS.has(last))) return 'TECHNOLOGY';
  if (
    KNOWN_LOCATIONS.has(lower.join(' ')) ||
    KNOWN_LOCATION_PHRASES.has(lower.join('_')) ||
    (words.length > 1 && LOCATION_HEADS.has(last))
  ) {
    return 'LOCATION';
  }
  if (looksLikePerson(words, lower, before)) return 'PERSON';
  if (/\b(in|near|from|across|throughout|around)\s+(the\s+)?$/i.test(before)) return 'LOCATION';
  return 'CONCEPT';
}

function looksLikePerson(words: string[], lower: string[], before: string): boolean {
  if (PERSON_TITLES.has(/(\p{L}+)\.?\s+$/u.exec(before)?.[1]?.toLowerCase() ?? '')) return true;
  if (FIRST_NAMES.has(lower[0])) return true;
  if (words.length < 2 || words.length > 3) return false;
  return words.every((w) => /^\p{Lu}[\p{Ll}'’-]+$/u.test(w)) && !lower.some((w) => NOT_A_SURNAME.has(w));
}
