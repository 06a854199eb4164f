import type { AppConfig, CatalogProvider } from '../config/types';
import { UnknownProviderError } from './ports';
import type { WorkspaceModels } from './workspace-models';

/**
 * The one place that decides which provider and model serve a call (docs/api.md §1.3), for every call kind:
 * the request's own choice, then the workspace's models, then the service default (already folded from env,
 * then models.toml [defaults], then the built-in rule). A model named without a provider belongs to the
 * provider chosen by the same order; a provider named without a model gets the model the next levels give it,
 * else its first model of the kind that is not deprecated.
 */

export type ModelKind = 'llm' | 'embedding';

export interface ModelRequest {
  provider?: string;
  model?: string;
  dimension?: number;
}

export interface ResolvedModel {
  provider: CatalogProvider;
  model: string;
  /** Embeddings: the vector size (0 for LLMs). */
  dimension: number;
}

/** A catalog provider that cannot be used (its api key variable is unset, or enabled = false). */
export class ProviderDisabledError extends UnknownProviderError {
  constructor(provider: CatalogProvider) {
    super('provider', provider.name);
    this.message =
      provider.api_key_env && !provider.api_key
        ? `provider '${provider.name}' is disabled: ${provider.api_key_env} is not set`
        : `provider '${provider.name}' is disabled`;
  }
}

export function resolveModel(config: AppConfig, kind: ModelKind, request: ModelRequest, workspace?: WorkspaceModels): ResolvedModel {
  const levels: Array<{ provider: string; model: string; dimension?: number }> = [];
  if (workspace) {
    levels.push(
      kind === 'llm'
        ? { provider: workspace.llm_provider, model: workspace.llm_model }
        : { provider: workspace.embedding_provider, model: workspace.embedding_model, dimension: workspace.embedding_dimension },
    );
  }
  levels.push(kind === 'llm' ? config.llm : config.embedding);
  const catalogDefault = { provider: config.catalog.defaults[`${kind}_provider`], model: config.catalog.defaults[`${kind}_model`] };
  levels.push(catalogDefault);

  const name = request.provider ?? levels[0].provider;
  const p = config.catalog.providers.find((x) => x.name === name);
  if (!p) throw new UnknownProviderError('provider', name);
  if (!p.enabled) throw new ProviderDisabledError(p);

  const sameProvider = levels.find((l) => l.provider === p.name);
  const model = request.model ?? sameProvider?.model ?? p.models.find((m) => m.model_type === kind && !m.deprecated)?.name;
  if (!model) throw new UnknownProviderError('model', `${p.name}/(no ${kind} model)`);
  const listed = p.models.find((m) => m.name === model);
  if (listed ? listed.model_type !== kind : p.type === 'mock') throw new UnknownProviderError('model', model);
  if (kind === 'llm') return { provider: p, model, dimension: 0 };

  const sameModel = levels.find((l) => l.provider === p.name && l.model === model && l.dimension);
  const dimension = request.dimension ?? sameModel?.dimension ?? listed?.capabilities.embedding_dimension ?? 0;
  return { provider: p, model, dimension };
}
