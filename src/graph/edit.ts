import { ConflictError, InvalidInputError, NotFoundError } from '../domain/errors';
import { bumpGraphVersion } from '../llm/cache/responses';
import { normalizeEntityId } from '../domain/ids';
import type { EntityRecord, Scope } from '../domain/types';
import { type EntityOverride, recordOverride } from './aliases';
import { type GraphDeps, nowOf } from './deps';
import { embedEntities } from './embed';
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
  if (!entity) throw new NotFoundError(`entity '${id || rawId}' does not exist in workspace '${scope.workspaceId}'`);
  return entity;
}

/**
 * Rewrites an entity in place (same id) under the ingestion entity lock: re-embedded, the hand-set fields
 * recorded as overrides for later rebuilds, the update published.
 */
async function editInPlace(
  deps: GraphDeps,
  scope: Scope,
  rawId: string,
  cause: string,
  edit: (entity: EntityRecord, now: string) => { entity: EntityRecord; override: Omit<EntityOverride, 'updated_at'> },
): Promise<EntityRecord> {
  const id = normalizeEntityId(rawId);
  return deps.entityLocks.run(scope, [id], async () => {
    const now = nowOf(deps);
    const { entity, override } = edit(await requireEntity(deps, scope, rawId), now);
    const points = await embedEntities(deps, [entity]);
    await deps.stores.graph.upsertEntities(scope, [entity]);
    await deps.stores.vectors.upsert(scope, 'entity', points);
    await recordOverride(deps.stores.kv, scope, entity.id, override, now);
    await bumpGraphVersion(deps.stores.kv, scope);
    deps.events.publish({ scope, changes: [{ kind: 'node_updated', id: entity.id }], cause });
    return entity;
  });
}

/** An analyst's correction of an entity's description or type. */
export async function updateEntity(deps: GraphDeps, scope: Scope, rawId: string, patch: EntityPatch): Promise<EntityRecord> {
  const entityType = patch.entity_type === undefined ? undefined : normalizeEntityType(patch.entity_type);
  if (entityType === '') throw new InvalidInputError([{ field: 'entity_type', message: 'must not be blank' }]);
  const description = patch.description?.trim();
  return editInPlace(deps, scope, rawId, 'edit', (entity, now) => ({
    entity: {
      ...entity,
      description: description ?? entity.description,
      entity_type: entityType ?? entity.entity_type,
      updated_at: now,
    },
    override: { description, entity_type: entityType },
  }));
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
  if (!newId) throw new InvalidInputError([{ field: 'name', message: 'must contain a name' }]);
  const reason = `renamed from '${entity.name}' to '${name}'`;

  if (newId === entity.id) {
    const renamed = await editInPlace(deps, scope, entity.id, 'rename', (current, now) => ({
      entity: { ...current, name, updated_at: now },
      override: { name },
    }));
    return { entity: renamed, previous_id: entity.id, merged: false };
  }

  const holder = await deps.stores.graph.getEntity(scope, newId);
  if (holder && !input.merge) {
    throw new ConflictError(`entity '${newId}' already exists; send "merge": true to merge '${entity.id}' into it`, newId, {
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
