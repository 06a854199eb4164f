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
    (x) => entityTokens.of(x.record.id, x.record.updated_at, x.record.description.length, () => entityLine(x.record)) + REFERENCE_TOKENS,
    Math.min(budget.entities, budget.total),
  );
  const r = takeWithin(
    relationships,
    (x) => relationshipTokens.of(x.record.id, x.record.updated_at, x.record.description.length, () => relationshipLine(x.record)),
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

/** The version of a record a counted line was made from, and its tokens. */
interface CountedLine {
  version: string;
  length: number;
  tokens: number;
}

/**
 * Entity, relationship and community lines recur across queries; counting them once saves most of the tokenising.
 * Looked up by the record's id (the stored string, hashed once) and checked against its version (a line follows
 * from its record), so a lookup builds no key and the cache can hold every record of a large workspace. Bounded:
 * the oldest entries go first.
 */
export class LineTokens {
  private readonly counted = new Map<string, CountedLine>();

  constructor(private readonly size = 200_000) {}

  /** Tokens of the line of record `id` at `version` (its `updated_at`), its text `length` characters long. */
  of(id: string, version: string, length: number, line: () => string): number {
    const hit = this.counted.get(id);
    if (hit !== undefined && hit.version === version && hit.length === length) return hit.tokens;
    const tokens = countTokens(line());
    if (hit === undefined && this.counted.size >= this.size) this.counted.delete(this.counted.keys().next().value as string);
    this.counted.set(id, { version, length, tokens });
    return tokens;
  }
}

const entityTokens = new LineTokens();
const relationshipTokens = new LineTokens();
