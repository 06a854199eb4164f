import { isChunkOf } from '../../domain/ids';
import type { EntityRecord, RelationshipRecord, Scope } from '../../domain/types';
import { filterInSlices, mapInSlices, TimeSlicer } from '../../domain/turns';
import type { GraphChange } from '../../graph/events';
import type { Stores } from '../../store/ports';
import { applyOverrides, statementsUnderAliases } from './aliases';
import { describeDraft, keepDescription, summaryDue } from './descriptions';
import { statementsOf } from '../extract/describe';
import { accumulateEntity, accumulateRelationship, type Draft, rebuildEntity, rebuildRelationship } from './drafts';
import { entityEvidence, relationEvidence, sourceStatements } from './evidence';
import type { ParsedEntity, ParsedRelation } from '../extract/parser';
import { changedEntity, changedRelationship, embeddingChanged, entityText, relationshipText } from './record-diff';
import {
  deleteStates,
  entityKey,
  MERGE_STATE_NAMESPACE,
  readStates,
  recordFingerprint,
  type RecordState,
  relationshipKey,
  writeStates,
} from './record-state';
import { policyFor, type SummaryPolicy } from './summary';
import type { MergeOutcome } from './merge-outcome';
import type { MergeStores, MergeView } from './merge-view';
import { ALIASES_NAMESPACE, OVERRIDES_NAMESPACE } from '../../graph/aliases';
import { summaryJob } from './summary-stage';

export type { MergeOutcome };

export { entityText, relationshipText };

/**
 * Merging a document into the graph (docs/architecture.md §5.5), batched per document. A record the document is new
 * to is extended with the document's chunks (sources, votes, keywords, description parts). A record that
 * already lists the document (a rerun), or has no merge state, is rebuilt from the cached extractions of
 * all its source chunks: the other documents' plus this one's. Weight is the number of distinct source
 * chunks, so rerunning a document never double counts; a record left without sources is deleted, so
 * deletion is this merge with no contributions. A record an analyst changed since its last merge (its
 * fingerprint differs from its merge state's) is rebuilt too. Statements are read under the ids analysts
 * merged their names into, and hand-set fields are applied last (./aliases).
 * `commitMerge` makes no LLM call: the caller holds the entity lock of `affectedEntityIds` and the survivors
 * they go by (withAliasedEntityLock) only for it, and writes the summaries it found due afterwards
 * (./summary-stage.ts).
 */

export interface Contribution {
  chunkId: string;
  extraction: { entities: ParsedEntity[]; relations: ParsedRelation[] };
}

/**
 * Entities whose records a merge of these contributions may rewrite (to lock before merging); `outOfGraph` when the
 * graph is known to hold nothing of the document.
 */
export async function affectedEntityIds(
  stores: Stores,
  scope: Scope,
  documentId: string,
  contributions: Contribution[],
  outOfGraph = false,
): Promise<string[]> {
  const ids = new Set(outOfGraph ? [] : (await stores.graph.entitiesOfDocument(scope, documentId)).map((e) => e.id));
  const slicer = new TimeSlicer();
  for (const c of contributions) {
    await slicer.tick();
    for (const id of statementsOf(c.extraction).entities.keys()) ids.add(id);
  }
  return [...ids];
}

/**
 * Reads into a batch's view, all at once, what the merges of these contributions read first (the records and
 * merge states of what they name, the entities' aliases and hand-set fields, the records listing each document),
 * so that each merge of the batch does not wait for its own reads in turn. Ids are taken as extracted; a name an
 * analyst merged away is read under its survivor by the merge itself.
 */
export async function prefetchMerges(
  view: MergeView,
  scope: Scope,
  merges: Array<{ documentId: string; contributions: Contribution[]; outOfGraph?: boolean }>,
): Promise<void> {
  const entityIds = new Set<string>();
  const relationIds = new Set<string>();
  const slicer = new TimeSlicer();
  for (const merge of merges)
    for (const c of merge.contributions) {
      await slicer.tick();
      for (const e of c.extraction.entities) entityIds.add(e.id);
      for (const r of c.extraction.relations) {
        entityIds.add(r.source).add(r.target);
        relationIds.add(r.id);
      }
    }
  const entities = [...entityIds];
  const relations = [...relationIds];
  await view.prefetch({
    documents: merges.filter((m) => !m.outOfGraph).map((m) => m.documentId),
    entities,
    relationships: relations,
    values: {
      [MERGE_STATE_NAMESPACE]: [...entities.map(entityKey), ...relations.map(relationshipKey)],
      [ALIASES_NAMESPACE]: entities,
      [OVERRIDES_NAMESPACE]: entities,
    },
  });
}

/**
 * The read-modify-write of a merge, descriptions joined; summaries due are listed in `due`. With `outOfGraph`, the
 * graph is known to hold nothing of the document, and what it held is not read.
 */
