import type { Scope } from '../../domain/types';
import type { AnalyticsStore, GraphSnapshot, NeighbourQuery } from '../ports';
import { type LevelStep, allShortestPaths, withinHops } from '../paths';
import type { MemoryGraphStore } from './graph';
import { compareIds } from './records';

/** Analytics over the embedded graph (graphology), read straight from the graph store's workspace graphs. */
export class MemoryAnalyticsStore implements AnalyticsStore {
  constructor(private readonly graphs: MemoryGraphStore) {}

  async snapshot(scope: Scope, maxNodes: number): Promise<GraphSnapshot> {
    const ws = this.graphs.workspaceGraph(scope);
    if (!ws) return { nodes: [], edges: [], truncated: false };
    const limit = Math.max(0, Math.floor(maxNodes));
    const truncated = ws.graph.order > limit;
    // The sorted orders are kept by the graph between writes: a snapshot of an unchanged graph sorts nothing.
    const ids = truncated ? ws.byDegree().slice(0, limit).sort(compareIds) : ws.entityOrder.sorted();
    const kept = truncated ? new Set(ids) : null;
    const nodes = ids.map((id) => ({ id, entity_type: ws.entity(id).entity_type }));
    const edges: GraphSnapshot['edges'] = [];
    for (const id of ws.relationshipOrder.sorted()) {
      const [source, target] = ws.graph.extremities(id);
      const weight = ws.relationship(id).weight;
      if (!kept || (kept.has(source) && kept.has(target))) edges.push({ id, source, target, weight });
    }
    return { nodes, edges, truncated };
  }

  async shortestPaths(scope: Scope, from: string, to: string, maxHops: number, limit: number): Promise<string[][]> {
    const ws = this.graphs.workspaceGraph(scope);
    if (!ws || !ws.graph.hasNode(from) || !ws.graph.hasNode(to)) return [];
    return allShortestPaths(this.levelReader(scope), from, to, maxHops, limit);
  }

  async neighbourhood(scope: Scope, start: string, query: NeighbourQuery) {
    const ws = this.graphs.workspaceGraph(scope);
    if (!ws || !ws.graph.hasNode(start)) return [];
    const found = await withinHops(this.levelReader(scope), start, query.hops);
    const types = query.types?.length ? new Set(query.types) : null;
    return found.filter((n) => !types || types.has(n.entity_type)).slice(0, query.limit);
  }

  async topByDegree(scope: Scope, limit: number) {
    const ws = this.graphs.workspaceGraph(scope);
    if (!ws) return [];
    return ws
      .byDegree()
      .slice(0, Math.max(0, limit))
      .map((id) => ({ id, score: ws.degree(id) }));
  }

  async coMentioned(scope: Scope, entityId: string, limit: number) {
    const ws = this.graphs.workspaceGraph(scope);
    if (!ws || !ws.graph.hasNode(entityId)) return [];
    const chunks = new Set(ws.entity(entityId).source_chunk_ids);
    const shared = new Map<string, number>();
    ws.graph.forEachNode((id, attributes) => {
      if (id === entityId) return;
      const n = new Set(attributes.record.source_chunk_ids.filter((c) => chunks.has(c))).size;
      if (n > 0) shared.set(id, n);
    });
    return [...shared]
      .map(([id, n]) => ({ id, shared_chunks: n }))
      .sort((a, b) => b.shared_chunks - a.shared_chunks || compareIds(a.id, b.id))
      .slice(0, Math.max(0, limit));
  }

  async documentsSharingEntities(scope: Scope, limit: number) {
    const ws = this.graphs.workspaceGraph(scope);
    if (!ws) return [];
    const pairs = new Map<string, { document_a: string; document_b: string; shared_entities: number }>();
    ws.graph.forEachNode((_, attributes) => {
      const docs = [...new Set(attributes.record.document_ids)].sort(compareIds);
      for (let i = 0; i < docs.length; i++) {
        for (let j = i + 1; j < docs.length; j++) {
          const key = `${docs[i]}\u0000${docs[j]}`;
          const pair = pairs.get(key) ?? { document_a: docs[i], document_b: docs[j], shared_entities: 0 };
          pair.shared_entities++;
          pairs.set(key, pair);
        }
      }
    });
    return [...pairs.values()]
      .sort(
        (a, b) => b.shared_entities - a.shared_entities || compareIds(a.document_a, b.document_a) || compareIds(a.document_b, b.document_b),
      )
      .slice(0, Math.max(0, limit));
  }

  private levelReader(scope: Scope) {
    return async (frontier: string[], seen: ReadonlySet<string>): Promise<LevelStep[]> => {
      const ws = this.graphs.workspaceGraph(scope);
      if (!ws) return [];
      const steps: LevelStep[] = [];
      for (const parent of frontier) {
        ws.graph.forEachNeighbor(parent, (id, attributes) => {
          if (!seen.has(id)) steps.push({ id, parent, entity_type: attributes.record.entity_type });
        });
      }
      return steps;
    };
  }
}
