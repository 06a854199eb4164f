import { mapInSlices, TimeSlicer } from '../../domain/turns';
import type { EntityRecord, Scope } from '../../domain/types';
import {
  ALIASES_NAMESPACE,
  type EntityOverride,
  MERGE_HISTORY_NAMESPACE,
  type MergeRecord,
  OVERRIDES_NAMESPACE,
  resolveEntityAliases,
} from '../../graph/aliases';
import type { KeyValues, KeyValueStore, Stores } from '../../store/ports';
import { type ChunkStatements, statementsOf } from '../extract/describe';
import type { Draft } from './drafts';
import { readExtractions } from '../extract/cache';
import type { ParsedEntity, ParsedRelation } from '../extract/parser';
import type { EntityLocks } from '../../records/locks';
import { deleteStates, entityKey, relationshipKey } from './record-state';

/**
 * How ingestion keeps analysts' merges, renames and edits (graph/aliases.ts): cached extractions are read
 * under the ids their names now go by, hand-set fields win over derived ones, and the records of an entity
 * that no longer exists are forgotten with it.
 */

type Extraction = { entities: ParsedEntity[]; relations: ParsedRelation[] };

export interface AliasedStatements {
  statements: Map<string, ChunkStatements>;
  /** Merge-state keys of the names merged away and of the relationships naming them: nothing live has them. */
  formerKeys: string[];
}

/**
 * What each chunk says, under the survivors of the names it uses; `resolved` (id -> survivor, as
 * resolveEntityAliases answers) saves reading the aliases again when it covers every name.
 */
export async function statementsUnderAliases(
  kv: KeyValues,
  scope: Scope,
  extractions: Array<[string, Extraction]>,
  resolved?: ReadonlyMap<string, string>,
): Promise<AliasedStatements> {
  const names = await namesInSlices(extractions);
  const aliases =
    resolved && names.every((id) => resolved.has(id))
      ? new Map(names.flatMap((id): Array<[string, string]> => (resolved.get(id) !== id ? [[id, resolved.get(id) as string]] : [])))
      : await aliasesOf(kv, scope, names);
  // A large document's thousands of chunks are read in stretches that give way to I/O.
  const statements = await mapInSlices(extractions, ([chunkId, e]): [string, ChunkStatements] => [chunkId, statementsOf(e, aliases)]);
  return { statements: new Map(statements), formerKeys: await formerKeysOf(extractions, aliases) };
}

async function namesInSlices(extractions: Array<[string, Extraction]>): Promise<string[]> {
  const named = new Set<string>();
  const slicer = new TimeSlicer();
  for (const [, e] of extractions) {
    await slicer.tick();
    for (const entity of e.entities) named.add(entity.id);
    for (const r of e.relations) named.add(r.source).add(r.target);
  }
  return [...named];
}

function namesIn(extractions: Extraction[]): string[] {
  const named = new Set<string>();
  for (const e of extractions) {
    for (const entity of e.entities) named.add(entity.id);
    for (const r of e.relations) named.add(r.source).add(r.target);
  }
  return [...named];
}

/** Old id -> survivor id, for the names that went into another entity. */
async function aliasesOf(kv: KeyValues, scope: Scope, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const resolved = await resolveEntityAliases(kv, scope, ids);
  return new Map([...resolved].filter(([id, survivor]) => id !== survivor));
}

async function formerKeysOf(
  extractions: Array<[string, Extraction] | Extraction>,
  aliases: ReadonlyMap<string, string>,
): Promise<string[]> {
  const keys = new Set<string>();
  if (aliases.size === 0) return [];
  const slicer = new TimeSlicer();
  for (const item of extractions) {
    const e = Array.isArray(item) ? item[1] : item;
    await slicer.tick();
    for (const id of namesIn([e])) if (aliases.has(id)) keys.add(entityKey(id));
    for (const r of e.relations) if (aliases.has(r.source) || aliases.has(r.target)) keys.add(relationshipKey(r.id));
  }
  return [...keys];
}

/** Attempts before a lock keeps whatever set it holds; each retry means an analyst merge landed meanwhile. */
const LOCK_ATTEMPTS = 8;

/**
 * The entity lock over `ids` and the survivors they now go by. An analyst merge landing while waiting can move
 * them to another survivor: the lock is then taken again over the wider set. `fn` gets the survivors read under
 * the lock (id -> survivor).
 */
