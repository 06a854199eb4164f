import { documentsOfChunks } from '../../domain/ids';
import type { EntityRecord, RelationshipRecord } from '../../domain/types';
import { distinctFragments, type EntityStatement } from '../extract/describe';
import type { ParsedRelation } from '../extract/parser';
import { addVotes, entityKey, fragmentKey, type RecordState, relationshipKey, topVote } from './record-state';
import type { SummarySubject } from './summary-prompt';

/**
 * A record's next version before its description is decided (docs/architecture.md §5.5). `rebuild*` derives it from
 * the statements of all its source chunks; `accumulate*` adds one document's chunks to the current record
 * and its merge state, and gives the same result without reading the other sources.
 */

export interface Draft<R extends { description: string }> {
  key: string;
  subject: SummarySubject;
  record: R;
  state: RecordState;
  /** The LLM summary heading the description, if any. */
  summary: Summary | null;
  /**
   * Texts of fragments the summary does not cover, oldest first: all of them, or (extending a summarised
   * record) the newest ones its description showed followed by the new ones.
   */
  fragments: string[];
  /** Keys of every fragment the summary does not cover, oldest first. */
  newer: string[];
}

export interface Summary {
  text: string;
  covered: string[];
}

export interface EntityEvidence {
  sources: string[];
  statements: EntityStatement[];
  /** Descriptions of the relationships naming the entity in those chunks. */
  relationDescriptions: string[];
  /** The distinct fragments of both, when already folded (ingest/evidence.ts does it in stretches). */
  distinct?: DistinctFragments;
}

export interface RelationEvidence {
  sources: string[];
  statements: ParsedRelation[];
  /** The distinct fragments of the statements' descriptions, when already folded. */
  distinct?: DistinctFragments;
}

/** `distinctFragments` of the explicit statements' descriptions, and of the relationship descriptions when there are none. */
export interface DistinctFragments {
  descriptions: string[];
  relationDescriptions: string[];
}

/** Keeps an earlier summary while every fragment it covers is still there. */
function partsOf(previous: RecordState['summary'] | undefined, fragments: string[]) {
  const keys = fragments.map(fragmentKey);
  const present = new Set(keys);
  if (previous && previous.covered.every((k) => present.has(k))) {
    const covered = new Set(previous.covered);
    const fresh = fragments.map((_, i) => i).filter((i) => !covered.has(keys[i]));
    return {
      summary: { text: previous.text, covered: previous.covered },
      fragments: fresh.map((i) => fragments[i]),
      newer: fresh.map((i) => keys[i]),
    };
  }
  return { summary: null, fragments, newer: keys };
}

/**
 * The current description (as derived, before any override) split into its leading summary (if any), the
 * fragments it shows after it, the keys of every fragment the summary does not cover, and every key known.
 */
export function currentParts(description: string, state: RecordState) {
  const lines = description ? description.split('\n') : [];
  const summary = state.summary && lines[0] === state.summary.text ? { text: state.summary.text, covered: state.summary.covered } : null;
  const shown = lines.slice(summary ? 1 : 0);
  const shownKeys = shown.map(fragmentKey);
  const newer = (summary && state.summary?.newer) || shownKeys;
  const known = new Set([...(summary?.covered ?? []), ...newer, ...shownKeys]);
  return { summary, shown, newer, known };
}

export function rebuildEntity(
  id: string,
  ev: EntityEvidence,
  old: EntityRecord | undefined,
  previous: RecordState | undefined,
  now: string,
): Draft<EntityRecord> {
  const explicit = ev.statements.filter((s) => s.explicit);
  if (ev.statements.length === 0 && old) return keptEntity(old, ev.sources, previous, now);
  const described = ev.distinct?.descriptions ?? distinctFragments(explicit.map((s) => s.description));
  const from_relations = described.length === 0;
  const fromRelations = () => ev.distinct?.relationDescriptions ?? distinctFragments(ev.relationDescriptions);
  const { summary, fragments, newer } = partsOf(previous?.summary, from_relations ? fromRelations() : described);
  const types = addVotes(
    [],
    explicit.map((s) => s.type).filter((t) => t !== 'UNKNOWN'),
  );
  const names = addVotes(
    [],
    explicit.filter((s) => !s.aliased).map((s) => s.name),
  );
  const name = topVote(names) ?? ev.statements.find((s) => !s.aliased)?.name ?? old?.name ?? ev.statements[0]?.name ?? id;
  return {
    key: entityKey(id),
    subject: { kind: 'entity', name },
    record: entityRecord(id, name, topVote(types) ?? 'UNKNOWN', ev.sources, old, now),
    state: { types, names, from_relations, summary },
    summary,
    fragments,
    newer,
  };
}

