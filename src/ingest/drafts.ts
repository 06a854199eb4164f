import type { EntityRecord, RelationshipRecord } from '../domain/types';
import { distinctFragments, documentsOf, type EntityStatement } from './describe';
import type { ParsedRelation } from './extract/parser';
import { addVotes, entityKey, fragmentKey, type RecordState, relationshipKey, topVote } from './record-state';
import type { SummarySubject } from './summary-prompt';

/**
 * A record's next version before its description is decided (DESIGN.md 5.5). `rebuild*` derives it from
 * the statements of all its source chunks; `accumulate*` adds one document's chunks to the current record
 * and its merge state, and gives the same result without reading the other sources.
 */

export interface Draft<R extends { description: string }> {
  key: string;
  subject: SummarySubject;
  record: R;
  state: RecordState;
  /** The description's parts: the summary in `state.summary` (if any), then the fragments it does not cover. */
  parts: string[];
  /** Keys of every fragment the record stands for: what a new summary covers. */
  keys: string[];
}

export interface EntityEvidence {
  sources: string[];
  statements: EntityStatement[];
  /** Descriptions of the relationships naming the entity in those chunks. */
  relationDescriptions: string[];
}

export interface RelationEvidence {
  sources: string[];
  statements: ParsedRelation[];
}

/** Keeps an earlier summary while every fragment it covers is still there. */
function partsOf(previous: RecordState['summary'] | undefined, fragments: string[]) {
  const keys = fragments.map(fragmentKey);
  const present = new Set(keys);
  if (previous && previous.covered.every((k) => present.has(k))) {
    const covered = new Set(previous.covered);
    return { summary: previous, parts: [previous.text, ...fragments.filter((_, i) => !covered.has(keys[i]))], keys };
  }
  return { summary: null, parts: fragments, keys };
}

/** The current description (as derived, before any override) split into its leading summary (if any) and the keys it stands for. */
function currentParts(description: string, state: RecordState) {
  const parts = description ? description.split('\n') : [];
  const summary = state.summary && parts[0] === state.summary.text ? state.summary : null;
  const known = new Set([...(summary?.covered ?? []), ...parts.slice(summary ? 1 : 0).map(fragmentKey)]);
  return { parts, summary, known };
}

export function rebuildEntity(id: string, ev: EntityEvidence, old: EntityRecord | undefined, previous: RecordState | undefined, now: string): Draft<EntityRecord> {
  const explicit = ev.statements.filter((s) => s.explicit);
  if (ev.statements.length === 0 && old) return keptEntity(old, ev.sources, previous, now);
  const described = distinctFragments(explicit.map((s) => s.description));
  const from_relations = described.length === 0;
  const { summary, parts, keys } = partsOf(previous?.summary, from_relations ? distinctFragments(ev.relationDescriptions) : described);
  const types = addVotes([], explicit.map((s) => s.type).filter((t) => t !== 'UNKNOWN'));
  const names = addVotes([], explicit.filter((s) => !s.aliased).map((s) => s.name));
  const name = topVote(names) ?? ev.statements.find((s) => !s.aliased)?.name ?? old?.name ?? ev.statements[0]?.name ?? id;
  return {
    key: entityKey(id),
    subject: { kind: 'entity', name },
    record: entityRecord(id, name, topVote(types) ?? 'UNKNOWN', ev.sources, old, now),
    state: { types, names, from_relations, summary },
    parts,
    keys,
  };
}

export function accumulateEntity(id: string, own: EntityEvidence, old: EntityRecord | undefined, state: RecordState | undefined, now: string): Draft<EntityRecord> {
  if (!old || !state) return rebuildEntity(id, own, old, state, now);
  const explicit = own.statements.filter((s) => s.explicit);
  const described = distinctFragments(explicit.map((s) => s.description));
  const current = currentParts(state.description ?? old.description, state);
  let parts: string[];
  let keys: string[];
  let summary = current.summary;
  let from_relations = state.from_relations;
  if (from_relations && described.length) {
    // The first description of the entity itself replaces the relationship descriptions.
    [parts, keys, summary, from_relations] = [described, described.map(fragmentKey), null, false];
  } else {
    const added = (from_relations ? distinctFragments(own.relationDescriptions) : described).filter((f) => !current.known.has(fragmentKey(f)));
    parts = [...current.parts, ...added];
    keys = [...current.known, ...added.map(fragmentKey)];
  }
  const types = addVotes(state.types, explicit.map((s) => s.type).filter((t) => t !== 'UNKNOWN'));
  const names = addVotes(state.names, explicit.filter((s) => !s.aliased).map((s) => s.name));
  const name = topVote(names) ?? old.name;
  return {
    key: entityKey(id),
    subject: { kind: 'entity', name },
    record: entityRecord(id, name, topVote(types) ?? 'UNKNOWN', [...old.source_chunk_ids, ...own.sources], old, now),
    state: { types, names, from_relations, summary },
    parts,
    keys,
  };
}

