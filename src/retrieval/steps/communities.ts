import type { CommunityRecord } from '../../domain/communities';
import type { Scope } from '../../domain/types';
import { cosine } from '../../domain/vector';
import type { Stores } from '../../store/ports';
import { LineTokens } from '../budget';
import { communityBlock } from '../prompts/context';
import type { Keywords, ScoredCommunity, ScoredRelationship } from '../types';

/** Reports kept for the context, at most. */
export const MAX_REPORTS = 5;
/** Members of the chosen communities whose relationships are looked at: the most connected ones. */
const MEMBERS_LOOKED_AT = 40;
/** The share of a report's score that comes from keywords found in its title and summary (the rest: cosine). */
const KEYWORD_SHARE = 0.3;

/** The share of the keywords (whole terms, any case) that the report's title or summary contains. */
function keywordMatch(c: CommunityRecord, terms: string[]): number {
  if (terms.length === 0) return 0;
  const text = `${c.title} ${c.summary}`.toLowerCase();
  return terms.filter((t) => text.includes(t)).length / terms.length;
}

/**
 * Community reports by similarity to the high-level keywords (vector) and by the keywords they contain; null
 * when the workspace has no communities (the caller falls back to relationship search).
 */
export async function searchCommunities(
  stores: Stores,
  scope: Scope,
  vector: number[] | null,
  keywords: Keywords,
  minScore: number,
  limit = MAX_REPORTS,
): Promise<ScoredCommunity[] | null> {
  const all = await stores.communities.all(scope);
  if (all.length === 0) return null;
  const terms = [...new Set([...keywords.high, ...keywords.low].map((t) => t.toLowerCase().trim()).filter((t) => t.length > 2))];
  const scored = all.map((record) => {
    const similarity = vector ? cosine(vector, record.embedding) : 0;
    const match = keywordMatch(record, terms);
    return { record, score: (1 - KEYWORD_SHARE) * similarity + KEYWORD_SHARE * match, similarity, match };
  });
  return scored
    .filter((s) => s.similarity >= minScore || s.match > 0)
    .sort((a, b) => b.score - a.score || b.record.rank - a.record.rank || (a.record.id < b.record.id ? -1 : 1))
    .slice(0, limit)
    .map(({ record, score }) => ({ record, score }));
}

/**
 * The relationships among the most connected members of the chosen communities, scored by their community:
 * with the high-level keywords' vector, those nearest it first (then the heaviest).
 */
export async function relationshipsOfCommunities(
  stores: Stores,
  scope: Scope,
  communities: ScoredCommunity[],
  limit: number,
  vector: number[] | null = null,
): Promise<ScoredRelationship[]> {
  const scoreOf = new Map<string, number>();
  for (const c of communities) for (const id of c.record.member_ids) if (!scoreOf.has(id)) scoreOf.set(id, c.score);
  const members = [...scoreOf.keys()];
  if (members.length === 0) return [];
  const degrees = await stores.graph.degrees(scope, members);
  const best = members
    .sort(
      (a, b) =>
        (scoreOf.get(b) as number) - (scoreOf.get(a) as number) || (degrees.get(b) ?? 0) - (degrees.get(a) ?? 0) || (a < b ? -1 : 1),
    )
    .slice(0, MEMBERS_LOOKED_AT);
  const relationships = await stores.graph.relationshipsAmong(scope, best);
  const near =
    vector && relationships.length
      ? await nearness(
          stores,
          scope,
          vector,
          relationships.map((r) => r.id),
        )
      : new Map();
  return relationships
    .map((record) => ({ record, score: Math.max(scoreOf.get(record.source) ?? 0, scoreOf.get(record.target) ?? 0) }))
    .sort(
      (a, b) =>
        (near.get(b.record.id) ?? -Infinity) - (near.get(a.record.id) ?? -Infinity) ||
        b.score - a.score ||
        b.record.weight - a.record.weight ||
        (a.record.id < b.record.id ? -1 : 1),
    )
    .slice(0, limit);
}

/** Cosine of each relationship's vector to the keywords' (relationships without one are left out). */
async function nearness(stores: Stores, scope: Scope, vector: number[], ids: string[]): Promise<Map<string, number>> {
  const hits = await stores.vectors.search(scope, 'relationship', vector, ids.length, { ids });
  return new Map(hits.map((h) => [h.id, h.score]));
}

/** A report's version: when it was written, and what it summarised. */
const reportTokens = new LineTokens();

/**
 * The reports that fit in `tokens` (best first; one that does not fit is passed over), with the tokens they take:
 * the rest of the context budget goes to entities, relationships and chunks.
 */
export function reportsWithin(communities: ScoredCommunity[], tokens: number): { kept: ScoredCommunity[]; tokens: number } {
  const kept: ScoredCommunity[] = [];
  let used = 0;
  for (const c of communities) {
    const { id, updated_at, content_hash, summary } = c.record;
    const cost = reportTokens.of(id, `${updated_at}\u0000${content_hash}`, summary.length, () => communityBlock(c.record)) + 1;
    if (used + cost > tokens) continue;
    kept.push(c);
    used += cost;
  }
  return { kept, tokens: used };
}
