import { countTokens } from '../llm/tokens';
import type { ScoredChunk, ScoredEntity, ScoredRelationship, TokenBudget } from './types';
import { entityLine, relationshipLine } from './prompts/context';

/** Room for the `[n] ` reference marker that is added once the reference ids are known. */
const REFERENCE_TOKENS = 4;
/** Room for a chunk's heading line (title, file path, line range). */
const HEADING_TOKENS = 32;

export interface BudgetedContext {
  entities: ScoredEntity[];
  relationships: ScoredRelationship[];
  chunks: ScoredChunk[];
  tokens: { entities: number; relationships: number; chunks: number };
}

/**
 * Keeps each section within its budget and the whole within the total: entities and relationships first
 * (they are short), chunks get what is left of the total. Items are kept in rank order; one that does not
 * fit is passed over and the next ones still tried, so the budget fills up while a lower-ranked item never
 * displaces a higher one.
 */
export function applyTokenBudget(
  entities: readonly ScoredEntity[],
  relationships: readonly ScoredRelationship[],
  chunks: readonly ScoredChunk[],
  budget: TokenBudget,
): BudgetedContext {
  const e = takeWithin(
    entities,
    (x) =>
      cachedTokens(`e\u0000${x.record.id}\u0000${x.record.updated_at}\u0000${x.record.description.length}`, () => entityLine(x.record)) +
      REFERENCE_TOKENS,
    Math.min(budget.entities, budget.total),
  );
  const r = takeWithin(
    relationships,
    (x) =>
      cachedTokens(`r\u0000${x.record.id}\u0000${x.record.updated_at}\u0000${x.record.description.length}`, () =>
        relationshipLine(x.record),
      ),
    Math.min(budget.relationships, budget.total - e.used),
  );
  const c = takeWithin(chunks, chunkTokens, Math.min(budget.chunks, budget.total - e.used - r.used));
  return {
    entities: e.kept,
    relationships: r.kept,
    chunks: c.kept,
    tokens: { entities: e.used, relationships: r.used, chunks: c.used },
  };
}

function takeWithin<T>(items: readonly T[], cost: (item: T) => number, budget: number): { kept: T[]; used: number } {
  const kept: T[] = [];
  let used = 0;
  for (const item of items) {
    const tokens = cost(item);
    if (used + tokens > budget) continue;
    used += tokens;
    kept.push(item);
  }
  return { kept, used };
}

/** Chunks carry their token count from ingestion, so their text is not tokenised again here. */
function chunkTokens(chunk: ScoredChunk): number {
  const body = chunk.record.tokens > 0 ? chunk.record.tokens : countTokens(chunk.record.content);
  return body + HEADING_TOKENS + REFERENCE_TOKENS;
}

/**
 * Entity, relationship and community lines recur across queries; counting them once saves most of the tokenising. Keyed
 * by the record's id and version (a line follows from its record), so a key costs a few bytes whatever the
 * description's length and the cache can hold every record of a large workspace. Bounded: the oldest entries
 * go first.
 */
const tokenCache = new Map<string, number>();
const TOKEN_CACHE_SIZE = 200_000;

export function cachedTokens(key: string, line: () => string): number {
  const hit = tokenCache.get(key);
  if (hit !== undefined) return hit;
  const tokens = countTokens(line());
  if (tokenCache.size >= TOKEN_CACHE_SIZE) tokenCache.delete(tokenCache.keys().next().value as string);
  tokenCache.set(key, tokens);
  return tokens;
}
