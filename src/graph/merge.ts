import { ConflictError, InvalidInputError, NotFoundError } from '../domain/errors';
import { bumpGraphVersion } from '../llm/cache/responses';
import { documentsOfChunks, normalizeEntityId } from '../domain/ids';
import type { EntityRecord, RelationshipRecord, Scope } from '../domain/types';
import type { Stores } from '../store/ports';
import { OVERRIDES_NAMESPACE, moveOverride, recordMerges, recordOverride } from './aliases';
import { absorbEntities, union } from './combine';
import { type GraphDeps, nowOf } from './deps';
import { embedEntities, embedRelationships } from './embed';
import { carriedPoints, mergeChanges, planRelationships, rewriteChunks, type StaleRecords } from './merge-plan';
import { documentLinksLockKey } from '../records/locks';

export type { StaleRecords } from './merge-plan';

export interface MergeInput {
  sourceIds: string[];
  targetId: string;
  reason?: string;
  /** A rename into a fresh id: the survivor record, not stored yet. */
  newTarget?: EntityRecord;
  /** Published as the change cause: `merge` or `rename`. */
  cause?: string;
}

export interface MergeOutcome {
  entity: EntityRecord;
  merged_from: string[];
  /** Relationships whose endpoint was rewritten to the survivor. */
  relationships_moved: number;
  /** Rewritten relationships folded into another one between the same pair. */
  relationships_merged: number;
  /** Relationships between two merged entities, dropped as self-loops. */
  self_loops_dropped: number;
}

/** A survivor and the entities it absorbs (normalised ids; no entity in two groups of one call). */
export interface MergeGroup {
  targetId: string;
  sourceIds: string[];
  reason: string;
}

/** Documents' entity and relationship counts follow the merged graph: counted and written, not read. */
export async function recountDocuments(stores: Stores, scope: Scope, documentIds: string[]): Promise<void> {
  if (documentIds.length === 0) return;
  await stores.documents.setGraphCounts(scope, await stores.graph.countsOfDocuments(scope, documentIds));
}

/**
 * Folds entities into a survivor: sources and documents united, relationships rewritten (duplicates merged,
 * self-loops dropped), chunk records, vectors and document counts updated, a merge record and aliases kept,
 * and the changes published. Everything that can fail on input or embedding fails before the first write.
 */
export async function mergeEntities(deps: GraphDeps, scope: Scope, input: MergeInput): Promise<MergeOutcome> {
  const targetId = input.newTarget?.id ?? normalizeEntityId(input.targetId);
  const sourceIds = union(input.sourceIds.map(normalizeEntityId));
  if (!targetId) throw new InvalidInputError([{ field: 'target_id', message: 'must name an entity' }]);
  if (sourceIds.some((id) => !id)) throw new InvalidInputError([{ field: 'source_ids', message: 'must name entities' }]);
  if (sourceIds.includes(targetId)) {
    throw new InvalidInputError([{ field: 'source_ids', message: `must not contain the target '${targetId}'` }]);
  }
  const group: MergeGroup = { targetId, sourceIds, reason: input.reason?.trim() || 'merged by an analyst' };
  const done = await withRelatedLock(deps, scope, [targetId, ...sourceIds], sourceIds, (touching) =>
    mergeLocked(deps, scope, [group], touching, { carry: false, cause: input.cause ?? 'merge', newTarget: input.newTarget }),
  );
  if (done.missing.length > 0) {
    throw new NotFoundError(`entities not found in workspace '${scope.workspaceId}': ${done.missing[0].ids.join(', ')}`);
  }
  return done.outcome as MergeOutcome;
}

export interface GroupsMerged {
  merged: MergeGroup[];
  /** Groups left alone: an entity of theirs (`ids`) was not found under the lock, merged or deleted meanwhile. */
  missing: Array<{ group: MergeGroup; ids: string[] }>;
  /** Survivors and rewritten relationships written with a carried vector, to embed again. */
  stale: StaleRecords;
  /** With `carry`: survivors and rewritten relationships written with no vector (none to carry), to embed. */
  unembedded: StaleRecords;
}

