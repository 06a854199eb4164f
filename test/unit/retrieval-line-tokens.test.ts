import { countTokens } from '../../src/llm/tokens';
import { LineTokens } from '../../src/retrieval/budget';

describe('LineTokens', () => {
  const counting = () => {
    const made: string[] = [];
    return { made, line: (text: string) => () => (made.push(text), text) };
  };

  it('counts a record line once per version, and again when the record changes', () => {
    const tokens = new LineTokens();
    const { made, line } = counting();
    expect(tokens.of('acme', '2024-01-01', 11, line('Acme: a lab'))).toBe(countTokens('Acme: a lab'));
    expect(tokens.of('acme', '2024-01-01', 11, line('Acme: a lab'))).toBe(countTokens('Acme: a lab'));
    expect(made).toEqual(['Acme: a lab']);
    // A newer version, then the same version with a description of another length: both counted anew.
    expect(tokens.of('acme', '2024-02-01', 11, line('Acme: a big lab'))).toBe(countTokens('Acme: a big lab'));
    expect(tokens.of('acme', '2024-02-01', 30, line('Acme: a lab in a city of labs'))).toBe(countTokens('Acme: a lab in a city of labs'));
    expect(made).toHaveLength(3);
  });

  it('holds at most its size, forgetting the oldest record first', () => {
    const tokens = new LineTokens(2);
    const { made, line } = counting();
    tokens.of('a', 'v1', 1, line('a'));
    tokens.of('b', 'v1', 1, line('b'));
    tokens.of('c', 'v1', 1, line('c'));
    tokens.of('b', 'v1', 1, line('b'));
    tokens.of('a', 'v1', 1, line('a'));
    expect(made).toEqual(['a', 'b', 'c', 'a']);
  });
});
