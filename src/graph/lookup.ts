import { NotFoundError } from '../domain/errors';
import { normalizeEntityId } from '../domain/ids';
import type { Scope } from '../domain/types';
import type { GraphStore } from '../store/ports';
import { type EntityItem, type GraphEdge, type GraphNode, toEntityItem, toGraphEdge, toGraphNode } from './present';

/**
 * Graph look-ups by name (docs/api.md §4.5): node and label search, the most connected labels, whether an entity
 * exists, an entity's neighbourhood, single nodes and degrees. A label is an entity's name, as graph UIs show it.
 */

async function nodesWithEdges(graph: GraphStore, scope: Scope, ids: string[]): Promise<{ nodes: GraphNode[]; edges: GraphEdge[] }> {
  const [entities, degrees, relationships] = await Promise.all([
    graph.getEntities(scope, ids),
    graph.degrees(scope, ids),
    graph.relationshipsAmong(scope, ids),
  ]);
  const order = new Map(ids.map((id, i) => [id, i]));
  entities.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  return { nodes: entities.map((e) => toGraphNode(e, degrees.get(e.id) ?? 0)), edges: relationships.map(toGraphEdge) };
}

/** Entities whose name or id holds the text (any case), optionally of one type, with the edges among them. */
export async function searchNodes(graph: GraphStore, scope: Scope, query: { text?: string; type?: string; limit: number }) {
  const page = await graph.listEntities(scope, {
    limit: query.limit,
    offset: 0,
    search: query.text?.trim() || undefined,
    type: query.type?.trim().toUpperCase() || undefined,
  });
  const found = await nodesWithEdges(
    graph,
    scope,
    page.items.map((e) => e.id),
  );
  return { ...found, total_matches: page.total, is_truncated: page.total > page.items.length };
}

/** Entity names holding the text (any case). */
export async function searchLabels(graph: GraphStore, scope: Scope, query: { text?: string; limit: number }) {
  const page = await graph.listEntities(scope, { limit: query.limit, offset: 0, search: query.text?.trim() || undefined });
  return { labels: page.items.map((e) => e.name) };
}

/** The most connected entities' names, most connected first. */
export async function popularLabels(graph: GraphStore, scope: Scope, limit: number) {
  const ids = await graph.topByDegree(scope, limit);
  const { nodes } = await nodesWithEdges(graph, scope, ids);
  return {
    labels: nodes.map((n) => ({ label: n.label, entity_id: n.id, entity_type: n.node_type, degree: n.degree, description: n.description })),
  };
}

/** Whether an entity of that name (any case and spacing) exists. */
export async function entityExists(graph: GraphStore, scope: Scope, name: string) {
  const id = normalizeEntityId(name);
  const entity = id ? await graph.getEntity(scope, id) : null;
  return { exists: entity !== null, entity_name: entity?.name ?? name, entity_id: entity?.id ?? (id || null) };
}

async function requireEntity(graph: GraphStore, scope: Scope, rawId: string) {
  const id = normalizeEntityId(rawId);
  const entity = id ? await graph.getEntity(scope, id) : null;
  if (!entity) throw new NotFoundError(`entity '${id || rawId}' does not exist in workspace '${scope.workspaceId}'`);
  return entity;
}

/** An entity and what lies within `depth` hops of it (nearest first, at most `maxNodes` nodes), with the edges among them. */
export async function neighborhood(
  graph: GraphStore,
  scope: Scope,
  rawId: string,
  depth: number,
  maxNodes: number,
): Promise<{ center: EntityItem; nodes: GraphNode[]; edges: GraphEdge[]; depth: number; is_truncated: boolean }> {
  const entity = await requireEntity(graph, scope, rawId);
  const { ids, truncated } = await graph.bfs(scope, entity.id, depth, maxNodes);
  const found = await nodesWithEdges(graph, scope, ids);
  const degree = found.nodes.find((n) => n.id === entity.id)?.degree ?? 0;
  return { center: toEntityItem(entity, degree), ...found, depth, is_truncated: truncated };
}

/** One node of the graph. */
export async function graphNode(graph: GraphStore, scope: Scope, rawId: string): Promise<GraphNode> {
  const entity = await requireEntity(graph, scope, rawId);
  const degrees = await graph.degrees(scope, [entity.id]);
  return toGraphNode(entity, degrees.get(entity.id) ?? 0);
}

/** Degrees of the given nodes (ids or names); unknown nodes have degree 0. */
export async function degreesOf(graph: GraphStore, scope: Scope, names: string[]) {
  const ids = names.map((n) => normalizeEntityId(n));
  const degrees = await graph.degrees(
    scope,
    ids.filter((id) => id),
  );
  return { degrees: Object.fromEntries(names.map((name, i) => [name, degrees.get(ids[i]) ?? 0])) };
}
