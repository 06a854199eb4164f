import type { Scope } from '../../domain/types';
import type { KeyValueStore } from '../../store/ports';

/** A workspace's resolution settings (KV namespace `settings`, key `entity_resolution`) over the service defaults. */

export const SETTINGS_NAMESPACE = 'settings';
const KEY = 'entity_resolution';

export interface ResolutionSettings {
  enabled: boolean;
  /** A candidate scoring at least this merges without asking the LLM. */
  merge_score: number;
  /** Candidates from this score up to merge_score are merged when the LLM confirms them. */
  review_score: number;
}

export interface ResolutionDefaults {
  enabled: boolean;
  mergeScore: number;
  reviewScore: number;
}

export async function resolutionSettings(kv: KeyValueStore, scope: Scope, defaults: ResolutionDefaults): Promise<ResolutionSettings> {
  const stored = await kv.get<Partial<ResolutionSettings>>(scope, SETTINGS_NAMESPACE, KEY);
  return {
    enabled: stored?.enabled ?? defaults.enabled,
    merge_score: stored?.merge_score ?? defaults.mergeScore,
    review_score: stored?.review_score ?? defaults.reviewScore,
  };
}

export async function saveResolutionSettings(
  kv: KeyValueStore,
  scope: Scope,
  defaults: ResolutionDefaults,
  patch: Partial<ResolutionSettings>,
): Promise<ResolutionSettings> {
  const stored = (await kv.get<Partial<ResolutionSettings>>(scope, SETTINGS_NAMESPACE, KEY)) ?? {};
  const next = { ...stored, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) };
  await kv.set(scope, SETTINGS_NAMESPACE, KEY, next);
  return resolutionSettings(kv, scope, defaults);
}
