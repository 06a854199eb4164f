import type { ChunkRecord, Scope } from '../domain/types';
import type { LlmProvider } from '../llm/ports';
import { forgetDocumentNames } from './aliases';
import { writeLinked } from './chunk-links';
import type { IngestDeps } from './deps';
import { isChunkOf } from '../domain/ids';
import { deleteExtractions } from './extract/cache';
import type { MergeOutcome } from './merge';
import { mergeIntoGraph } from './merge-stage';
import { deletePageMap } from './pages';
import { deleteHistory } from './history';
import type { SummaryPolicy } from './summary';

/**
 * Removing a document's data (docs/architecture.md §5): its chunks, chunk vectors, cached extractions and page map;
 * every entity and relationship only it supported (and their vectors); shared ones rebuilt from the cached
 * extractions of their remaining source chunks and re-embedded; analysts' edits of the entities that are
 * gone then are forgotten. Idempotent.
 * The documents layer deletes the DocumentRecord itself afterwards.
 */

export interface DeletionImpact {
  document_id: string;
  entities_affected: number;
  entities_to_delete: number;
  entities_to_update: number;
  relationships_affected: number;
  relationships_to_delete: number;
  relationships_to_update: number;
}

export async function deletionImpact(deps: Pick<IngestDeps, 'stores'>, scope: Scope, documentId: string): Promise<DeletionImpact> {
  const [entities, relationships] = await Promise.all([
    deps.stores.graph.entitiesOfDocument(scope, documentId),
    deps.stores.graph.relationshipsOfDocument(scope, documentId),
  ]);
  const onlyThis = (r: { source_chunk_ids: string[] }) => r.source_chunk_ids.every((c) => isChunkOf(c, documentId));
  const entitiesToDelete = entities.filter(onlyThis).length;
  const relationshipsToDelete = relationships.filter(onlyThis).length;
  return {
    document_id: documentId,
    entities_affected: entities.length,
    entities_to_delete: entitiesToDelete,
    entities_to_update: entities.length - entitiesToDelete,
    relationships_affected: relationships.length,
    relationships_to_delete: relationshipsToDelete,
    relationships_to_update: relationships.length - relationshipsToDelete,
  };
}

export async function deleteDocumentData(deps: IngestDeps, scope: Scope, documentId: string): Promise<void> {
  const doc = await deps.stores.documents.get(scope, documentId);
  const policy = summaryPolicy(deps, doc?.options.use_llm_summarization ?? true);
  await removeDocumentFromGraph(deps, scope, documentId, policy, 'delete');
  const chunkIds = (await deps.stores.chunks.listByDocument(scope, documentId)).map((c) => c.id);
  if (chunkIds.length) await deps.stores.vectors.delete(scope, 'chunk', chunkIds);
  await forgetDocumentNames(deps.stores, deps.entityLocks, scope, chunkIds);
  await deleteExtractions(deps.stores.kv, scope, chunkIds);
  await deletePageMap(deps, scope, documentId);
  await deleteHistory(deps, scope, documentId);
  await deps.stores.chunks.deleteByDocument(scope, documentId);
}

/**
 * Undoes a failed or cancelled run of a document: its graph contributions and chunk vectors go (unless the run
 * never reached the graph: `merged` false); with `removeChunks` (a cancelled full run) its chunks, their cached
 * extractions and the edits of entities gone with them too; otherwise chunks stay, with their statuses, for
 * retry-chunks. The document record's status is the caller's to write.
 */
export async function discardDocumentRun(
  deps: IngestDeps,
  scope: Scope,
  documentId: string,
  options: { removeChunks: boolean; merged?: boolean },
): Promise<void> {
  const { stores } = deps;
  const doc = await stores.documents.get(scope, documentId);
  const chunks = await stores.chunks.listByDocument(scope, documentId);
  const chunkIds = chunks.map((c) => c.id);
  const merged = options.merged ?? true;
  if (merged) {
    await removeDocumentFromGraph(deps, scope, documentId, summaryPolicy(deps, doc?.options?.use_llm_summarization ?? true), 'rollback');
    if (chunkIds.length) await stores.vectors.delete(scope, 'chunk', chunkIds);
  }
  if (!options.removeChunks) {
    // Kept for a retry, they no longer name what the graph lost, nor claim a vector.
    if (merged && chunks.length)
      await writeLinked(deps, scope, [{ documentId, chunks: chunks.map(unlinked), counts: { entities: 0, relationships: 0 } }]);
    return;
  }
  await forgetDocumentNames(stores, deps.entityLocks, scope, chunkIds);
  await deleteExtractions(stores.kv, scope, chunkIds);
  await stores.chunks.deleteByDocument(scope, documentId);
  if (doc) await stores.documents.update(scope, documentId, { chunk_count: 0, entity_count: 0, relationship_count: 0 });
}

function unlinked(chunk: ChunkRecord): ChunkRecord {
  return { ...chunk, entity_ids: [], relationship_ids: [], embedding_model: null };
}

/**
 * Takes a document out of the graph: a merge with no contributions (./merge-stage.ts), the vectors of the
 * records it changed following; the change events published.
 */
export async function removeDocumentFromGraph(
  deps: IngestDeps,
  scope: Scope,
  documentId: string,
  policy: SummaryPolicy,
  cause: string,
): Promise<MergeOutcome | null> {
  const touched = await deps.stores.graph.entitiesOfDocument(scope, documentId);
  const relations = await deps.stores.graph.relationshipsOfDocument(scope, documentId);
  if (touched.length === 0 && relations.length === 0) return null;
  return mergeIntoGraph(deps, scope, documentId, [], {
    lockIds: touched.map((e) => e.id),
    policy,
    cause,
    embedder: () => deps.providers.embedding(),
    embed: { concurrency: deps.config.ingest.embeddingConcurrency, signal: policy.signal },
    embeddingOptional: true,
  });
}

/** Summaries by the default LLM; without a usable one, descriptions are joined. */
export function summaryPolicy(
  deps: Pick<IngestDeps, 'config' | 'providers' | 'llmCache'>,
  enabled: boolean,
  signal?: AbortSignal,
): SummaryPolicy {
  let llm: LlmProvider | undefined;
  try {
    llm = deps.providers.llm();
  } catch {
    llm = undefined;
  }
  return {
    llm,
    cache: deps.llmCache,
    enabled: enabled && llm !== undefined,
    fragmentThreshold: deps.config.ingest.summaryFragmentThreshold,
    tokenThreshold: deps.config.ingest.summaryTokenThreshold,
    relationship: {
      fragmentThreshold: deps.config.ingest.summaryRelationshipFragmentThreshold,
      tokenThreshold: deps.config.ingest.summaryRelationshipTokenThreshold,
    },
    signal,
  };
}
