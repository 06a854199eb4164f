import type { Scope } from '../../domain/types';
import type { AnalyticsStore, GraphSnapshot, NeighbourQuery } from '../ports';
import { type LevelStep, allShortestPaths, withinHops } from '../paths';
import { type Neo4jClient, type Row, scopeParams } from './client';
import { count, num, str } from './values';

function nodeOf(row: Row): GraphSnapshot['nodes'][number] {
  return { id: str(row.id), entity_type: str(row.entity_type) };
}

function edgesOf(lists: Row): GraphSnapshot['edges'] {
  const ids = lists.ids as unknown[];
  const sources = lists.sources as unknown[];
  const targets = lists.targets as unknown[];
  const weights = lists.weights as unknown[];
  return ids.map((id, i) => ({ id: str(id), source: str(sources[i]), target: str(targets[i]), weight: num(weights[i]) }));
}

/** Analytics in plain Cypher (cypher/analytics/), each query starting from workspace-scoped entities. */
export class Neo4jAnalyticsStore implements AnalyticsStore {
  constructor(private readonly db: Neo4jClient) {}

  async snapshot(scope: Scope, maxNodes: number): Promise<GraphSnapshot> {
    const params = scopeParams(scope);
    return this.db.read(async (tx) => {
      const [total] = await tx.run('analytics/entity-count', params);
      const truncated = num(total?.total) > maxNodes;
      // Within the size asked for, nothing needs ranking by degree or filtering by a list of ids.
      if (!truncated) {
        const nodeRows = await tx.run('analytics/snapshot-all-nodes', params);
        const [lists] = await tx.run('analytics/snapshot-all-edges', params);
        return { nodes: nodeRows.map(nodeOf), edges: lists ? edgesOf(lists) : [], truncated };
      }
      const nodes = (await tx.run('analytics/snapshot-nodes', { ...params, limit: count(maxNodes) })).map(nodeOf);
      const edgeRows = nodes.length ? await tx.run('analytics/snapshot-edges', { ...params, ids: nodes.map((n) => n.id) }) : [];
      const edges = edgeRows.map((row) => ({ id: str(row.id), source: str(row.source), target: str(row.target), weight: num(row.weight) }));
      return { nodes, edges, truncated };
    });
  }

  async shortestPaths(scope: Scope, from: string, to: string, maxHops: number, limit: number): Promise<string[][]> {
    if (!(await this.exist(scope, [from, to]))) return [];
    return allShortestPaths(this.levelReader(scope), from, to, maxHops, limit);
  }

  async neighbourhood(scope: Scope, start: string, query: NeighbourQuery) {
    if (!(await this.exist(scope, [start]))) return [];
    const found = await withinHops(this.levelReader(scope), start, query.hops);
    const types = query.types?.length ? new Set(query.types) : null;
    return found.filter((n) => !types || types.has(n.entity_type)).slice(0, query.limit);
  }

  async topByDegree(scope: Scope, limit: number) {
    if (limit <= 0) return [];
    const rows = await this.db.readRows('analytics/top-by-degree', { ...scopeParams(scope), limit: count(limit) });
    return rows.map((row) => ({ id: str(row.id), score: num(row.score) }));
  }

  async coMentioned(scope: Scope, entityId: string, limit: number) {
    if (limit <= 0) return [];
    const rows = await this.db.readRows('analytics/co-mentioned', { ...scopeParams(scope), id: entityId, limit: count(limit) });
    return rows.map((row) => ({ id: str(row.id), shared_chunks: num(row.shared_chunks) }));
  }

  async documentsSharingEntities(scope: Scope, limit: number) {
    if (limit <= 0) return [];
    const rows = await this.db.readRows('analytics/documents-sharing-entities', { ...scopeParams(scope), limit: count(limit) });
    return rows.map((row) => ({
      document_a: str(row.document_a),
      document_b: str(row.document_b),
      shared_entities: num(row.shared_entities),
    }));
  }

  private async exist(scope: Scope, ids: string[]): Promise<boolean> {
    const unique = [...new Set(ids)];
    const rows = await this.db.readRows('analytics/exists', { ...scopeParams(scope), ids: unique });
    return rows.length === unique.length;
  }

  private levelReader(scope: Scope) {
    return async (frontier: string[], seen: ReadonlySet<string>): Promise<LevelStep[]> => {
      const rows = await this.db.readRows('analytics/level', { ...scopeParams(scope), frontier, seen: [...seen] });
      return rows.map((row) => ({ id: str(row.id), parent: str(row.parent), entity_type: str(row.entity_type) }));
    };
  }
}
