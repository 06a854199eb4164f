import { ConflictError, InvalidInputError, NotFoundError } from '../domain/errors';
import { documentsOfChunks, normalizeEntityId } from '../domain/ids';
import type { EntityRecord, Scope } from '../domain/types';
import { OVERRIDES_NAMESPACE, recordOverride } from './aliases';
import { union } from './combine';
import { type GraphDeps, nowOf } from './deps';
import { normalizeEntityType } from './edit';
import { embedEntities } from './embed';
import type { GraphChange } from './events';
import { bumpGraphVersion } from '../llm/cache/responses';
import { documentLinksLockKey } from '../records/locks';
import { recountDocuments, withRelatedLock } from './merge';

export interface EntityInput {
  name: string;
  entity_type: string;
  description?: string;
}

/**
 * An analyst's own entity (docs/api.md §4.5): no source chunk, embedded for retrieval, its fields recorded as
 * overrides so that a document that later names it keeps the analyst's type and description. 409 when the name is
 * taken.
 */
export async function createEntity(deps: GraphDeps, scope: Scope, input: EntityInput): Promise<EntityRecord> {
  const name = input.name.trim().replace(/\s+/g, ' ');
  const id = normalizeEntityId(name);
  if (!id) throw new InvalidInputError([{ field: 'entity_name', message: 'must contain a name' }]);
  const entityType = normalizeEntityType(input.entity_type);
  if (!entityType) throw new InvalidInputError([{ field: 'entity_type', message: 'must not be blank' }]);
  return deps.entityLocks.run(scope, [id], async () => {
    if (await deps.stores.graph.getEntity(scope, id)) throw new ConflictError(`entity '${id}' already exists`, id, { existing_id: id });
    const now = nowOf(deps);
    const description = input.description?.trim() ?? '';
    const entity: EntityRecord = {
      id,
      name,
      entity_type: entityType,
      description,
      source_chunk_ids: [],
      document_ids: [],
      created_at: now,
      updated_at: now,
    };
    const points = await embedEntities(deps, [entity]);
    await deps.stores.graph.upsertEntities(scope, [entity]);
    await deps.stores.vectors.upsert(scope, 'entity', points);
    await recordOverride(deps.stores.kv, scope, id, { name, entity_type: entityType, description }, now);
    await bumpGraphVersion(deps.stores.kv, scope);
    deps.events.publish({ scope, changes: [{ kind: 'node_added', id }], cause: 'create' });
    return entity;
  });
}

/**
 * Removes an entity with every relationship touching it, their vectors and the chunk records' links to them, and
 * publishes the removals. A document that names it again (reprocessing) extracts it again.
 */
export async function deleteEntity(deps: GraphDeps, scope: Scope, rawId: string): Promise<{ id: string; relationships_removed: number }> {
  const id = normalizeEntityId(rawId);
  if (!id) throw new NotFoundError(`entity '${rawId}' does not exist in workspace '${scope.workspaceId}'`);
  return withRelatedLock(deps, scope, [id], [id], async () => {
    const { graph, chunks, vectors, kv } = deps.stores;
    const entity = await graph.getEntity(scope, id);
    if (!entity) throw new NotFoundError(`entity '${id}' does not exist in workspace '${scope.workspaceId}'`);
    const touching = await graph.relationshipsOf(scope, [id]);
    const relationshipIds = new Set(touching.map((r) => r.id));
    await graph.deleteRelationships(scope, [...relationshipIds]);
    await graph.deleteEntities(scope, [id]);
    const affected = union(entity.source_chunk_ids, ...touching.map((r) => r.source_chunk_ids));
    const documentIds = union(entity.document_ids, ...touching.map((r) => r.document_ids), documentsOfChunks(affected));
    await deps.entityLocks.run(scope, documentIds.map(documentLinksLockKey), async () => {
      const changed = (await chunks.linksOf(scope, affected)).map((chunk) => ({
        ...chunk,
        entity_ids: chunk.entity_ids.filter((e) => e !== id),
        relationship_ids: chunk.relationship_ids.filter((r) => !relationshipIds.has(r)),
      }));
      await chunks.setLinks(scope, changed);
      await recountDocuments(deps.stores, scope, documentIds);
    });
    await vectors.delete(scope, 'entity', [id]);
    await vectors.delete(scope, 'relationship', [...relationshipIds]);
    await kv.delete(scope, OVERRIDES_NAMESPACE, [id]);
    await bumpGraphVersion(kv, scope);
    const changes: GraphChange[] = [
      ...touching.map((r) => ({ kind: 'edge_removed' as const, id: r.id, source: r.source, target: r.target })),
      { kind: 'node_removed', id },
    ];
    deps.events.publish({ scope, changes, cause: 'delete' });
    return { id, relationships_removed: touching.length };
  });
}
