import { NotFoundError } from '../domain/errors';
import { normalizeEntityId } from '../domain/ids';
import type { Scope } from '../domain/types';
import { entityNames, mentionSpan, preview } from '../domain/text';
import type { Stores } from '../store/ports';
import { type EntityItem, type RelationshipItem, toEntityItem, toRelationshipItem } from './present';

export interface EntityListQuery {
  limit: number;
  offset: number;
  type?: string;
  search?: string;
}

export interface RelationshipListQuery {
  limit: number;
  offset: number;
  type?: string;
  /** Only the relationships of this entity (id or name). */
  entity?: string;
}

export interface SourceChunk {
  chunk_id: string;
  document_id: string;
  start_line: number;
  end_line: number;
  /** The sentences naming the entity, or the start of the chunk. */
  snippet: string;
}

export interface EntityDetail extends EntityItem {
  relationships: RelationshipItem[];
  source_chunks: SourceChunk[];
}

/** Types are stored upper-case; a filter in any case finds them. */
function typeFilter(type: string | undefined): string | undefined {
  const trimmed = type?.trim();
  return trimmed ? trimmed.toUpperCase() : undefined;
}

export async function listEntities(stores: Stores, scope: Scope, query: EntityListQuery) {
  const page = await stores.graph.listEntities(scope, {
    limit: query.limit,
    offset: query.offset,
    type: typeFilter(query.type),
    search: query.search?.trim() || undefined,
  });
  const degrees = await stores.graph.degrees(
    scope,
    page.items.map((e) => e.id),
  );
  return {
    entities: page.items.map((e) => toEntityItem(e, degrees.get(e.id) ?? 0)),
    total: page.total,
    limit: query.limit,
    offset: query.offset,
  };
}

export async function listRelationships(stores: Stores, scope: Scope, query: RelationshipListQuery) {
  if (query.entity !== undefined) {
    // One entity's relationships are few: filtered and paged here.
    const type = typeFilter(query.type);
    const all = (await stores.graph.relationshipsOf(scope, [normalizeEntityId(query.entity)]))
      .filter((r) => !type || r.relation_type.toUpperCase() === type)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const items = all.slice(query.offset, query.offset + query.limit).map(toRelationshipItem);
    return { relationships: items, total: all.length, limit: query.limit, offset: query.offset };
  }
  const page = await stores.graph.listRelationships(scope, {
    limit: query.limit,
    offset: query.offset,
    type: typeFilter(query.type),
  });
  return { relationships: page.items.map(toRelationshipItem), total: page.total, limit: query.limit, offset: query.offset };
}

/** One entity with its relationships and the chunks it was extracted from. */
export async function entityDetail(stores: Stores, scope: Scope, rawId: string): Promise<EntityDetail> {
  const id = normalizeEntityId(rawId);
  const entity = id ? await stores.graph.getEntity(scope, id) : null;
  if (!entity) throw new NotFoundError(`entity '${id || rawId}' does not exist in workspace '${scope.workspaceId}'`);
  const [degrees, relationships, chunks] = await Promise.all([
    stores.graph.degrees(scope, [id]),
    stores.graph.relationshipsOf(scope, [id]),
    stores.chunks.getMany(scope, entity.source_chunk_ids),
  ]);
  const names = entityNames(entity);
  return {
    ...toEntityItem(entity, degrees.get(id) ?? 0),
    relationships: relationships.map(toRelationshipItem),
    source_chunks: chunks.map((chunk) => {
      const span = mentionSpan(chunk.content, names);
      return {
        chunk_id: chunk.id,
        document_id: chunk.document_id,
        start_line: chunk.start_line,
        end_line: chunk.end_line,
        snippet: preview(span ? chunk.content.slice(span.start, span.end) : chunk.content, 300),
      };
    }),
  };
}
