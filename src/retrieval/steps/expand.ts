import { firstK } from '../../domain/first-k';
import type { EntityRecord, RelationshipRecord, Scope } from '../../domain/types';
import type { Stores } from '../../store/ports';
import { byAroundRank } from '../../store/around-order';
import { entitiesWithin, relationshipsAround, sourceBounds, withLatestSources } from '../../store/retrieval-reads';
import type { RetrievalRecipe } from '../recipes';
import type { RetrievalLimits, ScoredEntity, ScoredRelationship } from '../types';
import { isAllowed } from './filter';
import { type EntitySurroundings, type RelationshipEnds, SOURCES_PER_RECORD } from './search';

export interface GraphSelection {
  entities: ScoredEntity[];
  relationships: ScoredRelationship[];
}

type Allowed = Set<string> | null;

/** The sources `searchOptions` keeps, for the records a step reads from the graph store itself. */
const latestSources = (allowed: Allowed) => sourceBounds(SOURCES_PER_RECORD, allowed !== null);

const NO_SELECTION: GraphSelection = { entities: [], relationships: [] };

/**
 * The entities and relationships a recipe keeps from the vector hits: expanded locally (from entities),
 * globally (from relationships) or both (interleaved), or taken as found when the recipe does not expand.
 */
export async function selectFromGraph(
  stores: Stores,
  scope: Scope,
  recipe: RetrievalRecipe,
  entityHits: ScoredEntity[],
  relationshipHits: ScoredRelationship[],
  limits: RetrievalLimits,
  allowed: Allowed,
  read: { surroundings?: EntitySurroundings | null; ends?: RelationshipEnds | null } = {},
): Promise<GraphSelection> {
  if (!recipe.graphExpansion) {
    if (entityHits.length === 0 && relationshipHits.length === 0) return NO_SELECTION;
    return withoutExpansion(stores, scope, entityHits, relationshipHits, limits);
  }
  const [local, global] = await Promise.all([
    recipe.entitySearch ? expandFromEntities(stores, scope, entityHits, limits, allowed, read.surroundings) : null,
    recipe.relationshipSearch ? expandFromRelationships(stores, scope, relationshipHits, limits, allowed, read.ends) : null,
  ]);
  return local && global ? interleaveSelections(local, global, limits) : (local ?? global ?? NO_SELECTION);
}

/** Neighbours reached through a relationship score less than the entity that reached them. */
const NEIGHBOUR_DECAY = 0.5;

/**
 * Local expansion: the seed entities bring the relationships touching them (ranked by how many seeds they
 * join, then by the degree of their endpoints, then weight) and, when room is left, the neighbours at the
 * other end of those relationships (ranked by the seed that reached them, then by degree). `surroundings`, when
 * read with the seeds, holds at least their relationships and the degrees of every end point.
 */
export async function expandFromEntities(
  stores: Stores,
  scope: Scope,
  seeds: ScoredEntity[],
  limits: RetrievalLimits,
  allowed: Allowed,
  surroundings?: EntitySurroundings | null,
): Promise<GraphSelection> {
  if (seeds.length === 0) return { entities: [], relationships: [] };
  const bounds = latestSources(allowed);
  const seedScore = new Map(seeds.map((s) => [s.record.id, s.score]));
  const touches = (r: RelationshipRecord) => seedScore.has(r.source) || seedScore.has(r.target);
  const touching = (
    surroundings
      ? surroundings.relationships.filter(touches).map((r) => withLatestSources(r, bounds))
      : await relationshipsAround(stores.graph, scope, [...seedScore.keys()], bounds)
  ).filter((r) => isAllowed(allowed, r.document_ids));
  const endpointIds = new Set<string>(seedScore.keys());
  for (const r of touching) endpointIds.add(r.source).add(r.target);
  const degree = surroundings ? surroundings.degrees : await stores.graph.degrees(scope, [...endpointIds]);
  const degreeOf = (id: string) => degree.get(id) ?? 0;

  const ranked = firstK(
    touching.map((record) => ({
      record,
      score: Math.max(seedScore.get(record.source) ?? 0, seedScore.get(record.target) ?? 0),
      joined: Number(seedScore.has(record.source)) + Number(seedScore.has(record.target)),
      rank: degreeOf(record.source) + degreeOf(record.target),
      weight: record.weight,
    })),
    limits.maxRelationships,
    (a, b) => byAroundRank(a, b) || compare(a.record.id, b.record.id),
  );

  const entities: ScoredEntity[] = seeds.slice(0, limits.maxEntities).map((s) => ({ ...s, degree: degreeOf(s.record.id) }));
  const room = limits.maxEntities - entities.length;
  if (room > 0) entities.push(...(await neighboursOf(stores, scope, ranked, seedScore, degreeOf, room, allowed)));
  return { entities, relationships: ranked.map(({ record, score }) => ({ record, score })) };
}

