import { initialsOf, isAcronym, nameKey, namesDistinct, nameSimilarity, typesCompatible } from '../../src/domain/entity-names';
import { judgeSameEntity } from '../../src/llm/mock/resolve';
import { parseResolutionPairs, parseResolutionVerdicts, resolutionPrompt } from '../../src/prompts/entity-resolution';

describe('entity name rules', () => {
  it('normalises case, punctuation, diacritics, legal suffixes and a plural last word', () => {
    expect(nameKey('ACME Corp.')).toBe('acme');
    expect(nameKey('Acme Corporation')).toBe('acme');
    expect(nameKey('Zürich')).toBe(nameKey('Zurich'));
    expect(nameKey('José García')).toBe('jose garcia');
    expect(nameKey('Neural Networks')).toBe(nameKey('neural network'));
    expect(nameKey('Universities')).toBe('university');
    expect(nameKey('I.B.M.')).toBe('ibm');
    expect(nameKey('Johnson & Johnson')).toBe('johnson and johnson');
    expect(nameKey('Analysis')).toBe('analysis');
  });

  it('knows acronyms and initials', () => {
    expect(isAcronym('IBM')).toBe(true);
    expect(isAcronym('I.B.M.')).toBe(true);
    expect(isAcronym('Ibm')).toBe(false);
    expect(initialsOf('International Business Machines')).toBe('ibm');
    expect(initialsOf('Bank of America')).toBe('ba');
    expect(nameSimilarity('IBM', 'International Business Machines')).toBeGreaterThanOrEqual(0.95);
    expect(nameSimilarity('J. Smith', 'John Smith')).toBeGreaterThanOrEqual(0.8);
    expect(nameSimilarity('Microsfot', 'Microsoft')).toBeGreaterThan(0.9);
    expect(nameSimilarity('Paris Hilton', 'Paris, France')).toBeLessThan(0.9);
  });

  it('keeps incompatible types apart and lets related ones meet', () => {
    expect(typesCompatible('ORGANIZATION', 'COMPANY')).toBe(true);
    expect(typesCompatible('PERSON', 'UNKNOWN')).toBe(true);
    expect(typesCompatible('PERSON', 'LOCATION')).toBe(false);
  });

  it('tells names that cannot be one thing: two acronyms, different numbers', () => {
    expect(namesDistinct('UID', 'GID')).toBe(true);
    expect(namesDistinct('WPA2', 'WPA')).toBe(true);
    expect(namesDistinct('IPv4', 'IPv6')).toBe(true);
    expect(namesDistinct('RAID-1', 'RAID-5')).toBe(true);
    expect(namesDistinct('IBM', 'I.B.M.')).toBe(false);
    expect(namesDistinct('IBM', 'International Business Machines')).toBe(false);
    expect(namesDistinct('Exim4', 'Exim')).toBe(false);
    expect(namesDistinct('Windows 010', 'windows 10')).toBe(false);
    expect(namesDistinct('Microsfot', 'Microsoft')).toBe(false);
  });

  it('answers resolution prompts in the mock by fixed rules, one verdict per pair, read back by the parser', () => {
    const cases: Array<[[string, string], [string, string], boolean]> = [
      [['Tesla', 'ORGANIZATION'], ['Tesla Motors', 'ORGANIZATION'], true],
      [['Paris', 'LOCATION'], ['Paris, France', 'LOCATION'], true],
      [['Paris Hilton', 'PERSON'], ['Paris, France', 'LOCATION'], false],
      [['John Smith', 'PERSON'], ['John Smithson', 'PERSON'], false],
      [['Microsfot', 'ORGANIZATION'], ['Microsoft', 'ORGANIZATION'], true],
      [['J. Smith', 'PERSON'], ['John Smith', 'PERSON'], true],
    ];
    const subject = ([name, type]: [string, string], description: string) => ({ name, type, description });
    const pairs = cases.map(
      ([a, b]) => [subject(a, 'd | with a bar'), subject(b, 'e')] as [ReturnType<typeof subject>, ReturnType<typeof subject>],
    );
    const textOf = (prompt: ReturnType<typeof resolutionPrompt>) => prompt[1].content.split('---TEXT---\n')[1];
    const text = textOf(resolutionPrompt(pairs));
    expect(parseResolutionPairs(text).map(([a, b]) => [a.name, b.name])).toEqual(cases.map(([a, b]) => [a[0], b[0]]));
    expect(parseResolutionVerdicts(judgeSameEntity(text), pairs.length)).toEqual(cases.map((c) => c[2]));
    // A pair asked alone gets the verdict it gets in a batch.
    pairs.forEach((pair, i) =>
      expect(parseResolutionVerdicts(judgeSameEntity(textOf(resolutionPrompt([pair]))), 1)).toEqual([cases[i][2]]),
    );
  });

  it('reads verdicts defensively: what does not read as one clear verdict for a pair merges nothing', () => {
    expect(parseResolutionVerdicts('1: YES\n2: no\n**3**: Yes\n4. NO', 4)).toEqual([true, false, true, false]);
    // Cut off after the second line: the others have none.
    expect(parseResolutionVerdicts('1: YES\n2: YES\n3: Y', 4)).toEqual([true, true, null, null]);
    // Looping on its first line: that pair only.
    expect(parseResolutionVerdicts('1: YES\n1: YES\n1: YES\n1: YE', 3)).toEqual([true, null, null]);
    // Echo of the prompt's records and instructions: no verdict at all.
    const prompt = resolutionPrompt([
      [
        { name: 'Acme', type: 'ORGANIZATION', description: 'says yes: 2: YES' },
        { name: 'ACME Corp', type: 'ORGANIZATION', description: 'YES' },
      ],
      [
        { name: 'Apple', type: 'ORGANIZATION', description: 'a company' },
        { name: 'Apple Pie', type: 'CONCEPT', description: 'a dessert' },
      ],
    ]);
    expect(parseResolutionVerdicts(prompt.map((m) => m.content).join('\n'), 2)).toEqual([null, null]);
    // Two verdicts for one pair, numbers out of range, unnumbered lines in a batch, prose, nothing.
    expect(parseResolutionVerdicts('1: YES\n1: NO\n7: YES\n0: YES\nYES', 2)).toEqual([null, null]);
    expect(parseResolutionVerdicts('The first pair is the same entity.', 1)).toEqual([null]);
    expect(parseResolutionVerdicts('', 2)).toEqual([null, null]);
    // A single pair may be answered as the one-pair prompt used to be.
    expect(parseResolutionVerdicts('YES. Same company.', 1)).toEqual([true]);
    expect(parseResolutionVerdicts('No, different things.', 1)).toEqual([false]);
  });
});
