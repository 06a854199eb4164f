import { initialsOf, isAcronym, nameKey, nameSimilarity, typesCompatible } from '../../src/domain/entity-names';
import { judgeSameEntity } from '../../src/llm/mock/resolve';
import { parseResolutionAnswer, parseResolutionPair, resolutionPrompt } from '../../src/prompts/entity-resolution';

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

  it('answers resolution prompts in the mock by fixed rules, read back by the parser', () => {
    const ask = (a: [string, string], b: [string, string]) => {
      const prompt = resolutionPrompt({ name: a[0], type: a[1], description: 'd' }, { name: b[0], type: b[1], description: 'e' });
      const text = prompt[1].content.split('---TEXT---\n')[1];
      expect(parseResolutionPair(text)?.[0].name).toBe(a[0]);
      return parseResolutionAnswer(judgeSameEntity(text));
    };
    expect(ask(['Tesla', 'ORGANIZATION'], ['Tesla Motors', 'ORGANIZATION'])).toBe(true);
    expect(ask(['Paris', 'LOCATION'], ['Paris, France', 'LOCATION'])).toBe(true);
    expect(ask(['Paris Hilton', 'PERSON'], ['Paris, France', 'LOCATION'])).toBe(false);
    expect(ask(['John Smith', 'PERSON'], ['John Smithson', 'PERSON'])).toBe(false);
    expect(ask(['Microsfot', 'ORGANIZATION'], ['Microsoft', 'ORGANIZATION'])).toBe(true);
    expect(ask(['J. Smith', 'PERSON'], ['John Smith', 'PERSON'])).toBe(true);
  });
});