export function rebuildRelationship(
  id: string,
  ev: RelationEvidence,
  old: RelationshipRecord | undefined,
  previous: RecordState | undefined,
  now: string,
): Draft<RelationshipRecord> {
  if (ev.statements.length === 0 && old) return keptRelationship(old, ev.sources, previous, now);
  const { summary, parts, keys } = partsOf(previous?.summary, distinctFragments(ev.statements.map((s) => s.description)));
  const types = addVotes([], ev.statements.map((s) => s.relation_type));
  const [source, target] = ev.statements.length ? [ev.statements[0].source, ev.statements[0].target] : [old?.source ?? '', old?.target ?? ''];
  const keywords = distinctFragments(ev.statements.flatMap((s) => s.keywords));
  return {
    key: relationshipKey(id),
    subject: { kind: 'relationship', name: `${source} - ${target}` },
    record: relationshipRecord(id, source, target, topVote(types) ?? 'RELATED_TO', keywords, ev.sources, old, now),
    state: { types, names: [], from_relations: false, summary },
    parts,
    keys,
  };
}

export function accumulateRelationship(
  id: string,
  own: RelationEvidence,
  old: RelationshipRecord | undefined,
  state: RecordState | undefined,
  now: string,
): Draft<RelationshipRecord> {
  if (!old || !state) return rebuildRelationship(id, own, old, state, now);
  const current = currentParts(old.description, state);
  const added = distinctFragments(own.statements.map((s) => s.description)).filter((f) => !current.known.has(fragmentKey(f)));
  const types = addVotes(state.types, own.statements.map((s) => s.relation_type));
  const keywords = distinctFragments([...old.keywords, ...own.statements.flatMap((s) => s.keywords)]);
  const sources = [...old.source_chunk_ids, ...own.sources];
  return {
    key: relationshipKey(id),
    subject: { kind: 'relationship', name: `${old.source} - ${old.target}` },
    record: relationshipRecord(id, old.source, old.target, topVote(types) ?? 'RELATED_TO', keywords, sources, old, now),
    state: { types, names: [], from_relations: false, summary: current.summary },
    parts: [...current.parts, ...added],
    keys: [...current.known, ...added.map(fragmentKey)],
  };
}

/** Sources whose cached extractions are gone: the record keeps what it said. */
function keptEntity(old: EntityRecord, sources: string[], previous: RecordState | undefined, now: string): Draft<EntityRecord> {
  const state: RecordState = previous
    ? { ...previous }
    : { types: [[old.entity_type, 1]], names: [[old.name, 1]], from_relations: false, summary: null };
  const { parts, known } = currentParts(state.description ?? old.description, state);
  return {
    key: entityKey(old.id),
    subject: { kind: 'entity', name: old.name },
    record: entityRecord(old.id, old.name, old.entity_type, sources, old, now),
    state,
    parts,
    keys: [...known],
  };
}

function keptRelationship(old: RelationshipRecord, sources: string[], previous: RecordState | undefined, now: string): Draft<RelationshipRecord> {
  const state: RecordState = previous
    ? { ...previous }
    : { types: [[old.relation_type, 1]], names: [], from_relations: false, summary: null };
  const { parts, known } = currentParts(old.description, state);
  return {
    key: relationshipKey(old.id),
    subject: { kind: 'relationship', name: `${old.source} - ${old.target}` },
    record: relationshipRecord(old.id, old.source, old.target, old.relation_type, old.keywords, sources, old, now),
    state,
    parts,
    keys: [...known],
  };
}

function entityRecord(id: string, name: string, type: string, sources: string[], old: EntityRecord | undefined, now: string): EntityRecord {
  return {
    id,
    name,
    entity_type: type,
    description: '',
    source_chunk_ids: sources,
    document_ids: documentsOf(sources),
    created_at: old?.created_at ?? now,
    updated_at: now,
  };
}

function relationshipRecord(
  id: string,
  source: string,
  target: string,
  type: string,
  keywords: string[],
  sources: string[],
  old: RelationshipRecord | undefined,
  now: string,
): RelationshipRecord {
  return {
    id,
    source,
    target,
    relation_type: type,
    keywords,
    description: '',
    weight: new Set(sources).size,
    source_chunk_ids: sources,
    document_ids: documentsOf(sources),
    created_at: old?.created_at ?? now,
    updated_at: now,
  };
}
