import { ConflictError, InvalidInputError, NotFoundError } from '../domain/errors';
import { bumpGraphVersion } from '../llm/cache/responses';
import { documentsOfChunks, normalizeEntityId, relationshipId } from '../domain/ids';
import type { EntityRecord, RelationshipRecord, Scope, VectorPoint } from '../domain/types';
import type { ChunkLinks, GraphStore, Stores } from '../store/ports';
import { OVERRIDES_NAMESPACE, moveOverride, recordMerge, recordOverride } from './aliases';
import { absorbEntities, combineRelationships, union } from './combine';
import { type GraphDeps, nowOf } from './deps';
import { embedEntities, embedRelationships } from './embed';
import type { GraphChange } from './events';
import { documentLinksLockKey } from '../records/locks';
import { TimeSlicer } from '../domain/turns';

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

/** Records written with the vector of an earlier text, to be embedded again. */
export interface StaleRecords {
  entities: EntityRecord[];
  relationships: RelationshipRecord[];
}

interface RelationshipPlan {
  /** Relationships to write, keyed by their (new) id. */
  upserts: Map<string, RelationshipRecord>;
  /** Ids that existed before the merge among `upserts`. */
  existing: Set<string>;
  /** Every relationship touching an absorbed entity: old id -> new id, or null when dropped as a self-loop. */
  renamed: Map<string, string | null>;
  touching: RelationshipRecord[];
  merged: number;
  selfLoops: number;
}

/** Rewrites every relationship of the absorbed entities (`touching`) onto the survivor, folding duplicates. */
async function planRelationships(
  graph: GraphStore,
  scope: Scope,
  touching: RelationshipRecord[],
  absorbed: Set<string>,
  survivorId: string,
  now: string,
): Promise<RelationshipPlan> {
  const plan: RelationshipPlan = { upserts: new Map(), existing: new Set(), renamed: new Map(), touching, merged: 0, selfLoops: 0 };
  const remap = (id: string) => (absorbed.has(id) ? survivorId : id);
  for (const r of touching) {
    const [a, b] = [remap(r.source), remap(r.target)];
    if (a === b) {
      plan.renamed.set(r.id, null);
      plan.selfLoops++;
      continue;
    }
    const [id, source, target] = relationshipId(a, b);
    plan.renamed.set(r.id, id);
    const rewritten: RelationshipRecord = { ...r, id, source, target, updated_at: now };
    const earlier = plan.upserts.get(id);
    if (earlier) plan.merged++;
    plan.upserts.set(id, earlier ? combineRelationships(earlier, rewritten, now) : rewritten);
  }
  for (const stored of await graph.getRelationships(scope, [...plan.upserts.keys()])) {
    if (plan.renamed.has(stored.id)) continue;
    plan.existing.add(stored.id);
    plan.merged++;
    plan.upserts.set(stored.id, combineRelationships(stored, plan.upserts.get(stored.id) as RelationshipRecord, now));
  }
  return plan;
}

/**
 * Chunk records point at the survivor and at the rewritten relationships; only changed chunks are written. An
 * entity named all over a large document has thousands: they are rewritten in stretches that give way to I/O.
 */
async function rewriteChunks(chunks: ChunkLinks[], absorbed: Set<string>, survivorId: string, renamed: Map<string, string | null>) {
  const changed: ChunkLinks[] = [];
  const slicer = new TimeSlicer();
  for (const chunk of chunks) {
    await slicer.tick();
    const entityIds = union(chunk.entity_ids.map((id) => (absorbed.has(id) ? survivorId : id)));
    const relationshipIds = union(
      chunk.relationship_ids.flatMap((id) => {
        const next = renamed.has(id) ? renamed.get(id) : id;
        return next ? [next] : [];
      }),
    );
    const same =
      entityIds.length === chunk.entity_ids.length &&
      entityIds.every((id, i) => id === chunk.entity_ids[i]) &&
      relationshipIds.length === chunk.relationship_ids.length &&
      relationshipIds.every((id, i) => id === chunk.relationship_ids[i]);
    if (!same) changed.push({ ...chunk, entity_ids: entityIds, relationship_ids: relationshipIds });
  }
  return changed;
}

/** Documents' entity and relationship counts follow the merged graph: counted and written, not read. */
export async function recountDocuments(stores: Stores, scope: Scope, documentIds: string[]): Promise<void> {
  if (documentIds.length === 0) return;
  await stores.documents.setGraphCounts(scope, await stores.graph.countsOfDocuments(scope, documentIds));
}

