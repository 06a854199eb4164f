import type { AppConfig, CatalogProvider } from '../../config/types';
import { NotFoundError } from '../../domain/errors';
import {
  type ActiveDefaults,
  checkProvider,
  findModel,
  findProvider,
  listModels,
  listProviders,
  type ModelFilter,
  type ModelListItem,
  type ProviderListItem,
  type ProviderRegistry,
  toModelListItem,
} from '../../llm';
import type { Logger } from '../../logger';

/**
 * The model catalog as the API shows it (docs/api.md §4.11): models.toml merged with env (keys, hosts, the
 * default choice), live reachability checks, and the one start-up probe of the default providers (§1.2).
 */

export type ProviderHealth = Awaited<ReturnType<ProviderRegistry['check']>>[number];

/** The last live check of a provider (start-up probe, /models/health or /providers/{provider}); null before any. */
export type LastCheck = (Omit<ProviderHealth, 'name'> & { checked_at: string }) | null;

/** Each check waits at most this long; /models/health runs them all at once. */
export const HEALTH_TIMEOUT_MS = 3_000;
/** The start-up probe is shorter: an absent local runtime must not hold the start back. */
export const PROBE_TIMEOUT_MS = 1_500;

/** How long a check decides whether a provider's models are listed (docs/api.md §4.11). */
export const SERVABLE_TTL_MS = 30_000;

export interface ModelService {
  list(filter?: ModelFilter): ModelListItem[];
  /** The models this instance can serve now: those of enabled providers whose last check (at most 30 s old) answered. */
  servable(filter?: ModelFilter): Promise<ModelListItem[]>;
  /** The names of the providers that answered their last check (checked again when it is older than 30 s). */
  servableProviders(): Promise<Set<string>>;
  /** A model of the catalog, or NotFoundError. */
  model(provider: string, model: string): ModelListItem & { default_for: Array<'llm' | 'embedding'> };
  providers(): Array<ProviderListItem & { last_check: LastCheck }>;
  /** A provider with its models and a live check, or NotFoundError. */
  provider(name: string): Promise<ProviderListItem & { last_check: LastCheck; models: ModelListItem[]; health: ProviderHealth }>;
  providerModels(name: string): ModelListItem[];
  /** Live checks of every enabled provider, concurrently, each bounded by a timeout. */
  health(): Promise<{ providers: ProviderHealth[]; checked_at: string }>;
  /** Checks the default providers once (start-up) and says in the log what to do when one does not answer. */
  probeDefaults(): Promise<ProviderHealth[]>;
  /** What the start-up probe found unreachable (for /health), as sentences. */
  startupWarnings(): string[];
  /** EdgeQuake's view of the providers (`GET /settings/providers`): which answer, which is in use, their models. */
  availableProviders(): Promise<{ providers: AvailableProvider[] }>;
  /** EdgeQuake's view of the providers in use (`GET /settings/provider/status`). */
  providerStatus(): Promise<ProviderStatus>;
}

export interface AvailableProvider {
  name: string;
  display_name: string;
  is_available: boolean;
  is_current: boolean;
  models: string[];
}

export interface ProviderStatus {
  current_provider: string;
  current_model: string;
  embedding_provider: string;
  embedding_model: string;
  /** `healthy` when both providers in use answer, else `unreachable`. */
  status: 'healthy' | 'unreachable';
}

