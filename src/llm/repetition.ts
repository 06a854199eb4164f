/**
 * Tells a looping generation from a long one: the output ends with one block (a word, a line, a few records)
 * written again and again. Small models at temperature 0 fall into such loops and would write until their output
 * cap; the stream is stopped at the loop's first turns instead.
 */

export interface RepetitionOptions {
  /** Longest repeated block looked for, in characters. */
  maxPeriod?: number;
  /** Turns of the block that make a loop. */
  minRepeats?: number;
  /** Characters the repeated run covers at least (a word said four times is not a loop; forty times is). */
  minSpan?: number;
}

const DEFAULTS: Required<RepetitionOptions> = { maxPeriod: 400, minRepeats: 4, minSpan: 320 };
/** New characters between two looks. */
const CHECK_EVERY = 32;

export class RepetitionGuard {
  private text = '';
  private sinceCheck = 0;
  private readonly o: Required<RepetitionOptions>;

  constructor(options: RepetitionOptions = {}) {
    this.o = { ...DEFAULTS, ...options };
  }

  /** Adds a fragment; true once the output ends in a loop. */
  push(fragment: string): boolean {
    this.text += fragment;
    this.sinceCheck += fragment.length;
    const keep = this.o.maxPeriod * this.o.minRepeats + this.o.minSpan;
    if (this.text.length > 2 * keep) this.text = this.text.slice(-keep);
    if (this.sinceCheck < CHECK_EVERY) return false;
    this.sinceCheck = 0;
    return endsInLoop(this.text, this.o);
  }
}

/** Whether `text` ends with a block of up to `maxPeriod` characters repeated back to back over `minSpan`. */
export function endsInLoop(text: string, options: RepetitionOptions = {}): boolean {
  const { maxPeriod, minRepeats, minSpan } = { ...DEFAULTS, ...options };
  const end = text.length;
  for (let period = 1; period <= maxPeriod && period * 2 <= end; period++) {
    const needed = Math.max(minRepeats * period, minSpan);
    if (needed > end) continue;
    // The run repeats with this period while each character equals the one a period earlier.
    let run = period;
    while (run < needed && text.charCodeAt(end - 1 - run) === text.charCodeAt(end - 1 - run + period)) run++;
    if (run >= needed) return true;
  }
  return false;
}
