import type { Scope } from '../domain/types';

/** Analytics store ports: an analyst's read-only Cypher, and graph algorithms bounded by their arguments. */

/** A node of an analyst's Cypher result, as the store read it. */
export interface CypherNode {
  kind: 'node';
  element_id: string;
  labels: string[];
  properties: Record<string, unknown>;
  workspace_id: string | null;
  /** Relationships to entities. */
  degree: number;
}

export interface CypherRelationship {
  kind: 'relationship';
  element_id: string;
  type: string;
  /** The `id` of each end (its element id when it has none). */
  source: string;
  target: string;
  properties: Record<string, unknown>;
  workspace_id: string | null;
}

export interface CypherPath {
  kind: 'path';
  nodes: CypherNode[];
  relationships: CypherRelationship[];
}

export interface CypherResult {
  columns: string[];
  /** Plain values, with nodes, relationships and paths as the tagged objects above. */
  rows: Array<Record<string, unknown>>;
  /** More rows existed than `maxRows`. */
  truncated: boolean;
}

/**
 * Cypher written by an analyst, run in a read transaction (the database refuses writes) with a server-side
 * timeout; at most `maxRows` rows are read.
 */
export interface AnalystCypher {
  run(query: string, params: Record<string, unknown>, limits: { timeoutMs: number; maxRows: number }): Promise<CypherResult>;
}

/** The entity graph of a workspace as plain lists, for algorithms that run in the service (Louvain, PageRank). */
export interface GraphSnapshot {
  /** Sorted by id. */
  nodes: Array<{ id: string; entity_type: string }>;
  /** Sorted by id; only between nodes of the snapshot. */
  edges: Array<{ id: string; source: string; target: string; weight: number }>;
  /** True when the graph had more entities than asked for (the most connected were kept). */
  truncated: boolean;
}

export interface NeighbourQuery {
  hops: number;
  /** Only entities of these types are returned (the walk goes through every type). */
  types?: string[];
  limit: number;
}

/**
 * Read-only graph analytics, bounded by their arguments (docs/api.md, Analytics). Both implementations give the
 * same answers on the same data; ties are broken by id everywhere.
 */
export interface AnalyticsStore {
  snapshot(scope: Scope, maxNodes: number): Promise<GraphSnapshot>;
  /** Every shortest path (entity ids, ends included) of at most maxHops edges, sorted, at most `limit`; [] when none. */
  shortestPaths(scope: Scope, from: string, to: string, maxHops: number, limit: number): Promise<string[][]>;
  /** Entities within `hops` of the start (start excluded), nearest first, then by id. */
  neighbourhood(scope: Scope, start: string, query: NeighbourQuery): Promise<Array<{ id: string; entity_type: string; distance: number }>>;
  /** Entity ids by degree (relationships to other entities), highest first, then by id. */
  topByDegree(scope: Scope, limit: number): Promise<Array<{ id: string; score: number }>>;
  /** Entities mentioned in the same chunks as the entity, by the number of chunks shared, then by id. */
  coMentioned(scope: Scope, entityId: string, limit: number): Promise<Array<{ id: string; shared_chunks: number }>>;
  /** Pairs of documents by the number of entities both list among their sources, then by ids. */
  documentsSharingEntities(
    scope: Scope,
    limit: number,
  ): Promise<Array<{ document_a: string; document_b: string; shared_entities: number }>>;
}