export function accumulateEntity(
  id: string,
  own: EntityEvidence,
  old: EntityRecord | undefined,
  state: RecordState | undefined,
  now: string,
): Draft<EntityRecord> {
  if (!old || !state) return rebuildEntity(id, own, old, state, now);
  const explicit = own.statements.filter((s) => s.explicit);
  const described = own.distinct?.descriptions ?? distinctFragments(explicit.map((s) => s.description));
  const current = currentParts(state.description ?? old.description, state);
  let fragments: string[];
  let newer: string[];
  let summary = current.summary;
  let from_relations = state.from_relations;
  if (from_relations && described.length) {
    // The first description of the entity itself replaces the relationship descriptions.
    [fragments, newer, summary, from_relations] = [described, described.map(fragmentKey), null, false];
  } else {
    const added = (from_relations ? (own.distinct?.relationDescriptions ?? distinctFragments(own.relationDescriptions)) : described).filter(
      (f) => !current.known.has(fragmentKey(f)),
    );
    fragments = [...current.shown, ...added];
    newer = [...current.newer, ...added.map(fragmentKey)];
  }
  const types = addVotes(
    state.types,
    explicit.map((s) => s.type).filter((t) => t !== 'UNKNOWN'),
  );
  const names = addVotes(
    state.names,
    explicit.filter((s) => !s.aliased).map((s) => s.name),
  );
  const name = topVote(names) ?? old.name;
  return {
    key: entityKey(id),
    subject: { kind: 'entity', name },
    record: entityRecord(id, name, topVote(types) ?? 'UNKNOWN', [...old.source_chunk_ids, ...own.sources], old, now),
    state: { types, names, from_relations, summary },
    summary,
    fragments,
    newer,
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
  const described = ev.distinct?.descriptions ?? distinctFragments(ev.statements.map((s) => s.description));
  const { summary, fragments, newer } = partsOf(previous?.summary, described);
  const types = addVotes(
    [],
    ev.statements.map((s) => s.relation_type),
  );
  const [source, target] = ev.statements.length
    ? [ev.statements[0].source, ev.statements[0].target]
    : [old?.source ?? '', old?.target ?? ''];
  const keywords = distinctFragments(ev.statements.flatMap((s) => s.keywords));
  return {
    key: relationshipKey(id),
    subject: { kind: 'relationship', name: `${source} - ${target}` },
    record: relationshipRecord(id, source, target, topVote(types) ?? 'RELATED_TO', keywords, ev.sources, old, now),
    state: { types, names: [], from_relations: false, summary },
    summary,
    fragments,
    newer,
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
  const described = own.distinct?.descriptions ?? distinctFragments(own.statements.map((s) => s.description));
  const added = described.filter((f) => !current.known.has(fragmentKey(f)));
  const types = addVotes(
    state.types,
    own.statements.map((s) => s.relation_type),
  );
  const keywords = distinctFragments([...old.keywords, ...own.statements.flatMap((s) => s.keywords)]);
  const sources = [...old.source_chunk_ids, ...own.sources];
  return {
    key: relationshipKey(id),
    subject: { kind: 'relationship', name: `${old.source} - ${old.target}` },
    record: relationshipRecord(id, old.source, old.target, topVote(types) ?? 'RELATED_TO', keywords, sources, old, now),
    state: { types, names: [], from_relations: false, summary: current.summary },
    summary: current.summary,
    fragments: [...current.shown, ...added],
    newer: [...current.newer, ...added.map(fragmentKey)],
  };
}

/** Sources whose cached extractions are gone: the record keeps what it said. */
function keptEntity(old: EntityRecord, sources: string[], previous: RecordState | undefined, now: string): Draft<EntityRecord> {
  const state: RecordState = previous
    ? { ...previous }
    : { types: [[old.entity_type, 1]], names: [[old.name, 1]], from_relations: false, summary: null };
  const { summary, shown, newer } = currentParts(state.description ?? old.description, state);
  return {
    key: entityKey(old.id),
    subject: { kind: 'entity', name: old.name },
    record: entityRecord(old.id, old.name, old.entity_type, sources, old, now),
    state,
    summary,
    fragments: shown,
    newer,
  };
}

function keptRelationship(
  old: RelationshipRecord,
  sources: string[],
  previous: RecordState | undefined,
  now: string,
): Draft<RelationshipRecord> {
  const state: RecordState = previous
    ? { ...previous }
    : { types: [[old.relation_type, 1]], names: [], from_relations: false, summary: null };
  const { summary, shown, newer } = currentParts(old.description, state);
  return {
    key: relationshipKey(old.id),
    subject: { kind: 'relationship', name: `${old.source} - ${old.target}` },
    record: relationshipRecord(old.id, old.source, old.target, old.relation_type, old.keywords, sources, old, now),
    state,
    summary,
    fragments: shown,
    newer,
  };
}

function entityRecord(id: string, name: string, type: string, sources: string[], old: EntityRecord | undefined, now: string): EntityRecord {
  return {
    id,
    name,
    entity_type: type,
    description: '',
    source_chunk_ids: sources,
    document_ids: documentsOfChunks(sources),
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
    document_ids: documentsOfChunks(sources),
    created_at: old?.created_at ?? now,
    updated_at: now,
  };
}