/**
 * Several merges under one lock and in one set of writes. With `carry`, waiting for no embedding: survivors and
 * rewritten relationships take the vectors of the records they replace and come back as `stale` for the caller
 * to embed again; those with no vector to carry are written without one and come back as `unembedded`, for the
 * caller to embed. Without, every record is embedded before the first write, as mergeEntities does. Groups whose
 * entities are gone by the time the lock is held are left out and returned as `missing`.
 */
export async function mergeGroups(
  deps: GraphDeps,
  scope: Scope,
  groups: MergeGroup[],
  options: { cause: string; carry: boolean },
): Promise<GroupsMerged> {
  const ids = union(...groups.map((g) => [g.targetId, ...g.sourceIds]));
  const sourceIds = groups.flatMap((g) => g.sourceIds);
  if (ids.length !== groups.length + sourceIds.length) throw new Error('merge groups must not share an entity');
  const done = await withRelatedLock(deps, scope, ids, sourceIds, (touching) => mergeLocked(deps, scope, groups, touching, options));
  return { merged: done.merged, missing: done.missing, stale: done.stale, unembedded: done.unembedded };
}

/** Attempts before the lock keeps the set it holds; each retry means a relationship of an absorbed entity appeared meanwhile. */
const LOCK_ATTEMPTS = 8;

/**
 * The entity lock ingestion holds while it rebuilds entities, over the merged entities and every entity related
 * to an absorbed one. A relationship is rewritten only by holders of both its endpoints' locks: a document's
 * merge, a summary or another entity merge never rewrites one this merge moves. The related entities are read
 * again under the lock, which is taken again over the wider set if they grew while it was awaited.
 */
export async function withRelatedLock<T>(
  deps: GraphDeps,
  scope: Scope,
  ids: string[],
  sourceIds: string[],
  fn: (touching: RelationshipRecord[]) => Promise<T>,
): Promise<T> {
  const { graph } = deps.stores;
  const related = async (held: string[]) => {
    const touching = await graph.relationshipsOf(scope, sourceIds);
    return { touching, ids: union(held, ...touching.map((r) => [r.source, r.target])) };
  };
  let wanted = (await related(ids)).ids;
  for (let attempt = 1; ; attempt++) {
    const held = wanted;
    const outcome = await deps.entityLocks.run(scope, held, async (): Promise<{ done: T } | { retry: string[] }> => {
      const now = await related(held);
      if (attempt < LOCK_ATTEMPTS && now.ids.length > held.length) return { retry: now.ids };
      // Read under the lock: the relationships of the absorbed entities, as `fn` finds them.
      return { done: await fn(now.touching) };
    });
    if ('done' in outcome) return outcome.done;
    wanted = outcome.retry;
  }
}

interface LockedOptions {
  carry: boolean;
  cause: string;
  /** A rename (one group): the survivor record, not stored yet. */
  newTarget?: EntityRecord;
}

interface LockedOutcome extends GroupsMerged {
  /** The first group's outcome (the only group of an analyst's merge), when it merged. */
  outcome?: MergeOutcome;
}

