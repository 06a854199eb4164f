import type { AppConfig } from '../config/types';
import type { ChunkRecord, DocumentRecord, EntityRecord, Scope } from '../domain/types';
import { resolveEntityAliases } from '../graph/aliases';
import type { Stores } from '../store/ports';
import { type ExtractionMetadata, EXTRACTION_NAMESPACE, type CachedExtraction, extractionMetadata } from './cache';
import { lineageNotFound } from './errors';
import { preview } from '../domain/text';

export interface LineageDeps {
  stores: Stores;
  config: AppConfig;
}

export async function requireChunk(
  stores: Stores,
  scope: Scope,
  chunkId: string,
): Promise<{ chunk: ChunkRecord; document: DocumentRecord | null }> {
  const chunk = await stores.chunks.get(scope, chunkId);
  if (!chunk) throw lineageNotFound(`chunk '${chunkId}' does not exist in workspace '${scope.workspaceId}'`);
  return { chunk, document: await stores.documents.get(scope, chunk.document_id) };
}

/** The chunk's entities; ids renamed or merged since extraction are followed to the entity that holds them now. */
async function entitiesOfChunk(stores: Stores, scope: Scope, ids: string[]): Promise<EntityRecord[]> {
  const resolved = await resolveEntityAliases(stores.kv, scope, ids);
  const unique = [...new Set(ids.map((id) => resolved.get(id) ?? id))];
  return stores.graph.getEntities(scope, unique);
}

export interface ChunkDetail {
  chunk_id: string;
  document_id: string;
  document_name: string;
  content: string;
  index: number;
  char_range: { start: number; end: number };
  start_line: number;
  end_line: number;
  token_count: number;
  entities: Array<{ id: string; name: string; entity_type: string; description: string }>;
  relationships: Array<{
    id: string;
    source: string;
    target: string;
    source_name: string;
    target_name: string;
    relation_type: string;
    keywords: string[];
    description: string;
  }>;
  extraction_metadata: ExtractionMetadata | null;
}

/** Chunk detail (docs/api.md §2.2): the text, where it sits, and what was extracted from it. */
export async function chunkDetail(stores: Stores, scope: Scope, chunkId: string): Promise<ChunkDetail> {
  const { chunk, document } = await requireChunk(stores, scope, chunkId);
  const [entities, relationships, cached] = await Promise.all([
    entitiesOfChunk(stores, scope, chunk.entity_ids),
    stores.graph.getRelationships(scope, chunk.relationship_ids),
    stores.kv.get<CachedExtraction>(scope, EXTRACTION_NAMESPACE, chunk.id),
  ]);
  const names = new Map(entities.map((e) => [e.id, e.name]));
  const missing = [...new Set(relationships.flatMap((r) => [r.source, r.target]))].filter((id) => !names.has(id));
  for (const e of await stores.graph.getEntities(scope, missing)) names.set(e.id, e.name);
  return {
    chunk_id: chunk.id,
    document_id: chunk.document_id,
    document_name: document?.title ?? '',
    content: chunk.content,
    index: chunk.index,
    char_range: { start: chunk.char_start, end: chunk.char_end },
    start_line: chunk.start_line,
    end_line: chunk.end_line,
    token_count: chunk.tokens,
    entities: entities.map((e) => ({ id: e.id, name: e.name, entity_type: e.entity_type, description: e.description })),
    relationships: relationships.map((r) => ({
      id: r.id,
      source: r.source,
      target: r.target,
      source_name: names.get(r.source) ?? r.source,
      target_name: names.get(r.target) ?? r.target,
      relation_type: r.relation_type,
      keywords: r.keywords,
      description: r.description,
    })),
    extraction_metadata: extractionMetadata(cached),
  };
}

/** Dimension of an embedding model from the catalog; the configured dimension when the model is not listed. */
function embeddingDimension(config: AppConfig, model: string | null): number {
  for (const provider of config.catalog.providers) {
    const found = provider.models.find((m) => m.model_type === 'embedding' && m.name === model);
    if (found && found.capabilities.embedding_dimension > 0) return found.capabilities.embedding_dimension;
  }
  return config.embedding.dimension;
}

/** Chunk lineage (docs/api.md §2.2): where the chunk came from and which models processed it. */
export async function chunkLineage(deps: LineageDeps, scope: Scope, chunkId: string) {
  const { stores, config } = deps;
  const { chunk, document } = await requireChunk(stores, scope, chunkId);
  const [entities, cached] = await Promise.all([
    entitiesOfChunk(stores, scope, chunk.entity_ids),
    stores.kv.get<CachedExtraction>(scope, EXTRACTION_NAMESPACE, chunk.id),
  ]);
  const embeddingModel = chunk.embedding_model ?? document?.embedding_model ?? null;
  return {
    chunk_id: chunk.id,
    document_id: chunk.document_id,
    document_name: document?.title ?? '',
    document_type: document?.document_type ?? 'text',
    chunk_index: chunk.index,
    content_preview: preview(chunk.content),
    tokens: chunk.tokens,
    start_line: chunk.start_line,
    end_line: chunk.end_line,
    start_offset: chunk.char_start,
    end_offset: chunk.char_end,
    llm_model: chunk.llm_model ?? cached?.llm_model ?? document?.llm_model ?? null,
    embedding_model: embeddingModel,
    embedding_dimension: embeddingDimension(config, embeddingModel),
    entity_ids: entities.map((e) => e.id),
    entity_names: entities.map((e) => e.name),
    entity_count: entities.length,
    relationship_count: chunk.relationship_ids.length,
    file_path: document?.file_path ?? '',
    created_at: chunk.created_at,
  };
}
