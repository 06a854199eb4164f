import { InvalidInputError } from '../../domain/errors';
import { scopeKey } from '../../domain/ids';
import type { Scope } from '../../domain/types';

/**
 * Which models a workspace has used lately, for `/api/ps`. A model stays listed for its keep-alive after each
 * request, as a local runtime keeps a model loaded: 5 minutes unless the request's `keep_alive` says otherwise
 * (0 unloads at once, a negative value keeps it for good).
 */

export const DEFAULT_KEEP_ALIVE_MS = 5 * 60_000;
/** The longest duration a local runtime can express (2^63 - 1 ns): what "for good" reports as its expiry. */
const FOREVER_MS = 9_223_372_036_854;

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `keep_alive` as the runtime reads it: seconds as a number, or a duration such as `10m`, `1h30m`, `-1`. */
export function keepAliveMs(value: string | number | undefined | null): number {
  if (value === undefined || value === null || value === '') return DEFAULT_KEEP_ALIVE_MS;
  if (typeof value === 'number') return value < 0 ? Infinity : value * 1000;
  const text = value.trim();
  if (/^-?\d+(\.\d+)?$/.test(text)) return keepAliveMs(Number(text));
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  const sign = text.startsWith('-') ? -1 : 1;
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text.replace(/^[-+]/, '')) {
    throw InvalidInputError.field('keep_alive', `'${value}' is not a duration (e.g. 5m, 30s, 1h, -1)`);
  }
  const ms = parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_MS[p[2]], 0);
  return sign < 0 ? Infinity : ms;
}

export interface LoadedModel {
  name: string;
  expiresAt: Date;
}

export class LoadedModels {
  private readonly byScope = new Map<string, Map<string, number>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Records a use; a keep-alive of 0 unloads the model. */
  touch(scope: Scope, name: string, keepAlive: number): void {
    const key = scopeKey(scope);
    const models = this.byScope.get(key) ?? new Map<string, number>();
    if (keepAlive <= 0) models.delete(name);
    // Past FOREVER_MS is forever (and a later time would not be a valid date).
    else models.set(name, this.now() + Math.min(keepAlive, FOREVER_MS));
    if (models.size > 0) this.byScope.set(key, models);
    else this.byScope.delete(key);
  }

  /** The models still loaded in a workspace, the latest to expire first. */
  list(scope: Scope): LoadedModel[] {
    const models = this.byScope.get(scopeKey(scope));
    if (!models) return [];
    const now = this.now();
    for (const [name, until] of models) if (until <= now) models.delete(name);
    return [...models]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([name, until]) => ({ name, expiresAt: new Date(until) }));
  }
}
