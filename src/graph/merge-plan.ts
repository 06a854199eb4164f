import { relationshipId } from '../domain/ids';
import type { EntityRecord, RelationshipRecord, Scope, VectorPoint } from '../domain/types';
import { TimeSlicer } from '../domain/turns';
import type { ChunkLinks, GraphStore, VectorStore } from '../store/ports';
import { combineRelationships, union } from './combine';
import type { GraphChange } from './events';

/**
 * What an entity merge writes, planned from what it read under the lock: several survivors at once, each absorbed
 * entity mapped to its survivor (`remap`), so that a relationship between two absorbed entities of different
 * survivors is rewritten once, between the survivors.
 */

/** Records written with the vector of an earlier text, to be embedded again. */
export interface StaleRecords {
  entities: EntityRecord[];
  relationships: RelationshipRecord[];
}

export interface RelationshipPlan {
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

/** Rewrites every relationship of the absorbed entities (`touching`) onto their survivors, folding duplicates. */
export async function planRelationships(
  graph: GraphStore,
  scope: Scope,
  touching: RelationshipRecord[],
  remap: Map<string, string>,
  now: string,
): Promise<RelationshipPlan> {
  const plan: RelationshipPlan = { upserts: new Map(), existing: new Set(), renamed: new Map(), touching, merged: 0, selfLoops: 0 };
  const survivorOf = (id: string) => remap.get(id) ?? id;
  for (const r of touching) {
    const [a, b] = [survivorOf(r.source), survivorOf(r.target)];
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
 * Chunk records point at the survivors and at the rewritten relationships; only changed chunks are written. An
 * entity named all over a large document has thousands: they are rewritten in stretches that give way to I/O.
 */
export async function rewriteChunks(chunks: ChunkLinks[], remap: Map<string, string>, renamed: Map<string, string | null>) {
  const changed: ChunkLinks[] = [];
  const slicer = new TimeSlicer();
  for (const chunk of chunks) {
    await slicer.tick();
    const entityIds = union(chunk.entity_ids.map((id) => remap.get(id) ?? id));
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

/** Survivors first, then the old edges and nodes going, then the rewritten edges arriving. */
export function mergeChanges(
  survivors: Array<{ id: string; isNew: boolean }>,
  absorbedIds: string[],
  plan: RelationshipPlan,
): GraphChange[] {
  const changes: GraphChange[] = survivors.map(({ id, isNew }) => ({ kind: isNew ? 'node_added' : 'node_updated', id }));
  for (const r of plan.touching) changes.push({ kind: 'edge_removed', id: r.id, source: r.source, target: r.target });
  for (const id of absorbedIds) changes.push({ kind: 'node_removed', id });
  for (const r of plan.upserts.values()) {
    changes.push({ kind: plan.existing.has(r.id) ? 'edge_updated' : 'edge_added', id: r.id, source: r.source, target: r.target });
  }
  return changes;
}

export interface Carried {
  entities: VectorPoint[];
  relationships: VectorPoint[];
  /** The records given a carried vector. */
  stale: StaleRecords;
  /** Those with no vector to carry. */
  uncarried: StaleRecords;
}

/**
 * Each survivor keeps its vector (or takes one of the entities it absorbed); a rewritten relationship keeps the
 * vector of the relationship stored under its id, or takes one of a relationship rewritten into it.
 */
export async function carriedPoints(
  vectors: VectorStore,
  scope: Scope,
  survivors: Array<{ survivor: EntityRecord; sourceIds: string[] }>,
  plan: RelationshipPlan,
): Promise<Carried> {
  const [entityVectors, relationshipVectors] = await Promise.all([
    vectors.vectorsOf(
      scope,
      'entity',
      survivors.flatMap((s) => [s.survivor.id, ...s.sourceIds]),
    ),
    vectors.vectorsOf(scope, 'relationship', union([...plan.upserts.keys()], [...plan.renamed.keys()])),
  ]);
  const out: Carried = {
    entities: [],
    relationships: [],
    stale: { entities: [], relationships: [] },
    uncarried: { entities: [], relationships: [] },
  };
  for (const { survivor, sourceIds } of survivors) {
    const vector = [survivor.id, ...sourceIds].map((id) => entityVectors.get(id)).find((v) => v !== undefined);
    if (vector) {
      out.entities.push({ id: survivor.id, vector, document_ids: survivor.document_ids });
      out.stale.entities.push(survivor);
    } else out.uncarried.entities.push(survivor);
  }
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
