import type { Scope } from '../domain/types';
import type { LlmProvider } from '../llm/ports';
import { forgetDocumentNames, withAliasedEntityLock } from './aliases';
import type { IngestDeps } from './deps';
import { documentOfChunk } from './describe';
import { isAbortError } from '../llm/abort';
import { deleteGraphVectors, embedGraphRecords } from './embed';
import { deleteExtractions } from './extract/cache';
import { mergeDocument, type MergeOutcome } from './merge';
import { deletePageMap } from './pages';
import type { SummaryPolicy } from './summary';

/**
 * Removing a document's data (DESIGN.md 5.8): its chunks, chunk vectors, cached extractions and page map;
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
  const onlyThis = (r: { source_chunk_ids: string[] }) => r.source_chunk_ids.every((c) => documentOfChunk(c) === documentId);
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
  await forgetDocumentNames(deps.stores, scope, chunkIds);
  await deleteExtractions(deps.stores.kv, scope, chunkIds);
  await deletePageMap(deps, scope, documentId);
  await deps.stores.chunks.deleteByDocument(scope, documentId);
}

/**
 * Takes a document out of the graph: a merge with no contributions under the entity lock, then the
 * vectors of the records it changed, then the change events.
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
  return withAliasedEntityLock(
    deps.stores.kv,
    scope,
    touched.map((e) => e.id),
    async () => {
      const outcome = await mergeDocument(deps, scope, documentId, [], policy);
      deps.events.publish({ scope, changes: outcome.changes, cause, document_id: documentId });
      await deleteGraphVectors(deps.stores.vectors, scope, outcome);
      try {
        await embedGraphRecords(deps.stores.vectors, scope, () => deps.providers.embedding(), outcome, {
          concurrency: deps.config.ingest.embeddingConcurrency,
          signal: policy.signal,
        });
      } catch (err) {
        if (isAbortError(err)) throw err;
        // Taking a document out must not depend on the embedding service: the graph is already right.
        deps.log.warn({ err, document_id: documentId }, 'shared records could not be re-embedded after removing a document');
      }
      if (outcome.summaryFailures.length) {
        deps.log.warn({ document_id: documentId, failures: outcome.summaryFailures }, 'description summaries fell back to joined fragments');
      }
      return outcome;
    },
  );
}

/** Summaries by the default LLM; without a usable one, descriptions are joined. */
export function summaryPolicy(deps: Pick<IngestDeps, 'config' | 'providers'>, enabled: boolean, signal?: AbortSignal): SummaryPolicy {
  let llm: LlmProvider | undefined;
  try {
    llm = deps.providers.llm();
  } catch {
    llm = undefined;
  }
  return {
    llm,
    enabled: enabled && llm !== undefined,
    fragmentThreshold: deps.config.ingest.summaryFragmentThreshold,
    tokenThreshold: deps.config.ingest.summaryTokenThreshold,
    signal,
  };
}
