import type Sigma from 'sigma';
import { apiUrl, getJson } from '../api/client';
import type { GraphView } from '../api/types';
import { download, edgesCsv, nodesCsv, toGraphMl, viewToPng } from './export';
import type { ExportKind } from './GraphTools';
import { type EdgeAttributes, type ExplorerGraph, type NodeAttributes, putEdge, putNode } from './model';
import type { PathEntity } from './PathPanel';

/**
 * Makes sure a path's entities and the relationships between them are drawn (an entity outside the view comes with
 * its neighbourhood's links to the path), and answers the path's node and edge keys.
 */
export async function drawPath(graph: ExplorerGraph, path: PathEntity[]): Promise<{ nodes: Set<string>; edges: Set<string> }> {
  const ids = new Set(path.map((p) => p.id));
  for (const entity of path) {
    if (graph.hasNode(entity.id)) continue;
    const view = await getJson<GraphView>(apiUrl('/api/v1/graph', {}, { start_node: entity.id, depth: 1, max_nodes: 200 }));
    const near = view.nodes.find((n) => graph.hasNode(n.id))?.id;
    for (const node of view.nodes) if (node.id === entity.id) putNode(graph, node, { near });
    for (const edge of view.edges) if (ids.has(edge.source) && ids.has(edge.target)) putEdge(graph, edge);
  }
  const edges = new Set<string>();
  for (let i = 1; i < path.length; i++) {
    const edge = graph.hasNode(path[i - 1].id) && graph.hasNode(path[i].id) ? graph.edge(path[i - 1].id, path[i].id) : undefined;
    if (edge) edges.add(edge);
  }
  return { nodes: new Set([...ids].filter((id) => graph.hasNode(id))), edges };
}

/** Downloads the nodes shown (types not hidden) in the chosen format. */
export async function exportView(
  kind: ExportKind,
  graph: ExplorerGraph,
  sigma: Sigma<NodeAttributes, EdgeAttributes>,
  hiddenTypes: Set<string>,
  background: string,
): Promise<void> {
  const shown = (node: string) => !hiddenTypes.has(graph.getNodeAttribute(node, 'entityType'));
  if (kind === 'png') download(await viewToPng(sigma, background), 'kgrag-graph.png');
  else if (kind === 'graphml') download(new Blob([toGraphMl(graph, shown)], { type: 'application/graphml+xml' }), 'kgrag-graph.graphml');
  else if (kind === 'nodes-csv') download(new Blob([nodesCsv(graph, shown)], { type: 'text/csv' }), 'kgrag-nodes.csv');
  else download(new Blob([edgesCsv(graph, shown)], { type: 'text/csv' }), 'kgrag-edges.csv');
}