async function mergeLocked(
  deps: GraphDeps,
  scope: Scope,
  groups: MergeGroup[],
  touchingAll: RelationshipRecord[],
  { carry, cause, newTarget }: LockedOptions,
): Promise<LockedOutcome> {
  const { graph, chunks, vectors, kv } = deps.stores;
  const read = new Map((await graph.getEntities(scope, union(...groups.map((g) => [g.targetId, ...g.sourceIds])))).map((e) => [e.id, e]));
  if (newTarget && read.has(newTarget.id))
    throw new ConflictError(`entity '${newTarget.id}' already exists`, newTarget.id, { existing_id: newTarget.id });
  const done: LockedOutcome = {
    merged: [],
    missing: [],
    stale: { entities: [], relationships: [] },
    unembedded: { entities: [], relationships: [] },
  };
  const targetOf = (g: MergeGroup) => newTarget ?? read.get(g.targetId);
  for (const g of groups) {
    const absent = [...(targetOf(g) ? [] : [g.targetId]), ...g.sourceIds.filter((id) => !read.has(id))];
    if (absent.length) done.missing.push({ group: g, ids: absent });
    else done.merged.push(g);
  }
  if (done.merged.length === 0) return done;

  const now = nowOf(deps);
  const remap = new Map(done.merged.flatMap((g) => g.sourceIds.map((id) => [id, g.targetId])));
  const absorbedIds = [...remap.keys()];
  const survivors = done.merged.map((g) => {
    const absorbed = g.sourceIds.map((id) => read.get(id) as EntityRecord);
    return { survivor: absorbEntities(targetOf(g) as EntityRecord, absorbed, now), sourceIds: g.sourceIds, absorbed };
  });
  const touching = touchingAll.filter((r) => remap.has(r.source) || remap.has(r.target));
  const plan = await planRelationships(graph, scope, touching, remap, now);
  const upserts = [...plan.upserts.values()];
  // Carrying, nothing is embedded under the lock: what has no vector to carry is left to the caller.
  const carried = carry ? await carriedPoints(vectors, scope, survivors, plan) : null;
  const [entityEmbedded, relationshipEmbedded] = carried
    ? [[], []]
    : await Promise.all([
        embedEntities(
          deps,
          survivors.map((s) => s.survivor),
        ),
        embedRelationships(deps, upserts),
      ]);

  await graph.upsertEntities(
    scope,
    survivors.map((s) => s.survivor),
  );
  await graph.upsertRelationships(scope, upserts);
  await graph.deleteRelationships(scope, [...plan.renamed.keys()]);
  await graph.deleteEntities(scope, absorbedIds);
  const affectedChunks = union(
    ...survivors.flatMap((s) => s.absorbed.map((e) => e.source_chunk_ids)),
    ...touching.map((r) => r.source_chunk_ids),
  );
  const documentIds = union(
    ...survivors.map((s) => s.survivor.document_ids),
    ...touching.map((r) => r.document_ids),
    documentsOfChunks(affectedChunks),
  );
  // Chunk records and counts are shared with merges of other entities the same chunks name: read and written under the documents' keys.
  await deps.entityLocks.run(scope, documentIds.map(documentLinksLockKey), async () => {
    await chunks.setLinks(scope, await rewriteChunks(await chunks.linksOf(scope, affectedChunks), remap, plan.renamed));
    await recountDocuments(deps.stores, scope, documentIds);
  });
  await vectors.delete(scope, 'entity', absorbedIds);
  await vectors.upsert(scope, 'entity', [...(carried?.entities ?? []), ...entityEmbedded]);
  await vectors.delete(scope, 'relationship', [...plan.renamed.keys()]);
  await vectors.upsert(scope, 'relationship', [...(carried?.relationships ?? []), ...relationshipEmbedded]);
  await recordMerges(
    kv,
    scope,
    done.merged.map((g) => ({
      survivor: g.targetId,
      absorbed: g.sourceIds,
      record: { date: now, merged_from: g.sourceIds, reason: g.reason },
    })),
  );
  if (newTarget) {
    await moveOverride(kv, scope, done.merged[0].sourceIds[0], newTarget.id);
    await recordOverride(kv, scope, newTarget.id, { name: newTarget.name }, now);
  } else {
    await kv.delete(scope, OVERRIDES_NAMESPACE, absorbedIds);
  }
  await bumpGraphVersion(kv, scope);
  const changed = survivors.map((s) => ({ id: s.survivor.id, isNew: Boolean(newTarget) }));
  deps.events.publish({ scope, changes: mergeChanges(changed, absorbedIds, plan), cause });

  done.stale = carried?.stale ?? done.stale;
  done.unembedded = carried?.uncarried ?? done.unembedded;
  done.outcome = {
    entity: survivors[0].survivor,
    merged_from: survivors[0].sourceIds,
    relationships_moved: plan.renamed.size - plan.selfLoops,
    relationships_merged: plan.merged,
    self_loops_dropped: plan.selfLoops,
  };
  return done;
}