export async function commitMerge(
  deps: { stores: MergeStores },
  scope: Scope,
  documentId: string,
  contributions: Contribution[],
  policy: SummaryPolicy,
  outOfGraph = false,
): Promise<MergeOutcome> {
  const { graph, kv } = deps.stores;
  // A large document merges thousands of records: the work yields the event loop every few milliseconds.
  const slicer = new TimeSlicer();
  const own = await statementsUnderAliases(
    kv,
    scope,
    contributions.map((c) => [c.chunkId, c.extraction]),
  );
  const statements = new Map(own.statements);
  const ownEntities = new Map<string, string[]>();
  const ownRelations = new Map<string, string[]>();
  for (const [chunkId, said] of own.statements) {
    await slicer.tick();
    for (const id of said.entities.keys()) push(ownEntities, id, chunkId);
    for (const id of said.relations.keys()) push(ownRelations, id, chunkId);
  }

  const [previousEntities, previousRelations] = outOfGraph
    ? [[], []]
    : await Promise.all([graph.entitiesOfDocument(scope, documentId), graph.relationshipsOfDocument(scope, documentId)]);
  const entityIds = union(
    previousEntities.map((e) => e.id),
    ownEntities.keys(),
  );
  const relationIds = union(
    previousRelations.map((r) => r.id),
    ownRelations.keys(),
  );
  const [existingEntities, existingRelations, states] = await Promise.all([
    graph.getEntities(scope, entityIds),
    graph.getRelationships(scope, relationIds),
    readStates(kv, scope, [...entityIds.map(entityKey), ...relationIds.map(relationshipKey)]),
  ]);
  const oldEntity = new Map(existingEntities.map((e) => [e.id, e]));
  const oldRelation = new Map(existingRelations.map((r) => [r.id, r]));

  // Records to rebuild from all their sources, and the other documents' chunks that takes.
  const others = (sources: string[]) => sources.filter((c) => !isChunkOf(c, documentId));
  const needsRebuild = (old: EntityRecord | RelationshipRecord | undefined, key: string) =>
    !!old && (others(old.source_chunk_ids).length !== old.source_chunk_ids.length || states.get(key)?.written !== recordFingerprint(old));
  const rebuildEntities = new Set(await filterInSlices(entityIds, (id) => needsRebuild(oldEntity.get(id), entityKey(id)), slicer));
  const rebuildRelations = new Set(
    await filterInSlices(relationIds, (id) => needsRebuild(oldRelation.get(id), relationshipKey(id)), slicer),
  );
  const otherChunks = union(
    ...[...rebuildEntities].map((id) => others(oldEntity.get(id)?.source_chunk_ids ?? [])),
    ...[...rebuildRelations].map((id) => others(oldRelation.get(id)?.source_chunk_ids ?? [])),
  );
  const read = await sourceStatements(kv, scope, otherChunks);
  for (const [chunkId, said] of read.statements) statements.set(chunkId, said);

  const now = new Date().toISOString();
  const common = { others, states, now, slicer };
  const { drafts: entityDrafts, removed: goneEntities } = await draftRecords(entityIds, {
    key: entityKey,
    old: oldEntity,
    own: ownEntities,
    rebuild: rebuildEntities,
    evidence: (id, sources) => entityEvidence(statements, id, sources, slicer),
    accumulate: accumulateEntity,
    rebuilt: rebuildEntity,
    ...common,
  });
  const removedEntities = goneEntities.map((e) => e.id);
  const { drafts: relationDrafts, removed: removedRelations } = await draftRecords(relationIds, {
    key: relationshipKey,
    old: oldRelation,
    own: ownRelations,
    rebuild: rebuildRelations,
    evidence: (id, sources) => relationEvidence(statements, id, sources, slicer),
    accumulate: accumulateRelationship,
    rebuilt: rebuildRelationship,
    ...common,
  });

  const relationPolicy = policyFor(policy, 'relationship');
  await mapInSlices(entityDrafts, (draft) => describeDraft(draft, policy), slicer);
  await mapInSlices(relationDrafts, (draft) => describeDraft(draft, relationPolicy), slicer);
  for (const draft of entityDrafts) keepDescription(draft, oldEntity.get(draft.record.id));
  for (const draft of relationDrafts) keepDescription(draft, oldRelation.get(draft.record.id));
  const due = [
    ...(await filterInSlices(entityDrafts, (d) => summaryDue(d, policy), slicer)).map((d) => summaryJob('entity', d, [d.record.id])),
    ...(await filterInSlices(relationDrafts, (d) => summaryDue(d, relationPolicy), slicer)).map((d) =>
      summaryJob('relationship', d, [d.record.source, d.record.target]),
    ),
  ];
  await applyOverrides(kv, scope, entityDrafts);
  const entities = await filterInSlices(entityDrafts, (d) => changedEntity(oldEntity.get(d.record.id), d.record), slicer);
  const relationships = await filterInSlices(relationDrafts, (d) => changedRelationship(oldRelation.get(d.record.id), d.record), slicer);
  const changed = new Set([...entities, ...relationships].map((d) => d.key));
  // A state is written with the fingerprint of the record as stored after this merge, when either changed.
  const stamp = (d: Draft<EntityRecord | RelationshipRecord>, old: EntityRecord | RelationshipRecord | undefined) => {
    d.state.written = recordFingerprint(changed.has(d.key) || !old ? d.record : old);
    return changed.has(d.key) || states.get(d.key)?.written !== d.state.written;
  };
  const statesToWrite = [
    ...(await filterInSlices(entityDrafts, (d) => stamp(d, oldEntity.get(d.record.id)), slicer)),
    ...(await filterInSlices(relationDrafts, (d) => stamp(d, oldRelation.get(d.record.id)), slicer)),
  ];

  await graph.upsertEntities(
    scope,
    entities.map((d) => d.record),
  );
  await graph.upsertRelationships(
    scope,
    relationships.map((d) => d.record),
  );
  await graph.deleteRelationships(
    scope,
    removedRelations.map((r) => r.id),
  );
  await graph.deleteEntities(scope, removedEntities);
  await writeStates(
    kv,
    scope,
    statesToWrite.map((d) => [d.key, d.state]),
  );
  await deleteStates(kv, scope, [
    ...removedEntities.map(entityKey),
    ...removedRelations.map((r) => relationshipKey(r.id)),
    ...union(own.formerKeys, read.formerKeys),
  ]);

  const changes: GraphChange[] = [
    ...entities.map(({ record: e }): GraphChange => ({ kind: oldEntity.has(e.id) ? 'node_updated' : 'node_added', id: e.id })),
    ...relationships.map(({ record: r }): GraphChange => ({
      kind: oldRelation.has(r.id) ? 'edge_updated' : 'edge_added',
      id: r.id,
      source: r.source,
      target: r.target,
    })),
    ...removedRelations.map((r): GraphChange => ({ kind: 'edge_removed', id: r.id, source: r.source, target: r.target })),
    ...removedEntities.map((id): GraphChange => ({ kind: 'node_removed', id })),
  ];
  return {
    entityIds: [...ownEntities.keys()],
    relationshipIds: [...ownRelations.keys()],
    chunks: new Map(
      [...own.statements].map(([chunkId, said]) => [
        chunkId,
        { entity_ids: [...said.entities.keys()], relationship_ids: [...said.relations.keys()] },
      ]),
    ),
    reembed: {
      entities: await filterInSlices(
        entities.map((d) => d.record),
        (e) => embeddingChanged(oldEntity.get(e.id), e, entityText),
        slicer,
      ),
      relationships: await filterInSlices(
        relationships.map((d) => d.record),
        (r) => embeddingChanged(oldRelation.get(r.id), r, relationshipText),
        slicer,
      ),
    },
    existing: new Set([...entities, ...relationships].map((d) => d.record.id).filter((id) => oldEntity.has(id) || oldRelation.has(id))),
    removed: { entities: removedEntities, relationships: removedRelations },
    changes,
    due,
    llm_calls: 0,
    usage: { input_tokens: 0, output_tokens: 0 },
    summaryFailures: [],
  };
}

