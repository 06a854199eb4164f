import { MultiUndirectedGraph } from 'graphology';
import type { EntityRecord, Page, RelationshipRecord, Scope } from '../../domain/types';
import type { DocumentGraphCounts, EntityQuery, GraphStats, GraphStore, RelationshipQuery, SourceBounds } from '../ports';
import { withinFirst } from '../around-order';
import { DocumentIndex, OrderedIds, Tally } from './ordered-ids';
import { boundedEntity, boundedRelationship, compareIds, copyEntity, copyRelationship, pageOf } from './records';
import { WorkspaceStates } from './workspaces';

type NodeAttributes = { record: EntityRecord };
type EdgeAttributes = { record: RelationshipRecord };

/**
 * One workspace's graph: graphology holds the adjacency (undirected; an edge per relationship record, keyed by
 * relationship id), with the records as attributes. Beside it, indexes kept up to date on every write so that
 * reads cost what they return rather than the size of the graph.
 */
export class WorkspaceGraph {
  readonly graph = new MultiUndirectedGraph<NodeAttributes, EdgeAttributes>({ allowSelfLoops: true });
  readonly entityTypes = new Tally();
  readonly relationTypes = new Tally();
  readonly entitiesByDocument = new DocumentIndex();
  readonly relationshipsByDocument = new DocumentIndex();
  /** Lower-cased `id \0 name`, for case-insensitive search without lower-casing the graph on every call. */
  readonly searchKeys = new Map<string, string>();
  readonly entityOrder = new OrderedIds(
    () => this.graph.nodes(),
    (id) => this.entity(id).entity_type,
  );
  readonly relationshipOrder = new OrderedIds(
    () => this.graph.edges(),
    (id) => this.relationship(id).relation_type,
  );
  private degreeOrder: string[] | null = null;

  entity(id: string): EntityRecord {
    return this.graph.getNodeAttributes(id).record;
  }

  relationship(id: string): RelationshipRecord {
    return this.graph.getEdgeAttributes(id).record;
  }

  degree(id: string): number {
    return this.graph.hasNode(id) ? this.graph.degree(id) : 0;
  }

  /** Most connected first, ties by id. */
  byDegree(): string[] {
    if (!this.degreeOrder) {
      const degree = new Map<string, number>();
      this.graph.forEachNode((id) => degree.set(id, this.graph.degree(id)));
      this.degreeOrder = [...degree.keys()].sort((a, b) => (degree.get(b) as number) - (degree.get(a) as number) || compareIds(a, b));
    }
    return this.degreeOrder;
  }

  upsertEntity(entity: EntityRecord): void {
    const record = copyEntity(entity);
    const id = record.id;
    if (this.graph.hasNode(id)) {
      const previous = this.entity(id);
      if (previous.entity_type !== record.entity_type) {
        this.entityTypes.add(previous.entity_type, -1);
        this.entityTypes.add(record.entity_type, 1);
        this.entityOrder.invalidateTypes(previous.entity_type, record.entity_type);
      }
      this.entitiesByDocument.remove(previous.document_ids, id);
      this.graph.replaceNodeAttributes(id, { record });
    } else {
      this.graph.addNode(id, { record });
      this.entityTypes.add(record.entity_type, 1);
      this.entityOrder.invalidate();
      this.degreeOrder = null;
    }
    this.entitiesByDocument.add(record.document_ids, id);
    this.searchKeys.set(id, `${id}\u0000${record.name}`.toLowerCase());
  }

  deleteEntity(id: string): void {
    if (!this.graph.hasNode(id)) return;
    for (const edge of this.graph.edges(id)) this.deleteRelationship(edge);
    const record = this.entity(id);
    this.entityTypes.add(record.entity_type, -1);
    this.entitiesByDocument.remove(record.document_ids, id);
    this.searchKeys.delete(id);
    this.graph.dropNode(id);
    this.entityOrder.invalidate();
    this.degreeOrder = null;
  }

