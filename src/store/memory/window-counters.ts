import type { WindowCount, WindowCounters } from '../counter-port';

/** Counters kept past this many are swept of those whose window has ended. */
const SWEEP_ABOVE = 100_000;

/** Window counters in this process (embedded mode, or no Redis configured). */
export class MemoryWindowCounters implements WindowCounters {
  private readonly counts = new Map<string, WindowCount>();

  private current(key: string, now: number): WindowCount | null {
    const entry = this.counts.get(key);
    if (entry && entry.resetAt <= now) {
      this.counts.delete(key);
      return null;
    }
    return entry ?? null;
  }

  async read(keys: string[], now: number): Promise<Array<WindowCount | null>> {
    return keys.map((key) => {
      const entry = this.current(key, now);
      return entry && { ...entry };
    });
  }

  async increment(keys: string[], windowMs: number, now: number): Promise<WindowCount[]> {
    const values = keys.map((key) => {
      const entry = this.current(key, now) ?? { count: 0, resetAt: now + windowMs };
      entry.count += 1;
      this.counts.set(key, entry);
      return { ...entry };
    });
    if (this.counts.size > SWEEP_ABOVE) for (const key of this.counts.keys()) this.current(key, now);
    return values;
  }

  async delete(keys: string[]): Promise<void> {
    for (const key of keys) this.counts.delete(key);
  }
}
