import { countTokens, tokenLayout } from '../llm/tokens';
import type { ScoredChunk, ScoredEntity, ScoredRelationship, TokenBudget } from './types';
import { chunkHeading, entityLine, relationshipLine } from './prompts/context';

/** Room for the `[n] ` reference marker that is added once the reference ids are known. */
const REFERENCE_TOKENS = 4;
/** Room for a chunk's heading line (title, file path, line range). */
const HEADING_TOKENS = 32;
/** A cut chunk shorter than this is not worth its heading. */
const MIN_CUT_TOKENS = 64;

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
 * displaces a higher one. With `cutLastChunk`, the best chunk passed over is then cut to the tokens left and
 * kept last, so the chunks fill their budget; their headings are then counted as the context writes them (a file
 * path can make one longer than the room kept for it) rather than estimated, so that they fill it without going over.
 */
export function applyTokenBudget(
  entities: readonly ScoredEntity[],
  relationships: readonly ScoredRelationship[],
  chunks: readonly ScoredChunk[],
  budget: TokenBudget,
  cutLastChunk = false,
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
  const room = Math.min(budget.chunks, budget.total - e.used - r.used);
  const c = takeWithin(chunks, cutLastChunk ? writtenTokens : chunkTokens, room);
  const passed = cutLastChunk ? chunks.find((x) => !c.kept.includes(x)) : undefined;
  const cut = passed && cutChunk(passed, room - c.used - headingTokens(passed) - REFERENCE_TOKENS);
  if (cut) {
    c.kept.push(cut);
    c.used += writtenTokens(cut);
  }
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

/**
 * The chunk's text up to `tokens` tokens, ended at the last white space so that no word is split; its line and
 * character range narrowed to what is kept. Undefined when fewer than MIN_CUT_TOKENS would be left.
 */
function cutChunk(chunk: ScoredChunk, tokens: number): ScoredChunk | undefined {
  if (tokens < MIN_CUT_TOKENS) return undefined;
  const { record } = chunk;
  const layout = tokenLayout(record.content);
  if (layout.count <= tokens) return undefined;
  const head = record.content.slice(0, layout.starts[tokens]);
  const space = head.search(/\s\S*$/);
  const content = (space > 0 ? head.slice(0, space) : head).trimEnd();
  const lines = content.split('\n').length - 1;
  return {
    ...chunk,
    record: {
      ...record,
      content,
      tokens: countTokens(content),
      char_end: record.char_start + content.length,
      end_line: Math.min(record.end_line, record.start_line + lines),
    },
  };
}

/** Chunks carry their token count from ingestion, so their text is not tokenised again here. */
function chunkTokens(chunk: ScoredChunk): number {
  return bodyTokens(chunk) + HEADING_TOKENS + REFERENCE_TOKENS;
}

function bodyTokens(chunk: ScoredChunk): number {
  return chunk.record.tokens > 0 ? chunk.record.tokens : countTokens(chunk.record.content);
}

/** A chunk's tokens in the context: its heading as written when its document's origin is known. */
function writtenTokens(chunk: ScoredChunk): number {
  return bodyTokens(chunk) + headingTokens(chunk) + REFERENCE_TOKENS;
}

function headingTokens(chunk: ScoredChunk): number {
  return chunk.origin ? countTokens(chunkHeading(chunk.record, chunk.origin)) : HEADING_TOKENS;
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
