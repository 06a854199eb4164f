import { apiUrl } from '../api/client';
import { readEvents } from '../api/sse';
import type { GraphEdge, GraphNode } from '../api/types';

export interface GraphQuery {
  startNode: string;
  depth: number;
  maxNodes: number;
  /** Follow exactly these entities and the relationships among them (instead of a start node). */
  ids?: string[];
}

export interface StreamHandlers {
  metadata: (totals: {
    total_nodes: number;
    total_edges: number;
    is_truncated: boolean;
    snapshot_nodes: number;
    snapshot_edges: number;
  }) => void;
  nodes: (nodes: GraphNode[]) => void;
  edges: (edges: GraphEdge[]) => void;
  /** The snapshot is complete; live changes follow. */
  snapshotDone: () => void;
  nodeChanged: (node: GraphNode, added: boolean) => void;
  nodeRemoved: (id: string) => void;
  edgeChanged: (edge: GraphEdge) => void;
  edgeRemoved: (id: string) => void;
  failed: (message: string) => void;
}

/**
 * The workspace graph from `/graph/stream`: a snapshot in batches (the same view `/graph` gives, and larger, up to
 * the stream's limit), then live changes while documents are ingested, deleted or edited. Ends with the signal.
 */
export async function streamGraph(query: GraphQuery, handlers: StreamHandlers, signal: AbortSignal): Promise<void> {
  const url = apiUrl(
    '/api/v1/graph/stream',
    {},
    {
      start_node: query.startNode.trim() || undefined,
      depth: query.startNode.trim() ? query.depth : undefined,
      ids: !query.startNode.trim() && query.ids?.length ? query.ids.join(',') : undefined,
      max_nodes: query.maxNodes,
      batch_size: 1000,
    },
  );
  await readEvents(url, { signal }, (event) => {
    switch (event.type) {
      case 'metadata':
        handlers.metadata(event as unknown as Parameters<StreamHandlers['metadata']>[0]);
        break;
      case 'nodes':
        handlers.nodes(event.nodes as GraphNode[]);
        break;
      case 'edges':
        handlers.edges(event.edges as GraphEdge[]);
        break;
      case 'done':
        handlers.snapshotDone();
        break;
      case 'node_added':
      case 'node_updated':
        handlers.nodeChanged(event.node as GraphNode, event.type === 'node_added');
        break;
      case 'node_removed':
        handlers.nodeRemoved(event.id as string);
        break;
      case 'edge_added':
      case 'edge_updated':
        handlers.edgeChanged(event.edge as GraphEdge);
        break;
      case 'edge_removed':
        handlers.edgeRemoved(event.id as string);
        break;
      case 'error':
        handlers.failed(String(event.message ?? (event.error as { detail?: string } | undefined)?.detail ?? 'the graph stream failed'));
        break;
      case 'dropped':
        handlers.failed(`the graph stream was dropped: ${String(event.reason)}`);
        break;
    }
  });
}
