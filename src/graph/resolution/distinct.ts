import type { Scope } from '../../domain/types';
import type { KeyValueStore } from '../../store/ports';

/**
 * Pairs an analyst split apart (KV namespace `entity_distinct`: id -> ids it must not merge with), so that
 * resolution never merges them again.
 */
export const DISTINCT_NAMESPACE = 'entity_distinct';

/** The ids each of the entities must not merge with, read at once (an entity kept apart from none is missing). */
export async function distinctFromEach(kv: KeyValueStore, scope: Scope, ids: string[]): Promise<Map<string, Set<string>>> {
  const lists = ids.length ? await kv.getMany<string[]>(scope, DISTINCT_NAMESPACE, [...new Set(ids)]) : new Map<string, string[]>();
  return new Map([...lists].map(([id, list]) => [id, new Set(list)]));
}

export async function recordDistinct(kv: KeyValueStore, scope: Scope, a: string, b: string): Promise<void> {
  for (const [x, y] of [
    [a, b],
    [b, a],
  ]) {
    const current = (await kv.get<string[]>(scope, DISTINCT_NAMESPACE, x)) ?? [];
    if (!current.includes(y)) await kv.set(scope, DISTINCT_NAMESPACE, x, [...current, y]);
  }
}
