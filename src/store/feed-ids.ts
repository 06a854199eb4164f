/** Change-feed ids are `<milliseconds>-<sequence>`, as Redis stream ids: ordered by both numbers. */
export const FEED_START = '0-0';

const FEED_ID = /^(\d{1,15})-(\d{1,15})$/;

export function isFeedId(text: string): boolean {
  return FEED_ID.test(text);
}

export function compareFeedIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number);
  const [bm, bs] = b.split('-').map(Number);
  return am !== bm ? am - bm : as - bs;
}
