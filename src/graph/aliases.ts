import type { Scope } from '../domain/types';
import type { KeyValues, KeyValueStore } from '../store/ports';

/**
 * Records kept when analysts edit, merge or rename entities, in the key-value store:
 * - `entity_aliases`: old entity id -> id of the entity that absorbed it (a plain string). Ingestion and
 *   deletion rebuilds read cached extractions under the original names; they follow this map to the survivor.
 * - `merge_history`: survivor id -> MergeRecord[], shown by the entity lineage.
 * - `entity_overrides`: entity id -> EntityOverride, the fields an analyst set by hand, for rebuilds to keep.
 */
export const ALIASES_NAMESPACE = 'entity_aliases';
export const MERGE_HISTORY_NAMESPACE = 'merge_history';
export const OVERRIDES_NAMESPACE = 'entity_overrides';

export interface EntityOverride {
  name?: string;
  description?: string;
  entity_type?: string;
  updated_at: string;
}

export interface MergeRecord {
  date: string;
  /** Ids absorbed by this merge (for a rename: the old id). */
  merged_from: string[];
  reason: string;
}

/** Longest alias chain followed; chains are flattened on every merge, so this is only a guard against cycles. */
const MAX_HOPS = 16;

/** The live id each given id now goes by: itself when it has no alias. */
export async function resolveEntityAliases(kv: KeyValues, scope: Scope, ids: string[]): Promise<Map<string, string>> {
  const resolved = new Map(ids.map((id) => [id, id]));
  let pending = [...new Set(ids)];
  for (let hop = 0; hop < MAX_HOPS && pending.length > 0; hop++) {
    const aliases = await kv.getMany<string>(
      scope,
      ALIASES_NAMESPACE,
      pending.map((id) => resolved.get(id) ?? id),
    );
    const next: string[] = [];
    for (const id of pending) {
      const current = resolved.get(id) ?? id;
      const target = aliases.get(current);
      if (target && target !== current && target !== id) {
        resolved.set(id, target);
        next.push(id);
      }
    }
    pending = next;
  }
  return resolved;
}

export async function resolveEntityAlias(kv: KeyValueStore, scope: Scope, id: string): Promise<string> {
  return (await resolveEntityAliases(kv, scope, [id])).get(id) ?? id;
}

export async function mergeHistoryOf(kv: KeyValueStore, scope: Scope, id: string): Promise<MergeRecord[]> {
  return (await kv.get<MergeRecord[]>(scope, MERGE_HISTORY_NAMESPACE, id)) ?? [];
}

/** One merge to record: `survivor` absorbed `absorbed`. */
export interface RecordedMerge {
  survivor: string;
  absorbed: string[];
  record: MergeRecord;
}

/**
 * Records merges (of distinct entities) in a few writes whatever their number: the absorbed entities' histories
 * move to their survivor, and every id they ever stood for (themselves and what they had absorbed) now aliases
 * the survivor directly.
 */
export async function recordMerges(kv: KeyValueStore, scope: Scope, merges: RecordedMerge[]): Promise<void> {
  if (merges.length === 0) return;
  const survivors = merges.map((m) => m.survivor);
  const absorbed = merges.flatMap((m) => m.absorbed);
  const histories = await kv.getMany<MergeRecord[]>(scope, MERGE_HISTORY_NAMESPACE, [...survivors, ...absorbed]);
  const aliases: Array<[string, string]> = [];
  const merged: Array<[string, MergeRecord[]]> = [];
  for (const { survivor, absorbed: ids, record } of merges) {
    const history = [...(histories.get(survivor) ?? [])];
    const formerIds = new Set(ids);
    for (const id of ids) {
      for (const earlier of histories.get(id) ?? []) {
        history.push(earlier);
        for (const former of earlier.merged_from) formerIds.add(former);
      }
    }
    history.push(record);
    history.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    for (const id of formerIds) if (!survivors.includes(id)) aliases.push([id, survivor]);
    merged.push([survivor, history]);
  }
  await kv.setMany(scope, ALIASES_NAMESPACE, aliases);
  await kv.delete(scope, ALIASES_NAMESPACE, survivors);
  await kv.setMany(scope, MERGE_HISTORY_NAMESPACE, merged);
  await kv.delete(scope, MERGE_HISTORY_NAMESPACE, absorbed);
}

/** Adds hand-set fields to an entity's override record. */
export async function recordOverride(
  kv: KeyValueStore,
  scope: Scope,
  id: string,
  fields: Omit<EntityOverride, 'updated_at'>,
  now: string,
): Promise<void> {
  const previous = await kv.get<EntityOverride>(scope, OVERRIDES_NAMESPACE, id);
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  await kv.set(scope, OVERRIDES_NAMESPACE, id, { ...previous, ...defined, updated_at: now });
}

/** A renamed entity keeps its hand-set fields under its new id; absorbed entities' overrides lapse. */
export async function moveOverride(kv: KeyValueStore, scope: Scope, from: string, to: string): Promise<void> {
  const previous = await kv.get<EntityOverride>(scope, OVERRIDES_NAMESPACE, from);
  if (previous) await kv.set(scope, OVERRIDES_NAMESPACE, to, previous);
  await kv.delete(scope, OVERRIDES_NAMESPACE, [from]);
}
