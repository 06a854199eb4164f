import type { DocumentGraphCounts } from '../../store/ports';
import type { EntityRecord, RelationshipRecord } from '../../domain/types';
import type { GraphChange } from '../../graph/events';
import type { TokenUsage } from '../../llm/ports';
import type { Summary } from './drafts';
import type { SummarySubject } from './summary-prompt';

/** What a document's merge produced, and the summaries it left due: the contract between the merge and summary stages. */

export interface SummaryJob {
  kind: 'entity' | 'relationship';
  id: string;
  key: string;
  subject: SummarySubject;
  summary: Summary | null;
  fragments: string[];
  newer: string[];
  /** Entities whose lock covers the record: itself, or a relationship's endpoints. */
  lockIds: string[];
}

export interface MergeOutcome {
  /** Ids this document contributes, for its counts. */
  entityIds: string[];
  relationshipIds: string[];
  /** The entity and relationship ids each contributed chunk names, for its chunk record. */
  chunks: Map<string, { entity_ids: string[]; relationship_ids: string[] }>;
  /** Records written whose embedding text or document set changed (or that are new), as last written. */
  reembed: { entities: EntityRecord[]; relationships: RelationshipRecord[] };
  /** Ids of the records to re-embed that existed before the merge (they have a vector already). */
  existing: Set<string>;
  removed: { entities: string[]; relationships: RelationshipRecord[] };
  changes: GraphChange[];
  /** Records whose description is due for an LLM summary, written after the commit. */
  due: SummaryJob[];
  llm_calls: number;
  usage: TokenUsage;
  /** Records given an LLM summary after the commit (set by the merge stage). */
  summarised?: number;
  /** Summaries that failed and fell back to the joined fragments. */
  summaryFailures: string[];
  /** The document's counts, when its chunk records were written with the merge (./chunk-links.ts). */
  counts?: DocumentCounts;
  /** Vectors of the entities the merge embedded before it returned (set by the merge stage), for entity resolution. */
  entityVectors?: Map<string, number[]>;
  /** Relationships new to the graph left unembedded for entity resolution (merge stage option `holdForResolution`). */
  held?: RelationshipRecord[];
}

/** A document's entity and relationship counts, as the stores write them. */
export type DocumentCounts = DocumentGraphCounts;

/** Ids of the entities the merge added to the graph (new to it, not updated). */
export function entitiesAdded(outcome: Pick<MergeOutcome, 'changes'>): Set<string> {
  return new Set(outcome.changes.filter((c) => c.kind === 'node_added').map((c) => c.id));
}