/** Survivor first, then the old edges and nodes going, then the rewritten edges arriving. */
function mergeChanges(targetId: string, isNew: boolean, sourceIds: string[], plan: RelationshipPlan): GraphChange[] {
  const changes: GraphChange[] = [{ kind: isNew ? 'node_added' : 'node_updated', id: targetId }];
  for (const r of plan.touching) changes.push({ kind: 'edge_removed', id: r.id, source: r.source, target: r.target });
  for (const id of sourceIds) changes.push({ kind: 'node_removed', id });
  for (const r of plan.upserts.values()) {
    changes.push({ kind: plan.existing.has(r.id) ? 'edge_updated' : 'edge_added', id: r.id, source: r.source, target: r.target });
  }
  return changes;
}

/**
 * Folds entities into a survivor: sources and documents united, relationships rewritten (duplicates merged,
 * self-loops dropped), chunk records, vectors and document counts updated, a merge record and aliases kept,
 * and the changes published. Everything that can fail on input or embedding fails before the first write.
 */
export async function mergeEntities(deps: GraphDeps, scope: Scope, input: MergeInput): Promise<MergeOutcome> {
  return (await merge(deps, scope, input, false)).outcome;
}

/**
 * mergeEntities, waiting for no embedding: the survivor and the rewritten relationships take the vectors of the
 * records they replace, and come back as `stale` for the caller to embed again (a record with no vector to carry
 * is embedded first, as mergeEntities does).
 */
export function mergeEntitiesCarryingVectors(
  deps: GraphDeps,
  scope: Scope,
  input: MergeInput,
): Promise<{ outcome: MergeOutcome; stale: StaleRecords }> {
  return merge(deps, scope, input, true);
}