/** How the records of one kind are drafted: their state keys, stored records, own sources and draft builders. */
interface DraftKind<R extends EntityRecord | RelationshipRecord, E> {
  key: (id: string) => string;
  old: Map<string, R>;
  own: Map<string, string[]>;
  /** Ids to rebuild from all their sources; the others are extended with the document's own. */
  rebuild: Set<string>;
  evidence: (id: string, sources: string[]) => Promise<E>;
  accumulate: (id: string, ev: E, old: R | undefined, state: RecordState | undefined, now: string) => Draft<R>;
  rebuilt: (id: string, ev: E, old: R | undefined, state: RecordState | undefined, now: string) => Draft<R>;
  /** The sources of other documents among a record's. */
  others: (sources: string[]) => string[];
  states: Map<string, RecordState>;
  now: string;
  slicer: TimeSlicer;
}

/** The drafts of these records, and the stored ones a rebuild leaves without sources (to delete). */
async function draftRecords<R extends EntityRecord | RelationshipRecord, E>(
  ids: string[],
  kind: DraftKind<R, E>,
): Promise<{ drafts: Array<Draft<R>>; removed: R[] }> {
  const drafts: Array<Draft<R>> = [];
  const removed: R[] = [];
  for (const id of ids) {
    await kind.slicer.tick();
    const old = kind.old.get(id);
    const own = kind.own.get(id) ?? [];
    const state = kind.states.get(kind.key(id));
    if (!kind.rebuild.has(id)) drafts.push(kind.accumulate(id, await kind.evidence(id, own), old, state, kind.now));
    else {
      const sources = [...kind.others(old?.source_chunk_ids ?? []), ...own];
      if (sources.length) drafts.push(kind.rebuilt(id, await kind.evidence(id, sources), old, state, kind.now));
      else if (old) removed.push(old);
    }
  }
  return { drafts, removed };
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
