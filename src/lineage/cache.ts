import type { Scope } from '../domain/types';
import {
  type CachedExtraction,
  EXTRACTION_NAMESPACE,
  type ExtractionHealth,
  type ParsedEntity,
  readExtractions,
} from '../records/extractions';
import type { KeyValueStore } from '../store/ports';

/** What lineage reads from the per-chunk extraction cache that ingestion writes. */

export { type CachedExtraction, EXTRACTION_NAMESPACE };

export interface ExtractionMetadata {
  llm_model: string | null;
  created_at: string | null;
  entity_count: number;
  relationship_count: number;
  /** LLM passes in total, and how many of them were gleaning passes. */
  extraction_passes: number;
  gleaning_passes: number;
  /** How the extraction went (records kept and dropped by reason, finish reason, ...); null for entries written before it was recorded. */
  health: ExtractionHealth | null;
}

export function extractionsOf(kv: KeyValueStore, scope: Scope, chunkIds: string[]): Promise<Map<string, CachedExtraction>> {
  return readExtractions(kv, scope, chunkIds);
}

export function extractionMetadata(cached: CachedExtraction | undefined | null): ExtractionMetadata | null {
  if (!cached) return null;
  const passes = cached.passes ?? cached.raw_outputs?.length ?? 1;
  return {
    llm_model: cached.llm_model ?? null,
    created_at: cached.created_at ?? null,
    entity_count: cached.entities.length,
    relationship_count: cached.relations.length,
    extraction_passes: passes,
    gleaning_passes: Math.max(0, passes - 1),
    health: cached.health ?? null,
  };
}

/** The cached entity records naming one of `ids` (the entity's id, or ids it absorbed in merges). */
export function extractedMentions(cached: CachedExtraction | undefined, ids: Set<string>): ParsedEntity[] {
  return (cached?.entities ?? []).filter((e) => ids.has(e.id));
}
