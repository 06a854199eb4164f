/** A counter's value and when its window ends (ms since the epoch). */
export interface WindowCount {
  count: number;
  resetAt: number;
}

/**
 * Counters that run out a window after their first count (failed logins): in Redis when it is configured, so that
 * every instance counts into the same ones, else in this process.
 */
export interface WindowCounters {
  /** Each key's count, or null when it has none in a window that is still open. */
  read(keys: string[], now: number): Promise<Array<WindowCount | null>>;
  /** Counts one for each key; a key without an open window starts one of `windowMs`. Answers the new values. */
  increment(keys: string[], windowMs: number, now: number): Promise<WindowCount[]>;
  delete(keys: string[]): Promise<void>;
}
