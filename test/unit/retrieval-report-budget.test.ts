import type { CommunityRecord } from '../../src/domain/communities';
import { countTokens } from '../../src/llm/tokens';
import { communityBlock } from '../../src/retrieval/prompts/context';
import { reportsWithin } from '../../src/retrieval/steps/communities';

function report(id: string, summary: string, updated_at = '2026-01-01T00:00:00.000Z'): CommunityRecord {
  return {
    id,
    level: 0,
    parent_id: null,
    member_ids: ['a', 'b'],
    size: 2,
    content_hash: `hash-${id}`,
    title: `Community ${id}`,
    summary,
    findings: [{ summary: 'A finding', explanation: 'why it holds' }],
    rank: 5,
    embedding: [],
    report_model: 'mock',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at,
  };
}

const cost = (c: CommunityRecord) => countTokens(communityBlock(c)) + 1;

describe('community reports within a token budget', () => {
  it('takes reports best first at the tokens their blocks count, passing over one that does not fit', () => {
    const small = report('c1', 'Short.');
    const large = report('c2', 'A much longer summary of many words. '.repeat(40));
    const other = report('c3', 'Another short one.');
    const budget = cost(small) + cost(other) + 2;
    const picked = reportsWithin(
      [small, large, other].map((record, i) => ({ record, score: 1 - i / 10 })),
      budget,
    );
    expect(picked.kept.map((c) => c.record.id)).toEqual(['c1', 'c3']);
    expect(picked.tokens).toBe(cost(small) + cost(other));
  });

  it('counts a report again once it is rewritten', () => {
    const before = report('c4', 'Short.');
    expect(reportsWithin([{ record: before, score: 1 }], 1000).tokens).toBe(cost(before));
    const after = report('c4', 'A rewritten summary that is a good deal longer than the first one was.', '2026-02-01T00:00:00.000Z');
    expect(reportsWithin([{ record: after, score: 1 }], 1000).tokens).toBe(cost(after));
  });
});