  upsertRelationship(relationship: RelationshipRecord): void {
    const record = copyRelationship(relationship);
    const id = record.id;
    if (this.graph.hasEdge(id)) {
      const [a, b] = this.graph.extremities(id);
      const sameEnds = (a === record.source && b === record.target) || (a === record.target && b === record.source);
      if (!sameEnds) {
        this.deleteRelationship(id);
        this.upsertRelationship(record);
        return;
      }
      const previous = this.relationship(id);
      if (previous.relation_type !== record.relation_type) {
        this.relationTypes.add(previous.relation_type, -1);
        this.relationTypes.add(record.relation_type, 1);
        this.relationshipOrder.invalidateTypes(previous.relation_type, record.relation_type);
      }
      this.relationshipsByDocument.remove(previous.document_ids, id);
      this.graph.replaceEdgeAttributes(id, { record });
    } else {
      this.graph.addEdgeWithKey(id, record.source, record.target, { record });
      this.relationTypes.add(record.relation_type, 1);
      this.relationshipOrder.invalidate();
      this.degreeOrder = null;
    }
    this.relationshipsByDocument.add(record.document_ids, id);
  }

  deleteRelationship(id: string): void {
    if (!this.graph.hasEdge(id)) return;
    const record = this.relationship(id);
    this.relationTypes.add(record.relation_type, -1);
    this.relationshipsByDocument.remove(record.document_ids, id);
    this.graph.dropEdge(id);
    this.relationshipOrder.invalidate();
    this.degreeOrder = null;
  }
}

export class MemoryGraphStore implements GraphStore {
  private readonly workspaces = new WorkspaceStates(() => new WorkspaceGraph());

  async getEntity(scope: Scope, id: string): Promise<EntityRecord | null> {
    const ws = this.workspaces.find(scope);
    return ws?.graph.hasNode(id) ? copyEntity(ws.entity(id)) : null;
  }

  /** In the order asked for; unknown ids are skipped. */
  async getEntities(scope: Scope, ids: string[]): Promise<EntityRecord[]> {
    const ws = this.workspaces.find(scope);
    if (!ws) return [];
    return ids.filter((id) => ws.graph.hasNode(id)).map((id) => copyEntity(ws.entity(id)));
  }

  /** `getEntities` as retrieval reads them: each with only its latest sources (retrieval-reads.ts). */
  async entitiesWithin(scope: Scope, ids: string[], bounds: SourceBounds): Promise<EntityRecord[]> {
    const ws = this.workspaces.find(scope);
    if (!ws) return [];
    return ids.filter((id) => ws.graph.hasNode(id)).map((id) => boundedEntity(ws.entity(id), bounds));
  }

  /** `getRelationships` as retrieval reads them: each with only its latest sources. */
  async relationshipsWithin(scope: Scope, ids: string[], bounds: SourceBounds): Promise<RelationshipRecord[]> {
    const ws = this.workspaces.find(scope);
    if (!ws) return [];
    return ids.filter((id) => ws.graph.hasEdge(id)).map((id) => boundedRelationship(ws.relationship(id), bounds));
  }

  /**
   * The relationships touching the entities as retrieval reads them: each with only its latest sources, in no
   * particular order (local expansion ranks them), without sorting or copying whole lists around a hub.
   */
  async relationshipsAround(scope: Scope, entityIds: string[], bounds: SourceBounds, keep?: number): Promise<RelationshipRecord[]> {
    const ws = this.workspaces.find(scope);
    if (!ws) return [];
    let around = [...relationshipsTouching(ws, entityIds).values()];
    if (keep !== undefined) {
      const seeds = new Set(entityIds);
      const ranked = around.map((record) => ({
        record,
        joined: Number(seeds.has(record.source)) + Number(seeds.has(record.target)),
        rank: ws.degree(record.source) + ws.degree(record.target),
        weight: record.weight,
      }));
      around = withinFirst(ranked, keep).map((r) => r.record);
    }
    return around.map((record) => boundedRelationship(record, bounds));
  }

  /** Replaces whole records (merging descriptions and sources is the service's job). */
  async upsertEntities(scope: Scope, entities: EntityRecord[]): Promise<void> {
    if (entities.length === 0) return;
    const ws = this.workspaces.obtain(scope);
    for (const entity of entities) ws.upsertEntity(entity);
  }

  /** Removes the entities with every relationship touching them: nothing is left dangling. */
  async deleteEntities(scope: Scope, ids: string[]): Promise<void> {
    const ws = this.workspaces.find(scope);
    if (ws) for (const id of ids) ws.deleteEntity(id);
  }

