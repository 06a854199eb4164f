import type { EntityRecord, RelationshipRecord, Scope } from '../domain/types';
import type { GraphChange } from '../graph/events';
import type { TokenUsage } from '../llm/ports';
import type { Stores } from '../store/ports';
import type { IngestDeps } from './deps';
import {
  type ChunkStatements,
  documentOfChunk,
  documentsOf,
  entityFields,
  relationshipFields,
  statementsOf,
} from './describe';
import { type CachedExtraction, readExtractions } from './extract/cache';
import type { ParsedEntity, ParsedRelation } from './extract/parser';
import { describeAll, deleteSummaries, type DescriptionJob } from './summary-cache';
import type { SummaryPolicy } from './summary';

/**
 * Merging a document into the graph (DESIGN.md 5.5). Every entity and relationship the document touches
 * (now or before) is rebuilt from the cached extractions of its source chunks: the other documents' chunks
 * it already had plus this document's contributing chunks. Weight is the number of distinct source chunks,
 * so re-running a document never double counts; a record left without sources is deleted. Deletion is
 * the same merge with no contributions. The caller holds the entity lock of `affectedEntityIds`.
 */

export interface Contribution {
  chunkId: string;
  extraction: { entities: ParsedEntity[]; relations: ParsedRelation[] };
}

export interface MergeOutcome {
  /** Ids this document contributes, for its counts. */
  entityIds: string[];
  relationshipIds: string[];
  /** Records written whose embedding text or document set changed (or that are new). */
  reembed: { entities: EntityRecord[]; relationships: RelationshipRecord[] };
  removed: { entities: string[]; relationships: RelationshipRecord[] };
  changes: GraphChange[];
  llm_calls: number;
  usage: TokenUsage;
  /** Summaries that failed and fell back to the joined fragments. */
  summaryFailures: string[];
}

/** Entities whose records a merge of these contributions may rewrite (to lock before merging). */
export async function affectedEntityIds(stores: Stores, scope: Scope, documentId: string, contributions: Contribution[]): Promise<string[]> {
  const ids = new Set((await stores.graph.entitiesOfDocument(scope, documentId)).map((e) => e.id));
  for (const c of contributions) for (const id of statementsOf(c.extraction).entities.keys()) ids.add(id);
  return [...ids];
}

