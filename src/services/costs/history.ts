import { DAY_MS, type UsageRecord } from '../../domain/costs';
import { InvalidInputError } from '../../domain/errors';
import { roundUsd } from './pricing';

export type Granularity = 'hour' | 'day' | 'week';

const STEP_MS: Record<Granularity, number> = { hour: 3_600_000, day: DAY_MS, week: 7 * DAY_MS };
/** More buckets than this in one answer is refused (e.g. hours over years). */
export const MAX_BUCKETS = 5_000;

export interface HistoryBucket {
  timestamp: string;
  cost_usd: number;
  input_tokens: number;
  output_tokens: number;
  calls: number;
}

/** The start (UTC) of the bucket holding `at`: the hour, the day, or the week from Monday. */
export function bucketStart(granularity: Granularity, at: Date): Date {
  if (granularity === 'hour') return new Date(Math.floor(at.getTime() / STEP_MS.hour) * STEP_MS.hour);
  const day = new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
  if (granularity === 'day') return day;
  return new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * DAY_MS);
}

/** The buckets from the one holding `start` to the one holding `end`, empty ones included. */
export function bucketRange(granularity: Granularity, start: Date, end: Date): Date[] {
  if (end.getTime() < start.getTime()) {
    throw InvalidInputError.field('end_date', 'must not be before start_date');
  }
  const first = bucketStart(granularity, start).getTime();
  const count = Math.floor((bucketStart(granularity, end).getTime() - first) / STEP_MS[granularity]) + 1;
  if (count > MAX_BUCKETS) {
    throw InvalidInputError.field(
      'granularity',
      `the range holds ${count} ${granularity} buckets; at most ${MAX_BUCKETS} fit in one answer`,
    );
  }
  return Array.from({ length: count }, (_, i) => new Date(first + i * STEP_MS[granularity]));
}

export function bucketize(granularity: Granularity, starts: Date[], records: UsageRecord[]): HistoryBucket[] {
  const buckets = starts.map((s) => ({ timestamp: s.toISOString(), cost_usd: 0, input_tokens: 0, output_tokens: 0, calls: 0 }));
  const first = starts[0]?.getTime() ?? 0;
  for (const r of records) {
    const index = Math.floor((bucketStart(granularity, new Date(r.created_at)).getTime() - first) / STEP_MS[granularity]);
    const bucket = buckets[index];
    if (!bucket) continue;
    bucket.cost_usd += r.cost_usd;
    bucket.input_tokens += r.input_tokens;
    bucket.output_tokens += r.output_tokens;
    bucket.calls += 1;
  }
  for (const b of buckets) b.cost_usd = roundUsd(b.cost_usd);
  return buckets;
}