export async function withAliasedEntityLock<T>(
  kv: Stores['kv'],
  entityLocks: EntityLocks,
  scope: Scope,
  ids: string[],
  fn: (resolved: ReadonlyMap<string, string>) => Promise<T>,
): Promise<T> {
  let wanted = await withSurvivors(kv, scope, ids);
  for (let attempt = 1; ; attempt++) {
    const held = wanted;
    const outcome = await entityLocks.run(scope, held, async (): Promise<{ done: T } | { retry: string[] }> => {
      const resolved = await resolveEntityAliases(kv, scope, held);
      const now = [...new Set([...held, ...resolved.values()])];
      if (attempt < LOCK_ATTEMPTS && now.length > held.length) return { retry: now };
      return { done: await fn(resolved) };
    });
    if ('done' in outcome) return outcome.done;
    wanted = outcome.retry;
  }
}

async function withSurvivors(kv: KeyValueStore, scope: Scope, ids: string[]): Promise<string[]> {
  const resolved = await resolveEntityAliases(kv, scope, ids);
  return [...new Set([...ids, ...resolved.values()])];
}

/** Hand-set name, type and description replace the derived ones; the derived description stays in the merge state. */
export async function applyOverrides(kv: KeyValues, scope: Scope, drafts: Array<Draft<EntityRecord>>): Promise<void> {
  if (drafts.length === 0) return;
  const overrides = await kv.getMany<EntityOverride>(
    scope,
    OVERRIDES_NAMESPACE,
    drafts.map((d) => d.record.id),
  );
  for (const { record, state } of drafts) {
    delete state.description;
    const override = overrides.get(record.id);
    if (!override) continue;
    if (override.description !== undefined) {
      state.description = record.description;
      record.description = override.description;
    }
    if (override.entity_type !== undefined) record.entity_type = override.entity_type;
    if (override.name !== undefined) record.name = override.name;
  }
}

/**
 * Once a document's data left the graph for good: the merge states of the merged-away names its chunks used
 * go, and so do the edits (overrides, merge history, aliases) of every entity they named that no longer exists.
 */
export async function forgetDocumentNames(
  stores: Pick<Stores, 'kv' | 'graph'>,
  entityLocks: EntityLocks,
  scope: Scope,
  chunkIds: string[],
): Promise<void> {
  const extractions = [...(await readExtractions(stores.kv, scope, chunkIds)).values()];
  await forgetNamesOf(stores, entityLocks, scope, extractions);
}

/** forgetDocumentNames for extractions already read (an update that replaced them). */
export async function forgetNamesOf(
  stores: Pick<Stores, 'kv' | 'graph'>,
  entityLocks: EntityLocks,
  scope: Scope,
  extractions: Extraction[],
): Promise<void> {
  const { kv, graph } = stores;
  const named = namesIn(extractions);
  if (named.length === 0) return;
  await withAliasedEntityLock(kv, entityLocks, scope, named, async () => {
    const aliases = await aliasesOf(kv, scope, named);
    await deleteStates(kv, scope, await formerKeysOf(extractions, aliases));
    const candidates = [...new Set([...named, ...aliases.values()])];
    const live = new Set((await graph.getEntities(scope, candidates)).map((e) => e.id));
    const gone = candidates.filter((id) => !live.has(id));
    const intoGone = [...aliases].filter(([, survivor]) => !live.has(survivor)).map(([id]) => id);
    await forgetEntities(kv, scope, gone, intoGone);
  });
}

/** Entities gone from the graph take their overrides, merge history and the aliases pointing at them along. */
/** `aliased`: ids known to alias one of `ids`. */
async function forgetEntities(kv: KeyValueStore, scope: Scope, ids: string[], aliased: string[]): Promise<void> {
  if (ids.length === 0) return;
  const histories = await kv.getMany<MergeRecord[]>(scope, MERGE_HISTORY_NAMESPACE, ids);
  const formers = [...new Set([...histories.values()].flatMap((h) => h.flatMap((r) => r.merged_from)))];
  const dangling = new Set(aliased);
  if (formers.length) {
    const gone = new Set(ids);
    const targets = await kv.getMany<string>(scope, ALIASES_NAMESPACE, formers);
    for (const id of formers) if (gone.has(targets.get(id) ?? '')) dangling.add(id);
  }
  if (dangling.size) await kv.delete(scope, ALIASES_NAMESPACE, [...dangling]);
  await kv.delete(scope, MERGE_HISTORY_NAMESPACE, ids);
  await kv.delete(scope, OVERRIDES_NAMESPACE, ids);
}
