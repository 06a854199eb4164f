import { NotFoundError } from '../domain/errors';
import { normalizeEntityId } from '../domain/ids';
import type { Scope } from '../domain/types';
import type { GraphStore } from '../store/ports';
import { type GraphEdge, type GraphNode, toGraphEdge, toGraphNode } from './present';

export const GRAPH_DEPTH = { default: 2, max: 5 } as const;
export const GRAPH_MAX_NODES = { default: 100, max: 1000 } as const;
/** The stream sends its snapshot in batches, so it may carry a larger view than one /graph answer (the console's). */
export const GRAPH_STREAM_MAX_NODES = 10_000;

export interface GraphQuery {
  /** Entity id or name in any case and spacing; absent means "the most connected nodes". */
  startNode?: string;
  depth: number;
  maxNodes: number;
}

export interface GraphView {
  nodes: GraphNode[];
  edges: GraphEdge[];
  total_nodes: number;
  total_edges: number;
  is_truncated: boolean;
}

/**
 * A bounded view of the workspace graph: breadth-first from a start node (nearest first), or the most
 * connected nodes, with every edge among the chosen nodes. Work is bounded by max_nodes, never by the graph.
 */
export async function exploreGraph(graph: GraphStore, scope: Scope, query: GraphQuery): Promise<GraphView> {
  const startId = query.startNode === undefined ? '' : normalizeEntityId(query.startNode);
  const totals = await graph.stats(scope);
  let ids: string[];
  let truncated: boolean;
  if (startId) {
    if (!(await graph.getEntity(scope, startId))) {
      throw new NotFoundError(`entity '${startId}' does not exist in workspace '${scope.workspaceId}'`);
    }
    ({ ids, truncated } = await graph.bfs(scope, startId, query.depth, query.maxNodes));
  } else {
    ids = await graph.topByDegree(scope, query.maxNodes);
    truncated = totals.total_nodes > ids.length;
  }
  const [entities, degrees, relationships] = await Promise.all([
    graph.getEntities(scope, ids),
    graph.degrees(scope, ids),
    graph.relationshipsAmong(scope, ids),
  ]);
  return {
    nodes: entities.map((e) => toGraphNode(e, degrees.get(e.id) ?? 0)),
    edges: relationships.map(toGraphEdge),
    total_nodes: totals.total_nodes,
    total_edges: totals.total_edges,
    is_truncated: truncated,
  };
}

export interface GraphStatsView {
  total_nodes: number;
  /** Alias of total_nodes, the name one diagnostic guide reads. */
  node_count: number;
  total_edges: number;
  node_types: Record<string, number>;
  edge_types: Record<string, number>;
  avg_degree: number;
  density: number;
}

/** Counts come from the store's maintained tallies; the ratios are derived here. */
export async function graphStats(graph: GraphStore, scope: Scope): Promise<GraphStatsView> {
  const stats = await graph.stats(scope);
  const n = stats.total_nodes;
  const e = stats.total_edges;
  return {
    total_nodes: n,
    node_count: n,
    total_edges: e,
    node_types: stats.node_types,
    edge_types: stats.edge_types,
    avg_degree: n === 0 ? 0 : (2 * e) / n,
    density: n < 2 ? 0 : (2 * e) / (n * (n - 1)),
  };
}