export function createModelService(deps: { config: AppConfig; providers: () => ProviderRegistry; log: Logger }): ModelService {
  const { config, log } = deps;
  const catalog = config.catalog;
  const active = (): ActiveDefaults => ({
    llm: { provider: config.llm.provider, model: config.llm.model },
    embedding: { provider: config.embedding.provider, model: config.embedding.model },
  });
  const providerOf = (name: string): CatalogProvider => {
    const p = findProvider(catalog, name);
    if (!p) throw new NotFoundError(`provider '${name}' is not in the model catalog`);
    return p;
  };
  const defaultFor = (provider: string, model: string) =>
    (['llm', 'embedding'] as const).filter((k) => active()[k].provider === provider && active()[k].model === model);
  let warnings: string[] = [];
  const lastChecks = new Map<string, NonNullable<LastCheck>>();
  const remember = (results: ProviderHealth[]) => {
    const checked_at = new Date().toISOString();
    for (const { name, ...rest } of results) lastChecks.set(name, { ...rest, checked_at });
    return results;
  };
  const withLastCheck = (p: ProviderListItem) => ({ ...p, last_check: lastChecks.get(p.name) ?? null });
  // One check at a time per provider, shared by the listings that ask while it runs.
  const pending = new Map<string, Promise<ProviderHealth>>();
  const freshCheck = (p: CatalogProvider): Promise<ProviderHealth> => {
    const last = lastChecks.get(p.name);
    if (last && Date.now() - Date.parse(last.checked_at) < SERVABLE_TTL_MS) return Promise.resolve({ name: p.name, ...last });
    let check = pending.get(p.name);
    if (!check) {
      check = checkProvider(p, PROBE_TIMEOUT_MS)
        .then((r) => remember([r])[0])
        .finally(() => pending.delete(p.name));
      pending.set(p.name, check);
    }
    return check;
  };
  const servableProviders = async (): Promise<Set<string>> => {
    const enabled = catalog.providers.filter((p) => p.enabled);
    const checks = await Promise.all(enabled.map((p) => (p.type === 'mock' ? Promise.resolve(null) : freshCheck(p))));
    return new Set(enabled.filter((p, i) => checks[i] === null || checks[i].status === 'healthy').map((p) => p.name));
  };

  return {
    list: (filter = {}) => listModels(catalog, filter),

    async servable(filter = {}) {
      const models = listModels(catalog, filter);
      if (filter.includeDisabled) return models;
      const names = await servableProviders();
      return models.filter((m) => names.has(m.provider));
    },

    servableProviders,

    model(provider, model) {
      const p = providerOf(provider);
      const m = findModel(catalog, p.name, model);
      if (!m) throw new NotFoundError(`model '${model}' is not in the catalog of provider '${p.name}'`);
      return { ...toModelListItem(p, m), default_for: defaultFor(p.name, m.name) };
    },

    providers: () => listProviders(catalog, active()).map(withLastCheck),

    async provider(name) {
      const p = providerOf(name);
      const item = listProviders(catalog, active()).find((x) => x.name === p.name)!;
      const health = p.enabled
        ? remember([await checkProvider(p, HEALTH_TIMEOUT_MS)])[0]
        : { name: p.name, status: 'unhealthy' as const, latency_ms: 0, error: disabledReason(p) };
      return { ...withLastCheck(item), models: p.models.map((m) => toModelListItem(p, m)), health };
    },

    providerModels: (name) => {
      const p = providerOf(name);
      return p.models.map((m) => toModelListItem(p, m));
    },

    async health() {
      const enabled = catalog.providers.filter((p) => p.enabled);
      const providers = remember(await Promise.all(enabled.map((p) => checkProvider(p, HEALTH_TIMEOUT_MS))));
      return { providers, checked_at: new Date().toISOString() };
    },

    async probeDefaults() {
      const names = [...new Set([config.llm.provider, config.embedding.provider])];
      const probed = names.map((n) => providerOf(n)).filter((p) => p.type !== 'mock');
      const results = remember(await Promise.all(probed.map((p) => checkProvider(p, PROBE_TIMEOUT_MS))));
      warnings = [];
      results.forEach((r, i) => {
        const p = probed[i];
        const kinds = (['llm', 'embedding'] as const).filter((k) => active()[k].provider === p.name);
        if (r.status === 'healthy') {
          log.info({ provider: p.name, api_base: p.api_base, latency_ms: r.latency_ms, default_for: kinds }, 'model provider reachable');
          return;
        }
        const sentence =
          `the default ${kinds.join(' and ')} provider '${p.name}' (${p.type} at ${p.api_base}) did not answer at start-up: ${r.error}; ` +
          'the service runs and its calls fail until the provider answers. SERVICE_LLM_PROVIDER=mock selects the offline mock provider' +
          (p.type === 'ollama' ? '; OPENAI_API_KEY selects the hosted provider' : '');
        warnings.push(sentence);
        log.warn({ provider: p.name, api_base: p.api_base, error: r.error, default_for: kinds }, sentence);
      });
      return results;
    },

    startupWarnings: () => [...warnings],

    async availableProviders() {
      const servable = await servableProviders();
      const providers = listProviders(catalog, active()).map((p) => ({
        name: p.name,
        display_name: p.display_name,
        is_available: servable.has(p.name),
        is_current: p.default_for.length > 0,
        models: [...p.llm_models, ...p.embedding_models],
      }));
      return { providers };
    },

    async providerStatus() {
      const servable = await servableProviders();
      const { llm, embedding } = active();
      return {
        current_provider: llm.provider,
        current_model: llm.model,
        embedding_provider: embedding.provider,
        embedding_model: embedding.model,
        status: servable.has(llm.provider) && servable.has(embedding.provider) ? ('healthy' as const) : ('unreachable' as const),
      };
    },
  };
}

function disabledReason(p: CatalogProvider): string {
  return p.api_key_env && !p.api_key ? `disabled: ${p.api_key_env} is not set` : 'disabled in the catalog';
}