export async function mergeDocument(
  deps: Pick<IngestDeps, 'stores'>,
  scope: Scope,
  documentId: string,
  contributions: Contribution[],
  policy: SummaryPolicy,
): Promise<MergeOutcome> {
  const { graph, kv } = deps.stores;
  const statements = new Map<string, ChunkStatements>();
  const ownEntities = new Map<string, string[]>();
  const ownRelations = new Map<string, string[]>();
  for (const c of contributions) {
    const s = statementsOf(c.extraction);
    statements.set(c.chunkId, s);
    for (const id of s.entities.keys()) push(ownEntities, id, c.chunkId);
    for (const id of s.relations.keys()) push(ownRelations, id, c.chunkId);
  }

  const [previousEntities, previousRelations] = await Promise.all([
    graph.entitiesOfDocument(scope, documentId),
    graph.relationshipsOfDocument(scope, documentId),
  ]);
  const entityIds = union(previousEntities.map((e) => e.id), ownEntities.keys());
  const relationIds = union(previousRelations.map((r) => r.id), ownRelations.keys());
  const [existingEntities, existingRelations] = await Promise.all([
    graph.getEntities(scope, entityIds),
    graph.getRelationships(scope, relationIds),
  ]);
  const oldEntity = new Map(existingEntities.map((e) => [e.id, e]));
  const oldRelation = new Map(existingRelations.map((r) => [r.id, r]));

  const others = (sources: string[] | undefined) => (sources ?? []).filter((c) => documentOfChunk(c) !== documentId);
  const entitySources = new Map(entityIds.map((id) => [id, [...others(oldEntity.get(id)?.source_chunk_ids), ...(ownEntities.get(id) ?? [])]]));
  const relationSources = new Map(
    relationIds.map((id) => [id, [...others(oldRelation.get(id)?.source_chunk_ids), ...(ownRelations.get(id) ?? [])]]),
  );
  const otherChunks = union(...[...entitySources.values(), ...relationSources.values()].map(others));
  const cached = await readExtractions(kv, scope, otherChunks);
  const statementsOfChunk = (chunkId: string): ChunkStatements | undefined => {
    let s = statements.get(chunkId);
    const entry: CachedExtraction | undefined = cached.get(chunkId);
    if (!s && entry) statements.set(chunkId, (s = statementsOf(entry)));
    return s;
  };

  const now = new Date().toISOString();
  const entityJobs: Array<DescriptionJob<EntityRecord>> = [];
  for (const [id, sources] of entitySources) {
    if (sources.length === 0) continue;
    const said = sources.map((c) => statementsOfChunk(c)?.entities.get(id)).filter((s) => s !== undefined);
    const old = oldEntity.get(id);
    const relationDescriptions = sources.flatMap((c) =>
      [...(statementsOfChunk(c)?.relations.values() ?? [])].filter((r) => r.source === id || r.target === id).map((r) => r.description),
    );
    // Without any cached statement (entries lost), keep what the record said.
    const fields = said.length || !old ? entityFields(said, relationDescriptions) : { name: old.name, entity_type: old.entity_type, fragments: [old.description] };
    const record: EntityRecord = {
      id,
      name: fields.name || old?.name || id,
      entity_type: fields.entity_type,
      description: '',
      source_chunk_ids: sources,
      document_ids: documentsOf(sources),
      created_at: old?.created_at ?? now,
      updated_at: now,
    };
    entityJobs.push({ key: `entity:${id}`, subject: { kind: 'entity', name: record.name }, fragments: fields.fragments, record });
  }
  const relationJobs: Array<DescriptionJob<RelationshipRecord>> = [];
  for (const [id, sources] of relationSources) {
    if (sources.length === 0) continue;
    const said = sources.map((c) => statementsOfChunk(c)?.relations.get(id)).filter((s) => s !== undefined);
    const old = oldRelation.get(id);
    const fields = said.length || !old ? relationshipFields(said) : { relation_type: old.relation_type, keywords: old.keywords, fragments: [old.description] };
    const record: RelationshipRecord = {
      id,
      source: said[0]?.source ?? old?.source ?? '',
      target: said[0]?.target ?? old?.target ?? '',
      relation_type: fields.relation_type,
      keywords: fields.keywords,
      description: '',
      weight: new Set(sources).size,
      source_chunk_ids: sources,
      document_ids: documentsOf(sources),
      created_at: old?.created_at ?? now,
      updated_at: now,
    };
    relationJobs.push({ key: `relationship:${id}`, subject: { kind: 'relationship', name: `${record.source} - ${record.target}` }, fragments: fields.fragments, record });
  }

  const described = await describeAll(kv, scope, [...entityJobs, ...relationJobs], policy);
  const entities = entityJobs.map((j) => j.record).filter((e) => changedEntity(oldEntity.get(e.id), e));
  const relationships = relationJobs.map((j) => j.record).filter((r) => changedRelationship(oldRelation.get(r.id), r));
  const removedEntities = entityIds.filter((id) => entitySources.get(id)?.length === 0 && oldEntity.has(id));
  const removedRelations = relationIds.filter((id) => relationSources.get(id)?.length === 0 && oldRelation.has(id)).map((id) => oldRelation.get(id) as RelationshipRecord);

  await graph.upsertEntities(scope, entities);
  await graph.upsertRelationships(scope, relationships);
  await graph.deleteRelationships(scope, removedRelations.map((r) => r.id));
  await graph.deleteEntities(scope, removedEntities);
  await deleteSummaries(kv, scope, [...removedEntities.map((id) => `entity:${id}`), ...removedRelations.map((r) => `relationship:${r.id}`)]);

  const changes: GraphChange[] = [
    ...entities.map((e): GraphChange => ({ kind: oldEntity.has(e.id) ? 'node_updated' : 'node_added', id: e.id })),
    ...relationships.map((r): GraphChange => ({ kind: oldRelation.has(r.id) ? 'edge_updated' : 'edge_added', id: r.id, source: r.source, target: r.target })),
    ...removedRelations.map((r): GraphChange => ({ kind: 'edge_removed', id: r.id, source: r.source, target: r.target })),
    ...removedEntities.map((id): GraphChange => ({ kind: 'node_removed', id })),
  ];
  return {
    entityIds: [...ownEntities.keys()],
    relationshipIds: [...ownRelations.keys()],
    reembed: {
      entities: entities.filter((e) => embeddingChanged(oldEntity.get(e.id), e, entityText)),
      relationships: relationships.filter((r) => embeddingChanged(oldRelation.get(r.id), r, relationshipText)),
    },
    removed: { entities: removedEntities, relationships: removedRelations },
    changes,
    llm_calls: described.llm_calls,
    usage: described.usage,
    summaryFailures: described.failures,
  };
}

/** Text embedded for an entity. */
export function entityText(e: Pick<EntityRecord, 'name' | 'description'>): string {
  return `${e.name}: ${e.description}`;
}

/** Text embedded for a relationship. */
export function relationshipText(r: Pick<RelationshipRecord, 'keywords' | 'source' | 'target' | 'description'>): string {
  return `${r.keywords.join(', ')}\n${r.source} - ${r.target}\n${r.description}`;
}

function embeddingChanged<T extends { document_ids: string[] }>(old: T | undefined, next: T, text: (r: T) => string): boolean {
  return !old || text(old) !== text(next) || !sameList(old.document_ids, next.document_ids);
}

function changedEntity(old: EntityRecord | undefined, e: EntityRecord): boolean {
  return (
    !old ||
    old.name !== e.name ||
    old.entity_type !== e.entity_type ||
    old.description !== e.description ||
    !sameList(old.source_chunk_ids, e.source_chunk_ids)
  );
}

function changedRelationship(old: RelationshipRecord | undefined, r: RelationshipRecord): boolean {
  return (
    !old ||
    old.relation_type !== r.relation_type ||
    old.description !== r.description ||
    old.weight !== r.weight ||
    !sameList(old.keywords, r.keywords) ||
    !sameList(old.source_chunk_ids, r.source_chunk_ids)
  );
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function push(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function union(...lists: Iterable<string>[]): string[] {
  const out = new Set<string>();
  for (const list of lists) for (const x of list) out.add(x);
  return [...out];
}
