import type { CatalogModel, CatalogProvider, ModelCatalog, ModelCost } from '../config/types';

/** Pure views of the model catalog for /models, /providers and the compatibility layer (docs/api.md §2.7, §4.11). */

export interface ModelListItem {
  /** `provider/name`, unique across providers. */
  id: string;
  name: string;
  display_name: string;
  provider: string;
  model_type: 'llm' | 'embedding';
  context_length: number;
  max_output_tokens: number;
  /** 0 for LLMs. */
  embedding_dimension: number;
  /** `chat` for LLMs, `embeddings` for embedding models. */
  capabilities: string[];
  deprecated: boolean;
  tags: string[];
  description: string;
  /** What the model supports beyond chat or embeddings (models.toml capabilities). */
  supports: { vision: boolean; function_calling: boolean; json_mode: boolean; streaming: boolean; system_message: boolean };
  /** US dollars per 1,000 tokens (images: per image), from the catalog. */
  cost: ModelCost;
}

export interface ProviderListItem {
  name: string;
  display_name: string;
  type: CatalogProvider['type'];
  api_base: string | null;
  enabled: boolean;
  priority: number;
  description: string;
  /** The name of the key variable, never the key. */
  api_key_env: string | null;
  api_key_set: boolean;
  llm_models: string[];
  embedding_models: string[];
  default_for: Array<'llm' | 'embedding'>;
}

export interface ModelFilter {
  provider?: string;
  type?: 'llm' | 'embedding';
  /** Models of disabled providers are left out unless asked for. */
  includeDisabled?: boolean;
}

export interface ActiveDefaults {
  llm: { provider: string; model: string };
  embedding: { provider: string; model: string };
}

export function modelId(provider: string, model: string): string {
  return `${provider}/${model}`;
}

export function toModelListItem(provider: CatalogProvider, m: CatalogModel): ModelListItem {
  return {
    id: modelId(provider.name, m.name),
    name: m.name,
    display_name: m.display_name,
    provider: provider.name,
    model_type: m.model_type,
    context_length: m.capabilities.context_length,
    max_output_tokens: m.capabilities.max_output_tokens,
    embedding_dimension: m.capabilities.embedding_dimension,
    capabilities: m.model_type === 'llm' ? ['chat'] : ['embeddings'],
    deprecated: m.deprecated,
    tags: [...m.tags],
    description: m.description,
    supports: {
      vision: m.capabilities.supports_vision,
      function_calling: m.capabilities.supports_function_calling,
      json_mode: m.capabilities.supports_json_mode,
      streaming: m.capabilities.supports_streaming,
      system_message: m.capabilities.supports_system_message,
    },
    cost: { ...m.cost },
  };
}

/** Providers by priority (lower first), then by name. */
export function sortedProviders(catalog: ModelCatalog): CatalogProvider[] {
  return [...catalog.providers].sort((a, b) => a.priority - b.priority || a.name.localeCompare(b.name));
}

export function listModels(catalog: ModelCatalog, filter: ModelFilter = {}): ModelListItem[] {
  return sortedProviders(catalog)
    .filter((p) => (filter.provider === undefined || p.name === filter.provider) && (filter.includeDisabled || p.enabled))
    .flatMap((p) => p.models.filter((m) => !filter.type || m.model_type === filter.type).map((m) => toModelListItem(p, m)));
}

export function listProviders(catalog: ModelCatalog, defaults?: ActiveDefaults): ProviderListItem[] {
  const active = defaults ?? {
    llm: { provider: catalog.defaults.llm_provider, model: catalog.defaults.llm_model },
    embedding: { provider: catalog.defaults.embedding_provider, model: catalog.defaults.embedding_model },
  };
  return sortedProviders(catalog).map((p) => ({
    name: p.name,
    display_name: p.display_name,
    type: p.type,
    api_base: p.api_base,
    enabled: p.enabled,
    priority: p.priority,
    description: p.description,
    api_key_env: p.api_key_env,
    api_key_set: p.api_key !== null,
    llm_models: p.models.filter((m) => m.model_type === 'llm').map((m) => m.name),
    embedding_models: p.models.filter((m) => m.model_type === 'embedding').map((m) => m.name),
    default_for: (['llm', 'embedding'] as const).filter((k) => active[k].provider === p.name),
  }));
}

/** The models of one provider, or null when the catalog has no such provider. */
export function providerModels(catalog: ModelCatalog, provider: string): ModelListItem[] | null {
  const p = catalog.providers.find((x) => x.name === provider);
  return p ? p.models.map((m) => toModelListItem(p, m)) : null;
}

export function findProvider(catalog: ModelCatalog, provider: string): CatalogProvider | undefined {
  return catalog.providers.find((p) => p.name === provider);
}

/** A catalog model (with its cost and capabilities), or undefined when not listed. */
export function findModel(catalog: ModelCatalog, provider: string, model: string): CatalogModel | undefined {
  return findProvider(catalog, provider)?.models.find((m) => m.name === model);
}

/**
 * Resolves a model reference as clients send it: `provider/model` (our ids), or a bare model name
 * looked up across enabled providers by priority. Undefined when nothing matches.
 */
export function resolveModelRef(
  catalog: ModelCatalog,
  ref: string,
  type?: 'llm' | 'embedding',
): { provider: string; model: string } | undefined {
  const slash = ref.indexOf('/');
  if (slash > 0) {
    const provider = findProvider(catalog, ref.slice(0, slash));
    if (provider) return { provider: provider.name, model: ref.slice(slash + 1) };
  }
  for (const p of sortedProviders(catalog)) {
    if (!p.enabled) continue;
    const m = p.models.find((x) => x.name === ref && (!type || x.model_type === type));
    if (m) return { provider: p.name, model: m.name };
  }
  return undefined;
}
