import type { Scope } from '../domain/types';
import type { KeyValues, KeyValueStore } from '../store/ports';

/** What the LLM extracted from one chunk, as ingestion caches it and lineage reads it. */

export interface ParsedEntity {
  /** Normalised id (normalizeEntityId). */
  id: string;
  name: string;
  type: string;
  description: string;
}

export interface ParsedRelation {
  /** relationshipId of the pair: source and target are the ordered entity ids. */
  id: string;
  source: string;
  target: string;
  source_name: string;
  target_name: string;
  keywords: string[];
  relation_type: string;
  description: string;
}

/** Why records were dropped: unreadable, a self-loop, a name the chunk does not hold, a format placeholder, the prompt's example. */
export type DropReason = 'malformed' | 'self_loop' | 'not_in_text' | 'placeholder' | 'example';
export type DropCounts = Partial<Record<DropReason, number>>;

/**
 * How a chunk's extraction went (docs/api.md §4.1, "Extraction health"): records read and kept, dropped by reason,
 * whether the model stopped by itself (`stop`) or was cut at the output limit (`length`) in any pass, or timed out
 * (`timeout`, the chunk failed), whether every pass ended with the completion marker, and whether a pass repeated
 * itself (a model looping until cut).
 */
export interface ExtractionHealth {
  records_parsed: number;
  records_kept: number;
  dropped: DropCounts;
  finish_reason: 'stop' | 'length' | 'timeout';
  completion_marker: boolean;
  looped: boolean;
  passes: number;
  /** Passes whose output was empty (after reasoning was taken out). */
  empty_outputs: number;
  prompt_version: number;
  /** The id of the file that replaced the prompt's instructions (src/prompts/overrides.ts), if one did. */
  prompt_override?: string | null;
}

/**
 * Extraction outputs cached per chunk (KV namespace `extraction`, key = chunk id). An entry is reused when
 * the chunk text, the model and the prompt version are the same, so reprocessing and retrying do not pay
 * twice; merges and deletion rebuilds read the entries of every source chunk whatever model wrote them.
 */

export const EXTRACTION_NAMESPACE = 'extraction';

export interface CachedExtraction {
  content_hash: string;
  llm_provider: string;
  llm_model: string;
  prompt_version: number;
  /** The prompt override's id when one was used; absent otherwise. */
  prompt_override?: string;
  /** LLM passes that made it (the first and the gleaning ones); their answers are in the LLM response cache. */
  passes?: number;
  /** Entries written before `passes` kept the answers themselves: a second copy of the response cache's. */
  raw_outputs?: string[];
  entities: ParsedEntity[];
  relations: ParsedRelation[];
  dropped_records: number;
  /** Absent on entries written before extraction health was recorded. */
  health?: ExtractionHealth;
  created_at: string;
}

export function readExtractions(kv: KeyValues, scope: Scope, chunkIds: string[]): Promise<Map<string, CachedExtraction>> {
  return chunkIds.length ? kv.getMany<CachedExtraction>(scope, EXTRACTION_NAMESPACE, chunkIds) : Promise.resolve(new Map());
}

export function deleteExtractions(kv: KeyValueStore, scope: Scope, chunkIds: string[]): Promise<void> {
  return chunkIds.length ? kv.delete(scope, EXTRACTION_NAMESPACE, chunkIds) : Promise.resolve();
}