  async getRelationships(scope: Scope, ids: string[]): Promise<RelationshipRecord[]> {
    const ws = this.workspaces.find(scope);
    if (!ws) return [];
    return ids.filter((id) => ws.graph.hasEdge(id)).map((id) => copyRelationship(ws.relationship(id)));
  }

  /**
   * Both endpoints must be stored entities of the workspace; otherwise the whole batch is refused before
   * anything is written, so the graph never holds an edge to nowhere.
   */
  async upsertRelationships(scope: Scope, relationships: RelationshipRecord[]): Promise<void> {
    if (relationships.length === 0) return;
    const ws = this.workspaces.find(scope);
    const missing = new Set<string>();
    for (const r of relationships) {
      for (const end of [r.source, r.target]) if (!ws?.graph.hasNode(end)) missing.add(end);
    }
    if (!ws || missing.size > 0) {
      throw new Error(`relationships refer to unknown entities: ${[...missing].slice(0, 10).join(', ')}`);
    }
    for (const relationship of relationships) ws.upsertRelationship(relationship);
  }

  async deleteRelationships(scope: Scope, ids: string[]): Promise<void> {
    const ws = this.workspaces.find(scope);
    if (ws) for (const id of ids) ws.deleteRelationship(id);
  }

  /** Ordered by relationship id. */
  async relationshipsOf(scope: Scope, entityIds: string[]): Promise<RelationshipRecord[]> {
    const ws = this.workspaces.find(scope);
    return ws ? sortedRelationships(relationshipsTouching(ws, entityIds)) : [];
  }

  async entitiesOfDocument(scope: Scope, documentId: string): Promise<EntityRecord[]> {
    const ws = this.workspaces.find(scope);
    if (!ws) return [];
    return ws.entitiesByDocument.of(documentId).map((id) => copyEntity(ws.entity(id)));
  }

  async relationshipsOfDocument(scope: Scope, documentId: string): Promise<RelationshipRecord[]> {
    const ws = this.workspaces.find(scope);
    if (!ws) return [];
    return ws.relationshipsByDocument.of(documentId).map((id) => copyRelationship(ws.relationship(id)));
  }

  async countsOfDocuments(scope: Scope, documentIds: string[]): Promise<Map<string, DocumentGraphCounts>> {
    const ws = this.workspaces.find(scope);
    return new Map(
      documentIds.map((id) => [
        id,
        { entities: ws?.entitiesByDocument.of(id).length ?? 0, relationships: ws?.relationshipsByDocument.of(id).length ?? 0 },
      ]),
    );
  }

  /** Ordered by id. */
  async listEntities(scope: Scope, query: EntityQuery): Promise<Page<EntityRecord>> {
    const ws = this.workspaces.find(scope);
    if (!ws) return { items: [], total: 0 };
    let ids = query.type === undefined ? ws.entityOrder.sorted() : ws.entityOrder.ofType(query.type);
    const needle = query.search?.trim().toLowerCase();
    if (needle) ids = ids.filter((id) => (ws.searchKeys.get(id) as string).includes(needle));
    return pageOf(ids, query.limit, query.offset, (id) => copyEntity(ws.entity(id)));
  }

  /** Ordered by id. */
  async listRelationships(scope: Scope, query: RelationshipQuery): Promise<Page<RelationshipRecord>> {
    const ws = this.workspaces.find(scope);
    if (!ws) return { items: [], total: 0 };
    const ids = query.type === undefined ? ws.relationshipOrder.sorted() : ws.relationshipOrder.ofType(query.type);
    return pageOf(ids, query.limit, query.offset, (id) => copyRelationship(ws.relationship(id)));
  }

  /** Every id asked for is in the map; unknown entities have degree 0. */
  async degrees(scope: Scope, ids: string[]): Promise<Map<string, number>> {
    const ws = this.workspaces.find(scope);
    return new Map(ids.map((id) => [id, ws ? ws.degree(id) : 0]));
  }

