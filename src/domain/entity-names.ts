/**
 * Name rules of entity resolution (docs/architecture.md §5.10): the normalised form two names of one thing
 * share (case, punctuation, diacritics, legal suffixes, a plural last word), initials, and string similarity.
 */

const LEGAL_SUFFIXES = new Set([
  'inc',
  'incorporated',
  'corp',
  'corporation',
  'co',
  'company',
  'ltd',
  'limited',
  'llc',
  'llp',
  'plc',
  'gmbh',
  'ag',
  'sa',
  'sas',
  'nv',
  'bv',
  'oy',
  'ab',
  'spa',
  'srl',
  'pty',
]);
/** Words skipped by initials: "Bank of America" -> "ba". */
const MINOR_WORDS = new Set([
  'of',
  'and',
  'the',
  'for',
  'de',
  'du',
  'des',
  'la',
  'le',
  'von',
  'van',
  'der',
  'a',
  'an',
  'in',
  'on',
  'at',
  'to',
]);
/** Words whose trailing s is not a plural. */
const NOT_PLURAL = /(ss|us|is|ys|os|as|es)$/;

/** Lower case, no diacritics, `&` as `and`, punctuation gone (I.B.M. -> ibm), single spaces. */
function plain(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/(?<=\b\p{L})\.(?=\p{L}\b)/gu, '')
    .replace(/['’`]s\b/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

function singular(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(ches|shes|sses|xes|zes)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !NOT_PLURAL.test(word)) return word.slice(0, -1);
  return word;
}

/** The words of a name's normalised form: legal suffixes and a leading "the" dropped, the last word singular. */
export function nameWords(name: string): string[] {
  const words = plain(name).split(' ').filter(Boolean);
  while (words.length > 1 && LEGAL_SUFFIXES.has(words[words.length - 1])) words.pop();
  if (words.length > 1 && words[0] === 'the') words.shift();
  if (words.length) words[words.length - 1] = singular(words[words.length - 1]);
  return words;
}

/** The normalised name: equal for "Acme Corp.", "ACME Corporation" and "Acme". */
export function nameKey(name: string): string {
  return nameWords(name).join(' ');
}

/** Initials of a name of two or more words ("International Business Machines" -> "ibm"), else null. */
export function initialsOf(name: string): string | null {
  const words = nameWords(name).filter((w) => !MINOR_WORDS.has(w));
  if (words.length < 2) return null;
  return words.map((w) => w[0]).join('');
}

/** Whether a name is written as an acronym: one word of capitals, possibly dotted ("IBM", "I.B.M."). */
export function isAcronym(name: string): boolean {
  const compact = name.replace(/[.\s]/g, '');
  return compact.length >= 2 && compact.length <= 8 && /^[\p{Lu}\p{N}&]+$/u.test(compact);
}

/** Jaro-Winkler similarity of two strings, 0..1. */
export function jaroWinkler(a: string, b: string): number {
  if (a === b) return 1;
  if (!a.length || !b.length) return 0;
  const window = Math.max(0, Math.floor(Math.max(a.length, b.length) / 2) - 1);
  const aHit = new Array<boolean>(a.length).fill(false);
  const bHit = new Array<boolean>(b.length).fill(false);
  let matches = 0;
  for (let i = 0; i < a.length; i++) {
    for (let j = Math.max(0, i - window); j < Math.min(b.length, i + window + 1); j++) {
      if (bHit[j] || a[i] !== b[j]) continue;
      aHit[i] = bHit[j] = true;
      matches++;
      break;
    }
  }
  if (!matches) return 0;
  let transpositions = 0;
  for (let i = 0, j = 0; i < a.length; i++) {
    if (!aHit[i]) continue;
    while (!bHit[j]) j++;
    if (a[i] !== b[j++]) transpositions++;
  }
  const m = matches;
  const jaro = (m / a.length + m / b.length + (m - transpositions / 2) / m) / 3;
  let prefix = 0;
  while (prefix < Math.min(4, a.length, b.length) && a[prefix] === b[prefix]) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}

/**
 * How alike two names are, 0..1: 1 for the same normalised name or an acronym of the other's initials; else
 * the better of the string similarity of the normalised names and an initials match ("J. Smith" ~ "John Smith"),
 * at most 0.94.
 */
export function nameSimilarity(a: string, b: string): number {
  const [ka, kb] = [nameKey(a), nameKey(b)];
  if (!ka || !kb) return 0;
  if (ka === kb) return 1;
  const compact = (k: string) => k.replace(/ /g, '');
  if ((isAcronym(a) && initialsOf(b) === compact(ka)) || (isAcronym(b) && initialsOf(a) === compact(kb))) return 0.95;
  // Below the acronym's 0.95: only equal names and acronyms count as the same name.
  return Math.min(0.94, Math.max(jaroWinkler(ka, kb) * lengthPenalty(ka, kb), initialsMatch(ka, kb)));
}

/** Strings of very different lengths are rarely one name misspelt. */
function lengthPenalty(a: string, b: string): number {
  const ratio = Math.min(a.length, b.length) / Math.max(a.length, b.length);
  return ratio >= 0.75 ? 1 : 0.75 + ratio / 3;
}

/** "j smith" against "john smith": same last word, every other word an initial of the other's. */
function initialsMatch(a: string, b: string): number {
  const [wa, wb] = [a.split(' '), b.split(' ')];
  if (wa.length < 2 || wa.length !== wb.length || wa[wa.length - 1] !== wb[wb.length - 1]) return 0;
  for (let i = 0; i < wa.length - 1; i++) {
    const [x, y] = [wa[i], wb[i]];
    if (x === y) continue;
    if (!(x.length === 1 && y.startsWith(x)) && !(y.length === 1 && x.startsWith(y))) return 0;
  }
  return 0.8;
}

/** Entity types that may name the same thing; anything else must be equal (UNKNOWN goes with every type). */
const TYPE_GROUPS: string[][] = [
  ['ORGANIZATION', 'ORGANISATION', 'COMPANY', 'INSTITUTION', 'AGENCY', 'CORPORATION', 'ORG'],
  ['LOCATION', 'PLACE', 'CITY', 'COUNTRY', 'GPE', 'REGION', 'GEO'],
  ['PERSON', 'PEOPLE', 'HUMAN'],
  ['TECHNOLOGY', 'PRODUCT', 'SOFTWARE', 'TOOL'],
  ['CONCEPT', 'TOPIC', 'IDEA'],
];

export function typesCompatible(a: string, b: string): boolean {
  const [x, y] = [a.toUpperCase(), b.toUpperCase()];
  if (x === y || x === 'UNKNOWN' || y === 'UNKNOWN') return true;
  return TYPE_GROUPS.some((g) => g.includes(x) && g.includes(y));
}

/**
 * Names that cannot be one thing, whatever the rest of them: two different acronyms ("UID" / "GID", "WPA2" /
 * "WPA"), or names that both hold numbers and not the same ones (versions, models, levels, parts: "IPv4" / "IPv6",
 * "RAID-1" / "RAID-5"). A name with a number against one without ("Exim4" / "Exim") may still be one thing.
 */
export function namesDistinct(a: string, b: string): boolean {
  const [ka, kb] = [nameKey(a), nameKey(b)];
  if (ka === kb) return false;
  if (isAcronym(a) && isAcronym(b)) return true;
  const numbers = (k: string) => (k.match(/\d+/g) ?? []).map((n) => n.replace(/^0+(?=\d)/, '')).join(' ');
  const [na, nb] = [numbers(ka), numbers(kb)];
  return na !== '' && nb !== '' && na !== nb;
}