async function merge(
  deps: GraphDeps,
  scope: Scope,
  input: MergeInput,
  carry: boolean,
): Promise<{ outcome: MergeOutcome; stale: StaleRecords }> {
  const targetId = input.newTarget?.id ?? normalizeEntityId(input.targetId);
  const sourceIds = union(input.sourceIds.map(normalizeEntityId));
  if (!targetId) throw new InvalidInputError([{ field: 'target_id', message: 'must name an entity' }]);
  if (sourceIds.some((id) => !id)) throw new InvalidInputError([{ field: 'source_ids', message: 'must name entities' }]);
  if (sourceIds.includes(targetId)) {
    throw new InvalidInputError([{ field: 'source_ids', message: `must not contain the target '${targetId}'` }]);
  }
  return withRelatedLock(deps, scope, [targetId, ...sourceIds], sourceIds, (touching) =>
    mergeLocked(deps, scope, input, targetId, sourceIds, carry, touching),
  );
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

async function mergeLocked(
  deps: GraphDeps,
  scope: Scope,
  input: MergeInput,
  targetId: string,
  sourceIds: string[],
  carry: boolean,
  touching: RelationshipRecord[],
): Promise<{ outcome: MergeOutcome; stale: StaleRecords }> {
  const { graph, chunks, vectors, kv } = deps.stores;
  const read = await graph.getEntities(scope, [targetId, ...sourceIds]);
  const stored = read.find((e) => e.id === targetId) ?? null;
  if (input.newTarget && stored) throw new ConflictError(`entity '${targetId}' already exists`, targetId, { existing_id: targetId });
  const target = input.newTarget ?? stored;
  const sources = read.filter((e) => e.id !== targetId);
  const found = new Set(sources.map((s) => s.id));
  const missing = [...(target ? [] : [targetId]), ...sourceIds.filter((id) => !found.has(id))];
  if (!target || missing.length > 0) {
    throw new NotFoundError(`entities not found in workspace '${scope.workspaceId}': ${missing.join(', ')}`);
  }

  const now = nowOf(deps);
  const absorbed = new Set(sourceIds);
  const survivor = absorbEntities(target, sources, now);
  const plan = await planRelationships(graph, scope, touching, absorbed, targetId, now);
  const upserts = [...plan.upserts.values()];
  const carried = carry ? await carriedPoints(deps, scope, survivor, sourceIds, plan) : null;
  const [entityEmbedded, relationshipEmbedded] = await Promise.all([
    embedEntities(deps, scope, carried ? carried.uncarried.entities : [survivor]),
    embedRelationships(deps, scope, carried ? carried.uncarried.relationships : upserts),
  ]);
  const entityPoints = [...(carried?.entities ?? []), ...entityEmbedded];
  const relationshipPoints = [...(carried?.relationships ?? []), ...relationshipEmbedded];

  await graph.upsertEntities(scope, [survivor]);
  await graph.upsertRelationships(scope, upserts);
  await graph.deleteRelationships(scope, [...plan.renamed.keys()]);
  await graph.deleteEntities(scope, sourceIds);
  const affectedChunks = union(...sources.map((s) => s.source_chunk_ids), ...plan.touching.map((r) => r.source_chunk_ids));
  const documentIds = union(survivor.document_ids, ...plan.touching.map((r) => r.document_ids), documentsOfChunks(affectedChunks));
  // Chunk records and counts are shared with merges of other entities the same chunks name: read and written under the documents' keys.
  await deps.entityLocks.run(scope, documentIds.map(documentLinksLockKey), async () => {
    await chunks.setLinks(scope, await rewriteChunks(await chunks.linksOf(scope, affectedChunks), absorbed, targetId, plan.renamed));
    await recountDocuments(deps.stores, scope, documentIds);
  });
  await vectors.delete(scope, 'entity', sourceIds);
  await vectors.upsert(scope, 'entity', entityPoints);
  await vectors.delete(scope, 'relationship', [...plan.renamed.keys()]);
  await vectors.upsert(scope, 'relationship', relationshipPoints);
  await recordMerge(kv, scope, targetId, sourceIds, {
    date: now,
    merged_from: sourceIds,
    reason: input.reason?.trim() || 'merged by an analyst',
  });
  if (input.newTarget) {
    await moveOverride(kv, scope, sourceIds[0], targetId);
    await recordOverride(kv, scope, targetId, { name: survivor.name }, now);
  } else {
    await kv.delete(scope, OVERRIDES_NAMESPACE, sourceIds);
  }
  await bumpGraphVersion(kv, scope);
  deps.events.publish({ scope, changes: mergeChanges(targetId, Boolean(input.newTarget), sourceIds, plan), cause: input.cause ?? 'merge' });

  const outcome: MergeOutcome = {
    entity: survivor,
    merged_from: sourceIds,
    relationships_moved: plan.renamed.size - plan.selfLoops,
    relationships_merged: plan.merged,
    self_loops_dropped: plan.selfLoops,
  };
  return { outcome, stale: carried?.stale ?? { entities: [], relationships: [] } };
}

interface Carried {
  entities: VectorPoint[];
  relationships: VectorPoint[];
  /** The records given a carried vector. */
  stale: StaleRecords;
  /** Those with no vector to carry. */
  uncarried: StaleRecords;
}

/**
 * The survivor keeps its vector (or takes an absorbed entity's); a rewritten relationship keeps the vector of the
 * relationship stored under its id, or takes one of a relationship rewritten into it.
 */
async function carriedPoints(
  deps: GraphDeps,
  scope: Scope,
  survivor: EntityRecord,
  sourceIds: string[],
  plan: RelationshipPlan,
): Promise<Carried> {
  const { vectors } = deps.stores;
  const [entityVectors, relationshipVectors] = await Promise.all([
    vectors.vectorsOf(scope, 'entity', [survivor.id, ...sourceIds]),
    vectors.vectorsOf(scope, 'relationship', union([...plan.upserts.keys()], [...plan.renamed.keys()])),
  ]);
  const out: Carried = {
    entities: [],
    relationships: [],
    stale: { entities: [], relationships: [] },
    uncarried: { entities: [], relationships: [] },
  };
  const entityVector = [survivor.id, ...sourceIds].map((id) => entityVectors.get(id)).find((v) => v !== undefined);
  if (entityVector) {
    out.entities.push({ id: survivor.id, vector: entityVector, document_ids: survivor.document_ids });
    out.stale.entities.push(survivor);
  } else out.uncarried.entities.push(survivor);
  const renamedInto = new Map<string, string[]>();
  for (const [from, to] of plan.renamed) if (to) renamedInto.set(to, [...(renamedInto.get(to) ?? []), from]);
  for (const r of plan.upserts.values()) {
    const vector = [r.id, ...(renamedInto.get(r.id) ?? [])].map((id) => relationshipVectors.get(id)).find((v) => v !== undefined);
    if (vector) {
      out.relationships.push({ id: r.id, vector, document_ids: r.document_ids });
      out.stale.relationships.push(r);
    } else out.uncarried.relationships.push(r);
  }
  return out;
}
