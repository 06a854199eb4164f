import { normalizeEntityId } from '../domain/ids';
import type { EntityRecord, Scope } from '../domain/types';
import { conflict, notFound, validationError } from '../http/problem';
import { type GraphDeps, nowOf } from './deps';
import { embedEntities, embedRelationships } from './embed';
import { type MergeOutcome, mergeEntities } from './merge';

export interface EntityPatch {
  description?: string;
  entity_type?: string;
}

export interface RenameInput {
  name: string;
  /** When the new id belongs to another entity: merge into it (true) or refuse with 409 (false, the default). */
  merge?: boolean;
}

/** Entity types are stored like the extracted ones: UPPER_SNAKE. */
export function normalizeEntityType(raw: string): string {
  return raw.trim().replace(/\s+/g, '_').toUpperCase();
}

async function requireEntity(deps: GraphDeps, scope: Scope, rawId: string): Promise<EntityRecord> {
  const id = normalizeEntityId(rawId);
  const entity = id ? await deps.stores.graph.getEntity(scope, id) : null;
  if (!entity) throw notFound(`entity '${id || rawId}' does not exist in workspace '${scope.workspaceId}'`);
  return entity;
}

/** Writes an entity whose id is unchanged, re-embeds what its text feeds, and publishes the update. */
async function storeEdited(deps: GraphDeps, scope: Scope, entity: EntityRecord, cause: string, nameChanged: boolean) {
  const { graph, vectors } = deps.stores;
  const relationships = nameChanged ? await graph.relationshipsOf(scope, [entity.id]) : [];
  const [entityPoints, relationshipPoints] = await Promise.all([
    embedEntities(deps, [entity]),
    embedRelationships(deps, scope, relationships, [entity]),
  ]);
  await graph.upsertEntities(scope, [entity]);
  await vectors.upsert(scope, 'entity', entityPoints);
  await vectors.upsert(scope, 'relationship', relationshipPoints);
  deps.events.publish({ scope, changes: [{ kind: 'node_updated', id: entity.id }], cause });
}

/** An analyst's correction of an entity's description or type. */
export async function updateEntity(deps: GraphDeps, scope: Scope, rawId: string, patch: EntityPatch): Promise<EntityRecord> {
  const entity = await requireEntity(deps, scope, rawId);
  const entityType = patch.entity_type === undefined ? undefined : normalizeEntityType(patch.entity_type);
  if (entityType === '') throw validationError([{ field: 'entity_type', message: 'must not be blank' }]);
  const updated: EntityRecord = {
    ...entity,
    description: patch.description === undefined ? entity.description : patch.description.trim(),
    entity_type: entityType ?? entity.entity_type,
    updated_at: nowOf(deps),
  };
  await storeEdited(deps, scope, updated, 'edit', false);
  return updated;
}

export interface RenameOutcome {
  entity: EntityRecord;
  previous_id: string;
  /** True when the new name belonged to another entity and this one was merged into it. */
  merged: boolean;
}

/**
 * Renames an entity. Its id follows the name (normalised); when that id is taken, the entity is merged into
 * the holder only if asked (`merge: true`), else 409. Relationships, chunks, vectors and aliases follow.
 */
export async function renameEntity(deps: GraphDeps, scope: Scope, rawId: string, input: RenameInput): Promise<RenameOutcome> {
  const entity = await requireEntity(deps, scope, rawId);
  const name = input.name.trim().replace(/\s+/g, ' ');
  const newId = normalizeEntityId(name);
  if (!newId) throw validationError([{ field: 'name', message: 'must contain a name' }]);
  const reason = `renamed from '${entity.name}' to '${name}'`;

  if (newId === entity.id) {
    const renamed = { ...entity, name, updated_at: nowOf(deps) };
    await storeEdited(deps, scope, renamed, 'rename', true);
    return { entity: renamed, previous_id: entity.id, merged: false };
  }

  const holder = await deps.stores.graph.getEntity(scope, newId);
  if (holder && !input.merge) {
    throw conflict(`entity '${newId}' already exists; send "merge": true to merge '${entity.id}' into it`, {
      existing_id: newId,
    });
  }
  let outcome: MergeOutcome;
  if (holder) {
    outcome = await mergeEntities(deps, scope, { sourceIds: [entity.id], targetId: newId, reason, cause: 'rename' });
  } else {
    const newTarget: EntityRecord = { ...entity, id: newId, name };
    outcome = await mergeEntities(deps, scope, { sourceIds: [entity.id], targetId: newId, reason, newTarget, cause: 'rename' });
  }
  return { entity: outcome.entity, previous_id: entity.id, merged: Boolean(holder) };
}
