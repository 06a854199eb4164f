import { initialsOf, isAcronym, nameKey, nameWords, typesCompatible } from '../../domain/entity-names';
import { parseResolutionPairs, type ResolutionSubject } from '../../prompts/entity-resolution';

/**
 * The mock provider's answer to an entity-resolution prompt, a line `<n>: YES` or `<n>: NO` per pair, by fixed
 * rules: the same thing when the normalised names are equal, one is the acronym or the initialled form of the
 * other, one is the other with a qualifier ("Tesla" / "Tesla Motors", "Paris" / "Paris, France"), or they differ by
 * a typo or two; never across types. Each pair is judged alone: its verdict does not depend on the others asked.
 */
export function judgeSameEntity(text: string): string {
  const pairs = parseResolutionPairs(text);
  if (pairs.length === 0) return 'The entities could not be read.';
  return pairs.map(([a, b], i) => `${i + 1}: ${same(a, b) ? 'YES' : 'NO'}`).join('\n');
}

function same(a: ResolutionSubject, b: ResolutionSubject): boolean {
  if (!typesCompatible(a.type, b.type)) return false;
  const [ka, kb] = [nameKey(a.name), nameKey(b.name)];
  if (!ka || !kb) return false;
  if (ka === kb) return true;
  const compact = (k: string) => k.replace(/ /g, '');
  if ((isAcronym(a.name) && initialsOf(b.name) === compact(ka)) || (isAcronym(b.name) && initialsOf(a.name) === compact(kb))) return true;
  const [wa, wb] = [nameWords(a.name), nameWords(b.name)];
  if (initialled(wa, wb)) return true;
  // A qualifier ("Tesla" / "Tesla Motors") only between entities of one known kind: "Paris" the city is not "Paris Hilton".
  const known = a.type.toUpperCase() !== 'UNKNOWN' && b.type.toUpperCase() !== 'UNKNOWN';
  const [short, long] = wa.length <= wb.length ? [wa, wb] : [wb, wa];
  if (known && short.length < long.length && short.join(' ') === long.slice(0, short.length).join(' ') && short.join('').length >= 4)
    return true;
  return Math.min(ka.length, kb.length) >= 6 && editDistance(ka, kb) <= 2;
}

/** "j smith" and "john smith": the same last word, the others equal or one an initial of the other. */
function initialled(a: string[], b: string[]): boolean {
  if (a.length < 2 || a.length !== b.length || a[a.length - 1] !== b[b.length - 1]) return false;
  return a.slice(0, -1).every((x, i) => x === b[i] || (x.length === 1 && b[i].startsWith(x)) || (b[i].length === 1 && x.startsWith(b[i])));
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length];
}
