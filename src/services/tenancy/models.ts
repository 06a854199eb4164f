import type { AppConfig } from '../../config/types';
import type { WorkspaceRecord } from '../../domain/accounts';
import { InvalidInputError } from '../../domain/errors';

/** A workspace's model choice, as given on create or update (docs/api.md §4.6). */
export interface ModelChoice {
  llm_provider?: string;
  llm_model?: string;
  embedding_provider?: string;
  embedding_model?: string;
  embedding_dimension?: number;
}

type Models = Pick<WorkspaceRecord, 'llm_provider' | 'llm_model' | 'embedding_provider' | 'embedding_model' | 'embedding_dimension'>;

const MAX_DIMENSION = 4096;

/**
 * Checks a model choice against the catalog and fills what it leaves out: from `base` (the workspace's current
 * models) or, for a new workspace, the configured defaults. Providers must be in the catalog and enabled;
 * the offline mock serves only the models it lists, real APIs also serve models the catalog does not list.
 */
export function resolveModels(config: AppConfig, choice: ModelChoice, base?: Models): Models {
  const errors: Array<{ field: string; message: string }> = [];
  const pick = (kind: 'llm' | 'embedding') => {
    const providerField = `${kind}_provider` as const;
    const modelField = `${kind}_model` as const;
    const fallback = base ? { provider: base[providerField], model: base[modelField] } : config[kind];
    const providerName = choice[providerField] ?? fallback.provider;
    const provider = config.catalog.providers.find((p) => p.name === providerName);
    if (!provider || !provider.enabled) {
      const usable = config.catalog.providers.filter((p) => p.enabled).map((p) => p.name);
      errors.push({ field: providerField, message: `unknown or disabled provider '${providerName}' (usable: ${usable.join(', ')})` });
      return null;
    }
    const providerChanged = choice[providerField] !== undefined && choice[providerField] !== fallback.provider;
    const modelName =
      choice[modelField] ?? (providerChanged ? provider.models.find((m) => m.model_type === kind && !m.deprecated)?.name : fallback.model);
    if (!modelName) {
      errors.push({ field: modelField, message: `provider '${provider.name}' lists no ${kind} model; name one` });
      return null;
    }
    const listed = provider.models.find((m) => m.name === modelName);
    if ((listed && listed.model_type !== kind) || (!listed && provider.type === 'mock')) {
      const own = provider.models.filter((m) => m.model_type === kind).map((m) => m.name);
      errors.push({
        field: modelField,
        message: `provider '${provider.name}' has no ${kind} model '${modelName}' (it lists: ${own.join(', ')})`,
      });
      return null;
    }
    return { provider: provider.name, model: modelName, listedDimension: listed?.capabilities.embedding_dimension ?? 0 };
  };
  const llm = pick('llm');
  const embedding = pick('embedding');
  let dimension = choice.embedding_dimension;
  if (embedding && dimension === undefined) {
    const sameModel = base && base.embedding_provider === embedding.provider && base.embedding_model === embedding.model;
    dimension = sameModel
      ? base.embedding_dimension
      : embedding.provider === config.embedding.provider && embedding.model === config.embedding.model
        ? config.embedding.dimension
        : embedding.listedDimension;
  }
  if (embedding && (!dimension || !Number.isInteger(dimension) || dimension < 1 || dimension > MAX_DIMENSION)) {
    errors.push({
      field: 'embedding_dimension',
      message: `must be a whole number between 1 and ${MAX_DIMENSION}; the catalog gives none for '${embedding.model}'`,
    });
  }
  if (errors.length > 0 || !llm || !embedding || !dimension) throw new InvalidInputError(errors);
  return {
    llm_provider: llm.provider,
    llm_model: llm.model,
    embedding_provider: embedding.provider,
    embedding_model: embedding.model,
    embedding_dimension: dimension,
  };
}

export function sameEmbedding(a: Models, b: Models): boolean {
  return (
    a.embedding_provider === b.embedding_provider &&
    a.embedding_model === b.embedding_model &&
    a.embedding_dimension === b.embedding_dimension
  );
}
