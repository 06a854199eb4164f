import type { Scope } from '../domain/types';
import type { SseStream } from '../domain/sse';
import type { GraphStore } from '../store/ports';
import type { GraphDeps } from './deps';
import type { GraphChange, GraphChangeBatch } from './events';
import { type GraphQuery, type GraphView, exploreGraph } from './explore';
import { toGraphEdge, toGraphNode } from './present';

export interface GraphStreamQuery extends GraphQuery {
  /** Nodes or edges per snapshot event. */
  batchSize: number;
}

function sameWorkspace(a: Scope, b: Scope): boolean {
  return a.workspaceId === b.workspaceId && (a.tenantId ?? '') === (b.tenantId ?? '');
}

/** The snapshot as events: metadata, node batches, edge batches, done. Equal to what /graph returns. */
export function snapshotEvents(view: GraphView, batchSize: number): Array<Record<string, unknown>> {
  const events: Array<Record<string, unknown>> = [
    {
      type: 'metadata',
      total_nodes: view.total_nodes,
      total_edges: view.total_edges,
      snapshot_nodes: view.nodes.length,
      snapshot_edges: view.edges.length,
      is_truncated: view.is_truncated,
      batch_size: batchSize,
    },
  ];
  for (let i = 0; i < view.nodes.length; i += batchSize) {
    events.push({ type: 'nodes', nodes: view.nodes.slice(i, i + batchSize) });
  }
  for (let i = 0; i < view.edges.length; i += batchSize) {
    events.push({ type: 'edges', edges: view.edges.slice(i, i + batchSize) });
  }
  events.push({ type: 'done', snapshot: true });
  return events;
}

/** Live events for one published batch, with added/updated records read back from the store as they are now. */
export async function liveEvents(graph: GraphStore, batch: GraphChangeBatch): Promise<Array<Record<string, unknown>>> {
  const { scope, cause } = batch;
  const nodeIds = batch.changes.filter((c) => c.kind === 'node_added' || c.kind === 'node_updated').map((c) => c.id);
  const edgeIds = batch.changes.filter((c) => c.kind === 'edge_added' || c.kind === 'edge_updated').map((c) => c.id);
  const [entities, degrees, relationships] = await Promise.all([
    graph.getEntities(scope, nodeIds),
    graph.degrees(scope, nodeIds),
    graph.getRelationships(scope, edgeIds),
  ]);
  const nodes = new Map(entities.map((e) => [e.id, toGraphNode(e, degrees.get(e.id) ?? 0)]));
  const edges = new Map(relationships.map((r) => [r.id, toGraphEdge(r)]));
  const events: Array<Record<string, unknown>> = [];
  for (const change of batch.changes) {
    const event = liveEvent(change, nodes, edges);
    if (event) events.push({ ...event, cause });
  }
  return events;
}

function liveEvent(change: GraphChange, nodes: Map<string, unknown>, edges: Map<string, unknown>): Record<string, unknown> | null {
  switch (change.kind) {
    case 'node_added':
    case 'node_updated':
      // A record gone by now was removed later; its own node_removed event follows.
      return nodes.has(change.id) ? { type: change.kind, node: nodes.get(change.id) } : null;
    case 'node_removed':
      return { type: 'node_removed', id: change.id };
    case 'edge_added':
    case 'edge_updated':
      return edges.has(change.id) ? { type: change.kind, edge: edges.get(change.id) } : null;
    case 'edge_removed':
      return { type: 'edge_removed', id: change.id, source: change.source, target: change.target };
  }
}

/**
 * Streams a graph snapshot, then the workspace's live changes until the client leaves. The subscription
 * starts before the snapshot is read so that nothing written meanwhile is lost (it is sent after `done`).
 * `open` is called only once the snapshot exists, so a bad start node is still an ordinary 404 response.
 */
export async function streamGraph(deps: GraphDeps, scope: Scope, query: GraphStreamQuery, open: () => SseStream): Promise<void> {
  const pending: GraphChangeBatch[] = [];
  let deliver: ((batch: GraphChangeBatch) => void) | null = null;
  const unsubscribe = deps.events.subscribe((batch) => {
    if (!sameWorkspace(batch.scope, scope)) return;
    if (deliver) deliver(batch);
    else pending.push(batch);
  });
  let view: GraphView;
  try {
    view = await exploreGraph(deps.stores.graph, scope, query);
  } catch (err) {
    unsubscribe();
    throw err;
  }
  const sse = open();
  if (sse.signal.aborted) return unsubscribe();
  sse.signal.addEventListener('abort', unsubscribe, { once: true });
  for (const event of snapshotEvents(view, query.batchSize)) sse.send(event);

  // One batch at a time, in publication order, each resolved against the store when its turn comes.
  let chain = Promise.resolve();
  deliver = (batch) => {
    chain = chain
      .then(async () => {
        if (sse.closed) return;
        for (const event of await liveEvents(deps.stores.graph, batch)) sse.send(event);
      })
      .catch(() => {
        sse.send({ type: 'error', message: 'a graph update could not be read; reconnect to resume' });
        sse.close();
      });
  };
  for (const batch of pending.splice(0)) deliver(batch);
}
