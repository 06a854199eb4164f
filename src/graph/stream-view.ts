import type { GraphChange } from './events';
import type { GraphView } from './explore';
import type { GraphEdge, GraphNode } from './present';

/** What part of the workspace graph a stream subscriber follows; nothing set means the whole graph. */
export interface StreamScope {
  /** Entity id (normalised) the followed subgraph grows from, up to `depth` hops. */
  startId?: string;
  depth: number;
  /** Entity types to keep (upper case). */
  types?: Set<string>;
  /** Exactly these entities, and the edges among them. */
  ids?: Set<string>;
}

/**
 * The records a batch of changes names (changed nodes and edges, and the ends of changed edges), as stored now and
 * as the stream sends them: a hub record's full lists of chunks and documents are not kept with the batch.
 */
export interface ResolvedBatch {
  nodes: Map<string, GraphNode>;
  edges: Map<string, GraphEdge>;
}

/** One change kept for a subscriber; `extra` brings in a node that joined the view through this change. */
export type ViewDecision =
  { kind: 'keep'; change: GraphChange } | { kind: 'join'; nodeId: string } | { kind: 'leave'; change: GraphChange };

export function isScoped(scope: StreamScope): boolean {
  return Boolean(scope.startId || scope.types || scope.ids);
}

/**
 * The nodes and edges a subscriber has been told about, and how far each node is from the start node. A change
 * touches the view when it changes a node in it, an edge between two nodes in it, or (following a start node) an
 * edge that reaches a new node within `depth` hops, which then joins. Removals are sent for what the view holds.
 */
export class SubgraphView {
  private readonly distance = new Map<string, number>();
  private readonly edges = new Set<string>();
  /**
   * While missed changes are replayed to a resumed subscriber, the view was rebuilt from the graph as it is now:
   * a removed node it held before is absent, so an edge removal that reaches one from the view brings it back.
   */
  replaying = false;

  constructor(readonly scope: StreamScope) {}

  /** The snapshot, narrowed to the scope's types and ids; the view starts as what it shows. */
  seed(view: GraphView): GraphView {
    const distances = this.scope.startId ? hops(this.scope.startId, view) : null;
    const nodes = view.nodes.filter((n) => this.passes(n.id, n.node_type) && (!distances || distances.has(n.id)));
    for (const node of nodes) this.distance.set(node.id, distances?.get(node.id) ?? 0);
    const edges = view.edges.filter((e) => this.distance.has(e.source) && this.distance.has(e.target));
    for (const edge of edges) this.edges.add(edge.id);
    return { ...view, nodes, edges };
  }

  /** What of one batch reaches the subscriber, in the batch's order. */
  decide(changes: GraphChange[], resolved: ResolvedBatch): Array<{ index: number; decision: ViewDecision }> {
    const out: Array<{ index: number; decision: ViewDecision }> = [];
    changes.forEach((change, index) => {
      for (const decision of this.decideOne(change, resolved)) out.push({ index, decision });
    });
    return out;
  }

  private passes(id: string, type: string | undefined): boolean {
    if (this.scope.ids && !this.scope.ids.has(id)) return false;
    if (this.scope.types && (type === undefined || !this.scope.types.has(type.toUpperCase()))) return false;
    return true;
  }

  private decideOne(change: GraphChange, resolved: ResolvedBatch): ViewDecision[] {
    switch (change.kind) {
      case 'node_added':
      case 'node_updated': {
        const node = resolved.nodes.get(change.id);
        if (!node) return [];
        const held = this.distance.has(change.id);
        // Without a start node every node that passes the filters is in view; with one, only nodes reached.
        const admitted = this.passes(node.id, node.node_type) && (held || !this.scope.startId || node.id === this.scope.startId);
        if (admitted) {
          if (!held) this.distance.set(node.id, 0);
          return [{ kind: 'keep', change }];
        }
        if (!held) return [];
        // A type changed away from the followed types: the node leaves the view.
        this.distance.delete(change.id);
        return [{ kind: 'leave', change: { kind: 'node_removed', id: change.id } }];
      }
      case 'node_removed':
        if (!this.distance.delete(change.id)) return [];
        return [{ kind: 'keep', change }];
      case 'edge_added':
      case 'edge_updated': {
        const edge = resolved.edges.get(change.id);
        if (!edge) return [];
        const out: ViewDecision[] = [];
        for (const [near, far] of [
          [edge.source, edge.target],
          [edge.target, edge.source],
        ]) {
          if (this.distance.has(far) || !this.distance.has(near)) continue;
          const node = resolved.nodes.get(far);
          const reach = (this.distance.get(near) ?? 0) + 1;
          const grows = this.scope.startId ? reach <= this.scope.depth : true;
          if (node && grows && this.passes(node.id, node.node_type)) {
            this.distance.set(far, this.scope.startId ? reach : 0);
            out.push({ kind: 'join', nodeId: far });
          }
        }
        if (this.distance.has(edge.source) && this.distance.has(edge.target)) {
          this.edges.add(edge.id);
          out.push({ kind: 'keep', change });
        }
        return out;
      }
      case 'edge_removed': {
        if (this.edges.delete(change.id)) return [{ kind: 'keep', change }];
        if (!this.replaying) return [];
        const [near, far] = this.distance.has(change.source) ? [change.source, change.target] : [change.target, change.source];
        const reach = (this.distance.get(near) ?? 0) + 1;
        const ghost = !resolved.nodes.has(far) && (!this.scope.ids || this.scope.ids.has(far));
        if (!this.distance.has(near) || !ghost || (this.scope.startId && reach > this.scope.depth)) return [];
        this.distance.set(far, reach);
        return [{ kind: 'keep', change }];
      }
    }
  }
}

/** Hops from the start node over the snapshot's edges. */
function hops(startId: string, view: GraphView): Map<string, number> {
  const neighbours = new Map<string, string[]>();
  for (const edge of view.edges) {
    neighbours.set(edge.source, [...(neighbours.get(edge.source) ?? []), edge.target]);
    neighbours.set(edge.target, [...(neighbours.get(edge.target) ?? []), edge.source]);
  }
  const distance = new Map<string, number>([[startId, 0]]);
  const queue = [startId];
  while (queue.length) {
    const id = queue.shift() as string;
    for (const next of neighbours.get(id) ?? []) {
      if (distance.has(next)) continue;
      distance.set(next, (distance.get(id) ?? 0) + 1);
      queue.push(next);
    }
  }
  return distance;
}