async function neighboursOf(
  stores: Stores,
  scope: Scope,
  relationships: ReadonlyArray<{ record: RelationshipRecord }>,
  seedScore: Map<string, number>,
  degreeOf: (id: string) => number,
  room: number,
  allowed: Allowed,
): Promise<ScoredEntity[]> {
  const reachedBy = new Map<string, number>();
  for (const { record } of relationships) {
    for (const [end, other] of [
      [record.source, record.target],
      [record.target, record.source],
    ]) {
      if (seedScore.has(end)) continue;
      const via = seedScore.get(other) ?? 0;
      reachedBy.set(end, Math.max(reachedBy.get(end) ?? 0, via));
    }
  }
  const ordered = firstK(
    reachedBy.keys(),
    room * 2,
    (a, b) => (reachedBy.get(b) as number) - (reachedBy.get(a) as number) || degreeOf(b) - degreeOf(a) || compare(a, b),
  );
  // Bounded: a neighbour may be a hub citing a large part of the corpus.
  const records = await entitiesWithin(stores.graph, scope, ordered, latestSources(allowed));
  return records
    .filter((r) => isAllowed(allowed, r.document_ids))
    .slice(0, room)
    .map((record) => ({
      record,
      score: (reachedBy.get(record.id) ?? 0) * NEIGHBOUR_DECAY,
      degree: degreeOf(record.id),
    }));
}

/**
 * Global expansion: the seed relationships bring their endpoint entities, in the order of the relationships.
 * `ends`, when read with the seeds, holds at least those entities (stored ones) and their degrees.
 */
export async function expandFromRelationships(
  stores: Stores,
  scope: Scope,
  seeds: ScoredRelationship[],
  limits: RetrievalLimits,
  allowed: Allowed,
  ends?: RelationshipEnds | null,
): Promise<GraphSelection> {
  const relationships = seeds.slice(0, limits.maxRelationships);
  const scoreOf = new Map<string, number>();
  for (const { record, score } of relationships) {
    for (const end of [record.source, record.target]) if (!scoreOf.has(end)) scoreOf.set(end, score);
  }
  const ids = [...scoreOf.keys()];
  const bounds = latestSources(allowed);
  const records: EntityRecord[] = ends
    ? inOrder(ids, ends.entities).map((r) => withLatestSources(r, bounds))
    : await entitiesWithin(stores.graph, scope, ids, bounds);
  const kept = records.filter((r) => isAllowed(allowed, r.document_ids)).slice(0, limits.maxEntities);
  const degree = ends
    ? ends.degrees
    : kept.length
      ? await stores.graph.degrees(
          scope,
          kept.map((r) => r.id),
        )
      : new Map<string, number>();
  const entities = kept.map((record) => ({
    record,
    score: scoreOf.get(record.id) ?? 0,
    degree: degree.get(record.id) ?? 0,
  }));
  return { entities, relationships };
}

/** Seeds as found, with their degrees, when a recipe does not expand. */
export async function withoutExpansion(
  stores: Stores,
  scope: Scope,
  entities: ScoredEntity[],
  relationships: ScoredRelationship[],
  limits: RetrievalLimits,
): Promise<GraphSelection> {
  const kept = entities.slice(0, limits.maxEntities);
  const degree = kept.length
    ? await stores.graph.degrees(
        scope,
        kept.map((e) => e.record.id),
      )
    : new Map<string, number>();
  return {
    entities: kept.map((e) => ({ ...e, degree: degree.get(e.record.id) ?? 0 })),
    relationships: relationships.slice(0, limits.maxRelationships),
  };
}

/** Hybrid: alternate between the two selections so that neither side crowds the other out. */
export function interleaveSelections(a: GraphSelection, b: GraphSelection, limits: RetrievalLimits): GraphSelection {
  return {
    entities: interleave(a.entities, b.entities, (e) => e.record.id, limits.maxEntities),
    relationships: interleave(a.relationships, b.relationships, (r) => r.record.id, limits.maxRelationships),
  };
}

export function interleave<T>(a: readonly T[], b: readonly T[], key: (item: T) => string, limit: number): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (let i = 0; out.length < limit && (i < a.length || i < b.length); i++) {
    for (const item of [a[i], b[i]]) {
      if (item === undefined || out.length >= limit) continue;
      const id = key(item);
      if (!seen.has(id)) {
        seen.add(id);
        out.push(item);
      }
    }
  }
  return out;
}

/** The records of `ids` in that order, unknown ids skipped (as `GraphStore.getEntities` answers). */
function inOrder(ids: string[], records: EntityRecord[]): EntityRecord[] {
  const byId = new Map(records.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
