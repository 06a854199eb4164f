import { InvalidInputError, NotFoundError } from '../../domain/errors';
import { normalizeEntityId } from '../../domain/ids';
import type { EntityRecord, Scope } from '../../domain/types';
import { ALIASES_NAMESPACE, MERGE_HISTORY_NAMESPACE, type MergeRecord, resolveEntityAlias } from '../../graph/aliases';
import { recordDistinct } from '../../graph/resolution/distinct';
import { documentsOfChunks } from '../../domain/ids';
import { readExtractions } from '../../ingest/extract/cache';
import { remergeDocuments } from '../../ingest/merge';
import type { ServiceHost } from '../tasks';

export interface SplitOutcome {
  entity: EntityRecord | null;
  split_off: EntityRecord | null;
}

/**
 * Undoes one merge: the alias stops pointing at the survivor and leaves its merge history, the pair is kept apart
 * from then on (resolution never merges it again), and the documents whose chunks name the alias are merged
 * again from their cached extractions, so the alias gets back its own entity, relationships and provenance.
 */
export async function splitAlias(host: ServiceHost, scope: Scope, rawId: string, rawAlias: string): Promise<SplitOutcome> {
  const { kv, graph } = host.stores;
  const id = normalizeEntityId(rawId);
  const alias = normalizeEntityId(rawAlias);
  const survivor = await graph.getEntity(scope, id);
  if (!survivor) throw new NotFoundError(`entity '${id || rawId}' does not exist in workspace '${scope.workspaceId}'`);
  if ((await resolveEntityAlias(kv, scope, alias)) !== id || alias === id) {
    throw new InvalidInputError([{ field: 'alias', message: `'${rawAlias}' is not an alias merged into '${id}'` }]);
  }
  const documents = await host.entityLocks.run(scope, [id, alias], async () => {
    await kv.delete(scope, ALIASES_NAMESPACE, [alias]);
    const history = (await kv.get<MergeRecord[]>(scope, MERGE_HISTORY_NAMESPACE, id)) ?? [];
    const kept = history
      .map((r) => ({ ...r, merged_from: r.merged_from.filter((x) => x !== alias) }))
      .filter((r) => r.merged_from.length > 0);
    if (kept.length) await kv.set(scope, MERGE_HISTORY_NAMESPACE, id, kept);
    else await kv.delete(scope, MERGE_HISTORY_NAMESPACE, [id]);
    await recordDistinct(kv, scope, id, alias);
    const extractions = await readExtractions(kv, scope, survivor.source_chunk_ids);
    const naming = [...extractions].filter(
      ([, e]) => e.entities.some((x) => x.id === alias) || e.relations.some((r) => r.source === alias || r.target === alias),
    );
    return documentsOfChunks(naming.map(([chunkId]) => chunkId));
  });
  await remergeDocuments(host, scope, documents, 'split');
  const [entity, splitOff] = await Promise.all([graph.getEntity(scope, id), graph.getEntity(scope, alias)]);
  return { entity, split_off: splitOff };
}
