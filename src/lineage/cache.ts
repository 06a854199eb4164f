import { normalizeEntityId } from '../domain/ids';
import type { Scope } from '../domain/types';
import type { ExtractedEntity, ExtractedRelation } from '../ingest/extract/format';
import type { KeyValueStore } from '../store/ports';

/** The per-chunk extraction output that ingestion caches (key-value namespace `extraction`, key = chunk id). */
export const EXTRACTION_NAMESPACE = 'extraction';

export interface CachedExtraction {
  entities?: ExtractedEntity[];
  relations?: ExtractedRelation[];
  /** One raw LLM answer per pass: the first extraction, then each gleaning pass. */
  raw_outputs?: string[];
  llm_model?: string;
  created_at?: string;
}

export interface ExtractionMetadata {
  llm_model: string | null;
  created_at: string | null;
  entity_count: number;
  relationship_count: number;
  /** LLM passes in total, and how many of them were gleaning passes. */
  extraction_passes: number;
  gleaning_passes: number;
}

export function extractionsOf(kv: KeyValueStore, scope: Scope, chunkIds: string[]): Promise<Map<string, CachedExtraction>> {
  return kv.getMany<CachedExtraction>(scope, EXTRACTION_NAMESPACE, chunkIds);
}

export function extractionMetadata(cached: CachedExtraction | undefined | null): ExtractionMetadata | null {
  if (!cached) return null;
  const passes = cached.raw_outputs?.length ?? 1;
  return {
    llm_model: cached.llm_model ?? null,
    created_at: cached.created_at ?? null,
    entity_count: cached.entities?.length ?? 0,
    relationship_count: cached.relations?.length ?? 0,
    extraction_passes: passes,
    gleaning_passes: Math.max(0, passes - 1),
  };
}

/** The cached entity records naming one of `ids` (the entity's id, or ids it absorbed in merges). */
export function extractedMentions(cached: CachedExtraction | undefined, ids: Set<string>): ExtractedEntity[] {
  return (cached?.entities ?? []).filter((e) => ids.has(normalizeEntityId(e.name)));
}
