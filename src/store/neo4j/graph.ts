import type { EntityRecord, Page, RelationshipRecord, Scope } from '../../domain/types';
import type { DocumentGraphCounts, EntityQuery, GraphStats, GraphStore, RelationshipQuery, SourceBounds } from '../ports';
import { type CypherTransaction, type Neo4jClient, type Row, scopeParams } from './client';
import { ENTITY_FIELDS, RELATIONSHIP_FIELDS, decode, decodeRelationship, encode } from './codecs';
import { entityTypeLabel, lookupsFor, relationTypeName } from './graph-names';
import { count, int, num } from './values';

const BATCH = 500;

function relationshipsFrom(rows: Row[]): RelationshipRecord[] {
  return rows.map((row) => decodeRelationship(row.relationship, row.source, row.target));
}

/** The records in the order of `ids`, unknown ids skipped. */
function inOrder(ids: string[], records: RelationshipRecord[]): RelationshipRecord[] {
  const byId = new Map(records.map((r) => [r.id, r]));
  return ids.filter((id) => byId.has(id)).map((id) => byId.get(id) as RelationshipRecord);
}

/** Last occurrence of each id wins, as if the records were written one after another. */
function lastById<T extends { id: string }>(records: readonly T[]): T[] {
  return [...new Map(records.map((r) => [r.id, r])).values()];
}

/**
 * The knowledge graph as analysts see it in Neo4j: `(:Entity:PERSON)-[:WORKS_WITH]->(:Entity)`, chunks linked
 * by MENTIONS. Every query starts from workspace-scoped, indexed entity nodes; nothing reads the whole graph.
 */
export class Neo4jGraphStore implements GraphStore {
  constructor(private readonly db: Neo4jClient) {}

  async getEntity(scope: Scope, id: string): Promise<EntityRecord | null> {
    return (await this.getEntities(scope, [id]))[0] ?? null;
  }

