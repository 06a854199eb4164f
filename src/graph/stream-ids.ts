import { isFeedId } from '../store/feed-ids';

/**
 * Event ids of the graph stream: a change is `<feed id>.<change index>`, a position (done, heartbeat, resumed) is
 * `<feed id>`, and snapshot events are `<feed id>.snapshot` (a client cut off inside a snapshot gets a new one).
 */
export interface ResumePoint {
  /** The feed id to replay after. */
  after: string;
  /** Inside this entry, changes up to `index` were already sent. */
  within?: { id: string; index: number };
}

export function snapshotId(cursor: string): string {
  return `${cursor}.snapshot`;
}

/** The feed id just before `id` (so that a read after it starts with `id` itself). */
export function previousFeedId(id: string): string {
  const [ms, seq] = id.split('-').map(Number);
  if (seq > 0) return `${ms}-${seq - 1}`;
  return ms > 0 ? `${ms - 1}-999999999999999` : '0-0';
}

/** Where to resume after an event id; null for a snapshot id (start again), undefined when it is not one of ours. */
export function resumePoint(lastEventId: string): ResumePoint | null | undefined {
  const [feedId, part, ...rest] = lastEventId.trim().split('.');
  if (!isFeedId(feedId) || rest.length) return undefined;
  if (part === undefined) return { after: feedId };
  if (part === 'snapshot') return null;
  if (!/^\d{1,6}$/.test(part)) return undefined;
  return { after: previousFeedId(feedId), within: { id: feedId, index: Number(part) } };
}
