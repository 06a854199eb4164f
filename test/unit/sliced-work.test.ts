import { TimeSlicer } from '../../src/domain/turns';
import { distinctFragments } from '../../src/ingest/extract/describe';
import { distinctInSlices } from '../../src/ingest/merge/evidence';
import { countTokens, countTokensInSlices } from '../../src/llm/tokens';

/** A slicer whose stretch is always used up: every tick gives way, the most interrupted a walk can be. */
const everyTick = () => new TimeSlicer(0);

describe('work done in stretches', () => {
  it('counts the tokens of a long text as counting it at once does, however often it gives way', async () => {
    const text = `${'Alice Johnson met Bob Smith in Berlin. '.repeat(2000)}naïve café 東京 🙂 1234567 \n\n  trailing   `;
    const slicer = everyTick();
    let pauses = 0;
    const pause = slicer.pause.bind(slicer);
    slicer.pause = () => {
      pauses++;
      return pause();
    };
    expect(await countTokensInSlices(text, slicer)).toBe(countTokens(text));
    expect(pauses).toBeGreaterThan(100);
    expect(await countTokensInSlices('')).toBe(0);
  });

  it('keeps the same distinct fragments when folding them a batch at a time', async () => {
    const fragments = Array.from({ length: 500 }, (_, i) => (i % 3 === 0 ? `Fragment ${i % 40}.` : `  fragment   ${i % 40}!! `));
    fragments.push('', '   ', 'A last one');
    expect(await distinctInSlices(fragments, everyTick())).toEqual(distinctFragments(fragments));
  });
});
