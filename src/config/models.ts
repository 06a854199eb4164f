import { sameProvider } from './catalog';
import type { AppConfig, CatalogProvider, ModelCatalog } from './types';

/** The variables that choose the models, as validated. */
export interface ModelVars {
  SERVICE_LLM_PROVIDER?: string;
  SERVICE_DEFAULT_LLM_MODEL?: string;
  SERVICE_EMBEDDING_PROVIDER?: string;
  SERVICE_EMBEDDING_MODEL?: string;
  SERVICE_EMBEDDING_DIMENSION?: number;
}

export interface ResolvedModels {
  llm: AppConfig['llm'];
  embedding: AppConfig['embedding'];
}

/**
 * The LLM and the embedding model: from the variables, else the catalog's defaults; embeddings follow an LLM
 * provider chosen by a variable when nothing names their own. Every problem found is pushed; null when any was.
 */
export function resolveModels(
  vars: ModelVars,
  catalog: ModelCatalog,
  sourceOf: (canonical: string) => string,
  problems: string[],
): ResolvedModels | null {
  const before = problems.length;
  const defaultsKey = (key: string) => `${catalog.source} [defaults] ${key}`;

  const pick = (kind: 'llm' | 'embedding', providerVar: string, modelVar: string) => {
    // Embeddings follow an LLM provider chosen by env when nothing names their own and that provider serves them.
    const follow =
      kind === 'embedding' && !catalog.defaultsGiven.embedding && vars.SERVICE_LLM_PROVIDER
        ? sameProvider(
            catalog.providers.filter((p) => p.enabled),
            vars.SERVICE_LLM_PROVIDER,
            'embedding',
          )?.name
        : undefined;
    const ownProvider = vars[providerVar as keyof ModelVars] as string | undefined;
    const envProvider = ownProvider ?? follow;
    const envModel = vars[modelVar as keyof ModelVars] as string | undefined;
    const providerName = envProvider ?? catalog.defaults[`${kind}_provider`];
    const providerSource = ownProvider
      ? sourceOf(providerVar)
      : follow
        ? sourceOf('SERVICE_LLM_PROVIDER')
        : catalog.defaultsGiven[kind]
          ? defaultsKey(`${kind}_provider`)
          : `built-in default ${kind} provider`;
    const provider = catalog.providers.find((p) => p.name === providerName);
    if (!provider) {
      const known = catalog.providers.map((p) => p.name).join(', ');
      problems.push(`${providerSource}: unknown provider '${providerName}' (catalog ${catalog.source} lists: ${known})`);
      return null;
    }
    if (!provider.enabled) problems.push(`${providerSource}: provider '${provider.name}' is disabled${disabledReason(provider)}`);
    const modelName =
      envModel ??
      (provider.name === catalog.defaults[`${kind}_provider`]
        ? catalog.defaults[`${kind}_model`]
        : (provider.models.find((m) => m.model_type === kind && !m.deprecated)?.name ??
          provider.models.find((m) => m.model_type === kind)?.name));
    const modelSource = envModel ? sourceOf(modelVar) : defaultsKey(`${kind}_model`);
    if (!modelName) {
      problems.push(`${sourceOf(modelVar)}: required, provider '${provider.name}' lists no ${kind} model`);
      return null;
    }
    const listed = provider.models.find((m) => m.name === modelName);
    if (listed && listed.model_type !== kind) {
      problems.push(`${modelSource}: '${modelName}' is an ${listed.model_type} model of provider '${provider.name}', not ${kind}`);
      return null;
    }
    // Real APIs serve more models than the catalog lists; the offline mock serves only its own.
    if (!listed && provider.type === 'mock') {
      const own = provider.models
        .filter((m) => m.model_type === kind)
        .map((m) => m.name)
        .join(', ');
      problems.push(`${modelSource}: provider '${provider.name}' has no ${kind} model '${modelName}' (it lists: ${own})`);
      return null;
    }
    return { provider: provider.name, model: modelName, dimension: listed?.capabilities.embedding_dimension ?? 0 };
  };

  const llm = pick('llm', 'SERVICE_LLM_PROVIDER', 'SERVICE_DEFAULT_LLM_MODEL');
  const embedding = pick('embedding', 'SERVICE_EMBEDDING_PROVIDER', 'SERVICE_EMBEDDING_MODEL');
  let dimension = vars.SERVICE_EMBEDDING_DIMENSION ?? embedding?.dimension ?? 0;
  if (embedding && dimension <= 0) {
    problems.push(
      `SERVICE_EMBEDDING_DIMENSION: required, the catalog gives no dimension for embedding model '${embedding.model}' of provider '${embedding.provider}'`,
    );
    dimension = 0;
  }
  if (problems.length > before || !llm || !embedding) return null;
  return {
    llm: { provider: llm.provider, model: llm.model },
    embedding: { provider: embedding.provider, model: embedding.model, dimension },
  };
}

function disabledReason(p: CatalogProvider): string {
  return p.api_key_env && !p.api_key ? ` (set ${p.api_key_env})` : ' (enabled = false in the catalog)';
}
