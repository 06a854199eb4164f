import Graph from 'graphology';
import type { GraphEdge, GraphNode } from '../api/types';
import { typeColor } from './colors';

/** Node attributes the explorer keeps in graphology (sigma reads x, y, size, color, label). */
export { typeColor };

export interface NodeAttributes {
  x: number;
  y: number;
  size: number;
  color: string;
  label: string;
  entityType: string;
  degree: number;
  description: string;
  /** Highlight until this time (epoch ms): new or changed by live updates, or just expanded. */
  freshUntil: number;
}

export interface EdgeAttributes {
  size: number;
  color: string;
  label: string;
  weight: number;
  description: string;
  keywords: string[];
}

export type ExplorerGraph = Graph<NodeAttributes, EdgeAttributes>;

export function createGraph(): ExplorerGraph {
  return new Graph<NodeAttributes, EdgeAttributes>({ type: 'undirected', multi: false, allowSelfLoops: false });
}

/** Area grows with degree, so hubs stand out without hiding their neighbours. */
export function nodeSize(degree: number): number {
  return Math.min(22, 3 + 2.2 * Math.log2(1 + degree));
}

function attributesOf(node: GraphNode): Omit<NodeAttributes, 'x' | 'y' | 'freshUntil'> {
  const type = node.node_type || 'UNKNOWN';
  return {
    label: node.label,
    entityType: type,
    degree: node.degree,
    description: node.description,
    size: nodeSize(node.degree),
    color: typeColor(type),
  };
}

/** Adds or updates a node; a new node lands next to a neighbour already drawn, or at random. */
export function putNode(graph: ExplorerGraph, node: GraphNode, options: { near?: string; freshMs?: number } = {}): boolean {
  const fresh = options.freshMs ? Date.now() + options.freshMs : 0;
  if (graph.hasNode(node.id)) {
    graph.mergeNodeAttributes(node.id, { ...attributesOf(node), ...(fresh ? { freshUntil: fresh } : {}) });
    return false;
  }
  const anchor = options.near && graph.hasNode(options.near) ? graph.getNodeAttributes(options.near) : null;
  const spread = anchor ? 2 : 100;
  graph.addNode(node.id, {
    ...attributesOf(node),
    x: (anchor?.x ?? 0) + (Math.random() - 0.5) * spread,
    y: (anchor?.y ?? 0) + (Math.random() - 0.5) * spread,
    freshUntil: fresh,
  });
  return true;
}

export function putEdge(graph: ExplorerGraph, edge: GraphEdge): boolean {
  if (!graph.hasNode(edge.source) || !graph.hasNode(edge.target) || edge.source === edge.target) return false;
  const attributes: EdgeAttributes = {
    size: Math.min(4, 0.5 + Math.log2(1 + edge.weight) * 0.5),
    color: '#c5cbd6',
    label: edge.edge_type,
    weight: edge.weight,
    description: edge.properties.description,
    keywords: edge.properties.keywords,
  };
  if (graph.hasEdge(edge.id)) {
    graph.mergeEdgeAttributes(edge.id, attributes);
    return false;
  }
  // One edge per pair: the API's relationships are undirected and unique per pair.
  if (graph.hasEdge(edge.source, edge.target)) return false;
  graph.addEdgeWithKey(edge.id, edge.source, edge.target, attributes);
  return true;
}

/** Entity types present in the graph with their node counts, most common first. */
export function typeCounts(graph: ExplorerGraph): Array<{ type: string; count: number; color: string }> {
  const counts = new Map<string, number>();
  graph.forEachNode((_key, attributes) => counts.set(attributes.entityType, (counts.get(attributes.entityType) ?? 0) + 1));
  return [...counts]
    .map(([type, count]) => ({ type, count, color: typeColor(type) }))
    .sort((a, b) => b.count - a.count || a.type.localeCompare(b.type));
}
