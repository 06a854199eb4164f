import { RepetitionGuard, endsInLoop } from '../../src/llm/repetition';

/** The repetition guard: a loop is told from long output that merely repeats a format. */

const records = (n: number) =>
  Array.from({ length: n }, (_, i) => `entity<|>Person ${i}<|>PERSON<|>Person ${i} works at Company ${i % 7}.##\n`).join('');

describe('the repetition guard', () => {
  it('does not stop long output whose records differ, though they share a format', () => {
    expect(endsInLoop(records(200))).toBe(false);
    const guard = new RepetitionGuard();
    expect([...records(200)].some((c) => guard.push(c))).toBe(false);
  });

  it('does not stop a word said a few times', () => {
    expect(endsInLoop('This is very very very very good.')).toBe(false);
  });

  it('stops a block written again and again, within its first turns', () => {
    const guard = new RepetitionGuard();
    const loop = 'Marie Curie was born in Warsaw, Poland in 1867.\n\n';
    guard.push(records(3));
    let turns = 0;
    while (!guard.push(loop)) {
      turns++;
      if (turns > 100) break;
    }
    expect(turns).toBeLessThan(12);
  });

  it('stops a single token repeated', () => {
    expect(endsInLoop('Answer: ' + 'ha'.repeat(300))).toBe(true);
  });
});