  async getEntities(scope: Scope, ids: string[]): Promise<EntityRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.readRows('entities/get-many', { ...scopeParams(scope), ids });
    return rows.map((row) => decode(ENTITY_FIELDS, row.entity));
  }

  /** `getEntities` with only the latest sources of each record, cut in the database. */
  async entitiesWithin(scope: Scope, ids: string[], bounds: SourceBounds): Promise<EntityRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.readRows('entities/get-many-within', {
      ...scopeParams(scope),
      ids,
      sources: int(bounds.chunks),
      document_sources: int(bounds.documents),
    });
    return rows.map((row) => decode(ENTITY_FIELDS, row.entity));
  }

  /** Replaces whole records; a changed type moves the node to its new type label. */
  async upsertEntities(scope: Scope, entities: EntityRecord[]): Promise<void> {
    if (entities.length === 0) return;
    const params = scopeParams(scope);
    const unique = lastById(entities);
    await this.db.write(async (tx) => {
      for (let i = 0; i < unique.length; i += BATCH) {
        await this.writeEntities(tx, params, unique.slice(i, i + BATCH));
      }
    });
  }

  async deleteEntities(scope: Scope, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.writeRows('entities/delete', { ...scopeParams(scope), ids });
  }

  async getRelationships(scope: Scope, ids: string[]): Promise<RelationshipRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.readRows('relationships/find', { ...scopeParams(scope), lookups: lookupsFor(ids) });
    return inOrder(ids, relationshipsFrom(rows));
  }

  /** `getRelationships` with only the latest sources of each record, cut in the database. */
  async relationshipsWithin(scope: Scope, ids: string[], bounds: SourceBounds): Promise<RelationshipRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.readRows('relationships/find-within', {
      ...scopeParams(scope),
      lookups: lookupsFor(ids),
      sources: int(bounds.chunks),
      document_sources: int(bounds.documents),
    });
    return inOrder(ids, relationshipsFrom(rows));
  }

  /**
   * Both end points must be stored entities; otherwise the whole batch is refused before anything is written.
   * A relationship upserted again is replaced (its Neo4j type follows relation_type).
   */
  async upsertRelationships(scope: Scope, relationships: RelationshipRecord[]): Promise<void> {
    if (relationships.length === 0) return;
    const params = scopeParams(scope);
    const unique = lastById(relationships);
    await this.db.write(async (tx) => {
      const ends = [...new Set(unique.flatMap((r) => [r.source, r.target]))];
      const missing = await tx.run('entities/missing', { ...params, ids: ends });
      if (missing.length > 0) {
        const names = missing.slice(0, 10).map((row) => String(row.id));
        throw new Error(`relationships refer to unknown entities: ${names.join(', ')}`);
      }
      for (let i = 0; i < unique.length; i += BATCH) {
        const batch = unique.slice(i, i + BATCH);
        const lookups = [...lookupsFor(batch.map((r) => r.id)), ...batch.map(({ id, source, target }) => ({ id, source, target }))];
        await tx.run('relationships/delete', { ...params, lookups });
        const rows = batch.map((r) => ({
          source: r.source,
          target: r.target,
          type: relationTypeName(r.relation_type),
          props: encode(RELATIONSHIP_FIELDS, r),
        }));
        await tx.run('relationships/create', { ...params, rows });
      }
    });
  }

  async deleteRelationships(scope: Scope, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.writeRows('relationships/delete', { ...scopeParams(scope), lookups: lookupsFor(ids) });
  }

  async relationshipsOf(scope: Scope, entityIds: string[]): Promise<RelationshipRecord[]> {
    if (entityIds.length === 0) return [];
    const ids = [...new Set(entityIds)];
    return relationshipsFrom(await this.db.readRows('relationships/of-entities', { ...scopeParams(scope), ids }));
  }

  async entitiesOfDocument(scope: Scope, documentId: string): Promise<EntityRecord[]> {
    const rows = await this.db.readRows('entities/of-document', { ...scopeParams(scope), document_id: documentId });
    return rows.map((row) => decode(ENTITY_FIELDS, row.entity));
  }

  async relationshipsOfDocument(scope: Scope, documentId: string): Promise<RelationshipRecord[]> {
    const params = { ...scopeParams(scope), document_id: documentId };
    return relationshipsFrom(await this.db.readRows('relationships/of-document', params));
  }

  async countsOfDocuments(scope: Scope, documentIds: string[]): Promise<Map<string, DocumentGraphCounts>> {
    const ids = [...new Set(documentIds)];
    if (ids.length === 0) return new Map();
    const rows = await this.db.readRows('graph/document-counts', { ...scopeParams(scope), document_ids: ids });
    return new Map(rows.map((row) => [String(row.document_id), { entities: num(row.entities), relationships: num(row.relationships) }]));
  }

  async listEntities(scope: Scope, query: EntityQuery): Promise<Page<EntityRecord>> {
    const search = query.search?.trim().toLowerCase();
    const [row] = await this.db.readRows('entities/list', {
      ...scopeParams(scope),
      type: query.type ?? null,
      search: search ? search : null,
      offset: count(query.offset),
      limit: count(query.limit),
    });
    return { items: (row.entities as unknown[]).map((e) => decode(ENTITY_FIELDS, e)), total: num(row.total) };
  }

  async listRelationships(scope: Scope, query: RelationshipQuery): Promise<Page<RelationshipRecord>> {
    const [row] = await this.db.readRows('relationships/list', {
      ...scopeParams(scope),
      type: query.type ?? null,
      offset: count(query.offset),
      limit: count(query.limit),
    });
    return { items: relationshipsFrom(row.relationships as Row[]), total: num(row.total) };
  }

  async degrees(scope: Scope, ids: string[]): Promise<Map<string, number>> {
    const degrees = new Map<string, number>(ids.map((id) => [id, 0]));
    if (ids.length === 0) return degrees;
    const rows = await this.db.readRows('graph/degrees', { ...scopeParams(scope), ids: [...degrees.keys()] });
    for (const row of rows) degrees.set(String(row.id), num(row.degree));
    return degrees;
  }

  /**
   * Level by level in one read transaction; each level asks the database for the unseen neighbours of the
   * frontier, most connected first, and never for more than still fits.
   */
  async bfs(scope: Scope, startId: string, depth: number, maxNodes: number): Promise<{ ids: string[]; truncated: boolean }> {
    const params = scopeParams(scope);
    const limit = Math.max(0, Math.floor(maxNodes));
    return this.db.read(async (tx) => {
      const start = await tx.run('entities/get-many', { ...params, ids: [startId] });
      if (start.length === 0) return { ids: [], truncated: false };
      if (limit === 0) return { ids: [], truncated: true };
      const ids = [startId];
      let frontier = ids;
      for (let level = 1; level <= depth && frontier.length > 0; level++) {
        const room = limit - ids.length;
        const rows = await tx.run('graph/bfs-level', { ...params, frontier, seen: ids, take: count(room + 1) });
        const next = rows.map((row) => String(row.id));
        if (room === 0) return { ids, truncated: next.length > 0 };
        ids.push(...next.slice(0, room));
        if (next.length > room) return { ids, truncated: true };
        frontier = next;
      }
      return { ids, truncated: false };
    });
  }

  async topByDegree(scope: Scope, limit: number): Promise<string[]> {
    if (limit <= 0) return [];
    const rows = await this.db.readRows('graph/top-by-degree', { ...scopeParams(scope), limit: count(limit) });
    return rows.map((row) => String(row.id));
  }

  async relationshipsAmong(scope: Scope, ids: string[]): Promise<RelationshipRecord[]> {
    if (ids.length === 0) return [];
    const unique = [...new Set(ids)];
    return relationshipsFrom(await this.db.readRows('relationships/among', { ...scopeParams(scope), ids: unique }));
  }

  async stats(scope: Scope): Promise<GraphStats> {
    const params = scopeParams(scope);
    const [entityTypes, relationTypes] = await this.db.read(async (tx) => [
      await tx.run('graph/entity-type-counts', params),
      await tx.run('graph/relation-type-counts', params),
    ]);
    const tally = (rows: Row[]) => Object.fromEntries(rows.map((row) => [String(row.type), num(row.total)]));
    const node_types = tally(entityTypes);
    const edge_types = tally(relationTypes);
    const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
    return { total_nodes: sum(node_types), total_edges: sum(edge_types), node_types, edge_types };
  }

  private async writeEntities(tx: CypherTransaction, params: ReturnType<typeof scopeParams>, entities: EntityRecord[]): Promise<void> {
    const stored = await tx.run('entities/sources', { ...params, ids: entities.map((e) => e.id) });
    const before = new Map(stored.map((row) => [String(row.id), new Set((row.sources as string[] | null) ?? [])]));
    const rows = entities.map((e) => {
      const now = new Set(e.source_chunk_ids);
      const was = before.get(e.id) ?? new Set<string>();
      return {
        label: entityTypeLabel(e.entity_type),
        props: encode(ENTITY_FIELDS, e),
        linked: [...now].filter((id) => !was.has(id)),
        unlinked: [...was].filter((id) => !now.has(id)),
      };
    });
    await tx.run('entities/upsert', { ...params, rows });
  }
}
