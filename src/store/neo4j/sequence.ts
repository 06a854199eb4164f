let last = 0;

/**
 * Increasing numbers (microsecond-scaled wall clock, bumped on ties) that order records created at the same
 * instant in the order this process wrote them.
 */
export function nextSequence(): number {
  last = Math.max(last + 1, Date.now() * 1000);
  return last;
}
