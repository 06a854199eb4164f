/**
 * Communities of a workspace graph: groups of densely connected entities found by Louvain, at one or more
 * levels (0 the coarsest, as Louvain ends; higher levels are the finer partitions it went through on large
 * graphs, each inside one community of the level above), each with a report
 * written by the LLM from its members and their relationships.
 */

export interface CommunityFinding {
  summary: string;
  explanation: string;
}

export interface CommunityRecord {
  /** `community-{level}-{hash of the sorted member ids}`: the same members keep the same id across runs. */
  id: string;
  level: number;
  /** The community of the level above (coarser) that contains this one; null at level 0. */
  parent_id: string | null;
  /** Member entity ids, sorted. */
  member_ids: string[];
  size: number;
  /** Hash of the members, their descriptions and the relationships among them: a new hash means a new report. */
  content_hash: string;
  title: string;
  summary: string;
  findings: CommunityFinding[];
  /** Importance from 0 to 10, as the report rates it. */
  rank: number;
  /** Embedding of the title and summary (report search); empty when none was made. */
  embedding: number[];
  /** The model that wrote the report. */
  report_model: string | null;
  created_at: string;
  updated_at: string;
}

/** A workspace's last community run, for the status endpoint. */
export interface CommunityRunSummary {
  started_at: string;
  finished_at: string | null;
  entities: number;
  relationships: number;
  communities: number;
  levels: number;
  /** Reports written by the LLM in this run (new or changed communities). */
  reports_generated: number;
  /** Reports kept from the previous run because their community did not change. */
  reports_reused: number;
  /** Louvain modularity of the finest level. */
  modularity: number;
  duration_ms: number;
  error: string | null;
  /** LLM provider calls the run made (its reports). */
  llm_calls?: number;
  /** The content updates whose graph changes the run covered, and the calls charged to each (docs/api.md §4.2). */
  charged?: ReportChargeSummary[];
}

export interface ReportChargeSummary {
  document_id: string;
  /** The version the update made. */
  version: number;
  llm_calls: number;
}
