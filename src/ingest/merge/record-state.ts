import { createHash } from 'node:crypto';
import { memoText } from '../../domain/text-memo';
import type { EntityRecord, RelationshipRecord, Scope } from '../../domain/types';
import type { KeyValues } from '../../store/ports';

/**
 * What a record's fields are derived from beyond the record itself (KV namespace `merge_state`, key
 * `entity:<id>` or `relationship:<id>`): the votes for its type and name over its source chunks, and the
 * LLM summary heading its description with the fragments that summary covers and those merged since. It
 * lets a new document be merged from the record and its own chunks alone; it is rebuilt with the record
 * from the cached extractions of the sources whenever sources go away.
 */

export const MERGE_STATE_NAMESPACE = 'merge_state';

/** [value, votes] in the order values were first seen, so ties go to the earliest. */
export type Tally = Array<[string, number]>;

export interface RecordState {
  types: Tally;
  names: Tally;
  /** The description is made of relationship descriptions: no source described the entity itself. */
  from_relations: boolean;
  summary: SummaryState | null;
  /** recordFingerprint of the record as last written with this state; it differs once an analyst changed the record. */
  written?: string;
  /** The description derived from the sources, kept when an analyst's override replaced it on the record. */
  description?: string;
}

/** An LLM summary heading a description, and the fragments it does not cover yet. */
export interface SummaryState {
  text: string;
  /** Keys of the fragments the summary stands for. */
  covered: string[];
  /** Keys of the fragments merged since, oldest first (the description shows the newest that fit). */
  newer?: string[];
}

export const entityKey = (id: string) => `entity:${id}`;
export const relationshipKey = (id: string) => `relationship:${id}`;

export function readStates(kv: KeyValues, scope: Scope, keys: string[]): Promise<Map<string, RecordState>> {
  return keys.length ? kv.getMany<RecordState>(scope, MERGE_STATE_NAMESPACE, keys) : Promise.resolve(new Map());
}

export async function writeStates(kv: KeyValues, scope: Scope, states: Array<[string, RecordState]>): Promise<void> {
  await kv.setMany(scope, MERGE_STATE_NAMESPACE, states);
}

export function deleteStates(kv: KeyValues, scope: Scope, keys: string[]): Promise<void> {
  return keys.length ? kv.delete(scope, MERGE_STATE_NAMESPACE, keys) : Promise.resolve();
}

export function addVotes(tally: Tally, values: string[]): Tally {
  const out: Tally = tally.map(([v, n]) => [v, n]);
  for (const value of values) {
    const entry = out.find(([v]) => v === value);
    if (entry) entry[1]++;
    else out.push([value, 1]);
  }
  return out;
}

/** The value with most votes; ties go to the one seen first. */
export function topVote(tally: Tally): string | undefined {
  let best: [string, number] | undefined;
  for (const entry of tally) if (!best || entry[1] > best[1]) best = entry;
  return best?.[0];
}

/**
 * Identity of a description fragment (case-insensitive). Remembered for the fragments seen last: each merge of
 * a record asks again for every fragment its description shows, and a record many documents name shows hundreds.
 */
export const fragmentKey = memoText(
  (fragment) => createHash('sha256').update(fragment.toLowerCase()).digest('base64url').slice(0, 16),
  1_000_000,
);

/** The derived fields of a record, in a fixed order: whatever store returned the record, the same content gives the same value. */
export function recordFingerprint(record: EntityRecord | RelationshipRecord): string {
  const fields =
    'entity_type' in record
      ? [record.name, record.entity_type, record.description, record.source_chunk_ids]
      : [record.source, record.target, record.relation_type, record.keywords, record.description, record.weight, record.source_chunk_ids];
  return createHash('sha256').update(JSON.stringify(fields)).digest('base64url').slice(0, 22);
}