  /**
   * Level by level from the start; within a level, most connected first, then by id. Work is bounded by the
   * nodes visited (and their edges), never by the size of the graph.
   */
  async bfs(scope: Scope, startId: string, depth: number, maxNodes: number): Promise<{ ids: string[]; truncated: boolean }> {
    const ws = this.workspaces.find(scope);
    if (!ws || !ws.graph.hasNode(startId)) return { ids: [], truncated: false };
    const graph = ws.graph;
    const limit = Math.max(0, Math.floor(maxNodes));
    if (limit === 0) return { ids: [], truncated: true };
    const ids = [startId];
    const seen = new Set(ids);
    let frontier = ids;
    for (let level = 1; level <= depth && frontier.length > 0; level++) {
      const room = limit - ids.length;
      if (room === 0) return { ids, truncated: frontier.some((node) => hasUnseenNeighbor(graph, node, seen)) };
      const next: string[] = [];
      for (const node of frontier) {
        graph.forEachNeighbor(node, (neighbor) => {
          if (seen.has(neighbor)) return;
          seen.add(neighbor);
          next.push(neighbor);
        });
      }
      ids.push(...strongest(graph, next, room));
      if (next.length > room) return { ids, truncated: true };
      frontier = next;
    }
    return { ids, truncated: false };
  }

  async topByDegree(scope: Scope, limit: number): Promise<string[]> {
    return this.workspaces.find(scope)?.byDegree().slice(0, Math.max(0, limit)) ?? [];
  }

  /** Ordered by relationship id. */
  async relationshipsAmong(scope: Scope, ids: string[]): Promise<RelationshipRecord[]> {
    const ws = this.workspaces.find(scope);
    if (!ws) return [];
    const members = new Set(ids.filter((id) => ws.graph.hasNode(id)));
    const found = new Map<string, RelationshipRecord>();
    for (const id of members) {
      ws.graph.forEachEdge(id, (edge, attributes, source, target) => {
        if (members.has(source) && members.has(target)) found.set(edge, attributes.record);
      });
    }
    return sortedRelationships(found);
  }

  async stats(scope: Scope): Promise<GraphStats> {
    const ws = this.workspaces.find(scope);
    if (!ws) return { total_nodes: 0, total_edges: 0, node_types: {}, edge_types: {} };
    return {
      total_nodes: ws.graph.order,
      total_edges: ws.graph.size,
      node_types: ws.entityTypes.toRecord(),
      edge_types: ws.relationTypes.toRecord(),
    };
  }

  /** The live graph of a workspace, for the analytics adapter (read only). */
  workspaceGraph(scope: Scope): WorkspaceGraph | undefined {
    return this.workspaces.find(scope);
  }

  dropWorkspace(scope: Scope): void {
    this.workspaces.drop(scope);
  }

  clear(): void {
    this.workspaces.clear();
  }
}

/**
 * The `keep` most connected of `nodes`, most connected first, ties by id. A level cut short is often far larger
 * than what is kept: only the nodes at or above the cut-off degree get sorted.
 */
function strongest(graph: WorkspaceGraph['graph'], nodes: string[], keep: number): string[] {
  const ranked = nodes.map((id) => ({ id, degree: graph.degree(id) }));
  let kept = ranked;
  if (ranked.length > keep) {
    const degrees = Float64Array.from(ranked, (r) => r.degree).sort();
    const cutoff = degrees[degrees.length - keep];
    kept = ranked.filter((r) => r.degree >= cutoff);
  }
  kept.sort((a, b) => b.degree - a.degree || compareIds(a.id, b.id));
  return kept.slice(0, keep).map((r) => r.id);
}

function hasUnseenNeighbor(graph: WorkspaceGraph['graph'], node: string, seen: Set<string>): boolean {
  return graph.someNeighbor(node, (neighbor) => !seen.has(neighbor));
}

function sortedRelationships(found: Map<string, RelationshipRecord>): RelationshipRecord[] {
  return [...found.keys()].sort(compareIds).map((id) => copyRelationship(found.get(id) as RelationshipRecord));
}

/** Each relationship touching the entities, once, by id. */
function relationshipsTouching(ws: WorkspaceGraph, entityIds: string[]): Map<string, RelationshipRecord> {
  const found = new Map<string, RelationshipRecord>();
  for (const id of new Set(entityIds)) {
    if (!ws.graph.hasNode(id)) continue;
    ws.graph.forEachEdge(id, (edge, attributes) => {
      found.set(edge, attributes.record);
    });
  }
  return found;
}
