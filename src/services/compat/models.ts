import { createHash } from 'node:crypto';
import type { AppConfig, CatalogModel, CatalogProvider } from '../../config/types';
import { InvalidInputError, NotFoundError } from '../../domain/errors';
import { findProvider, modelId, resolveModelRef, sortedProviders } from '../../llm/catalog-view';
import { QUERY_MODES } from '../../retrieval';

/**
 * The models of the compatibility layer (docs/api.md §4.12): one RAG model per mode, `kgrag:<mode>`, and the
 * provider models of the catalog as `<provider>/<model>`. A name may end in `@<workspace>` to select the
 * workspace for clients that cannot send `X-Workspace-ID`.
 */

export const RAG_FAMILY = 'kgrag';

/** The six query modes, and `context`: the retrieved context itself, with no answer generated. */
export const COMPAT_MODES = [...QUERY_MODES, 'context'] as const;
export type CompatMode = (typeof COMPAT_MODES)[number];
export const DEFAULT_RAG_MODE: CompatMode = 'hybrid';

/** A model as a request names it, resolved against the catalog. */
export type ModelRef =
  | { kind: 'rag'; name: string; mode: CompatMode }
  | { kind: 'provider'; name: string; provider: string; model: string; type: 'llm' | 'embedding'; listed: CatalogModel | null };

/** A model the layer lists (`/api/tags`, `/v1/models`). */
export interface CompatModel {
  /** The name clients use: `kgrag:hybrid`, `openai/gpt-4o-mini`. */
  name: string;
  kind: 'rag' | 'provider';
  type: 'llm' | 'embedding';
  /** The provider and model that do the work: for RAG models, the default LLM. */
  provider: string;
  model: string;
  providerType: CatalogProvider['type'];
  contextLength: number;
  embeddingDimension: number;
  mode: CompatMode | null;
}

const WORKSPACE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** `kgrag:hybrid@research` -> `{base: 'kgrag:hybrid', workspace: 'research'}`; the workspace follows the last `@`. */
export function splitWorkspace(name: string): { base: string; workspace: string | null } {
  const at = name.lastIndexOf('@');
  if (at < 0) return { base: name, workspace: null };
  const workspace = name.slice(at + 1);
  if (!WORKSPACE_ID.test(workspace)) {
    throw InvalidInputError.field('model', `'${workspace}' after @ is not a workspace id (1-128 letters, digits, ".", "_" or "-")`);
  }
  return { base: name.slice(0, at), workspace };
}

/** The workspace a model name selects, or null; a malformed suffix is refused. */
export function workspaceOfModel(name: unknown): string | null {
  return typeof name === 'string' ? splitWorkspace(name.trim()).workspace : null;
}

export class ModelNotFoundError extends NotFoundError {
  constructor(name: string) {
    super(`model "${name}" not found; GET /api/tags or /v1/models lists the models`, { param: 'model', code: 'model_not_found' });
  }
}

/** Resolves a requested name (with or without `@workspace`); unknown names are a 404 naming the model. */
export function resolveModel(config: AppConfig, requested: string): ModelRef {
  const name = requested.trim();
  const { base } = splitWorkspace(name);
  if (!base) throw InvalidInputError.field('model', 'required');
  const rag = ragMode(base);
  if (rag) return { kind: 'rag', name, mode: rag };
  const found = providerModel(config, base) ?? (base.endsWith(':latest') ? providerModel(config, base.slice(0, -7)) : undefined);
  if (!found) throw new ModelNotFoundError(name);
  return { kind: 'provider', name, ...found };
}

/** `kgrag`, `kgrag:latest` (hybrid) and `kgrag:<mode>`. */
function ragMode(base: string): CompatMode | null {
  const [family, tag = 'latest', ...rest] = base.toLowerCase().split(':');
  if (family !== RAG_FAMILY || rest.length > 0) return null;
  if (tag === 'latest') return DEFAULT_RAG_MODE;
  return (COMPAT_MODES as readonly string[]).includes(tag) ? (tag as CompatMode) : null;
}

function providerModel(config: AppConfig, base: string): Omit<Extract<ModelRef, { kind: 'provider' }>, 'kind' | 'name'> | undefined {
  const slash = base.indexOf('/');
  const provider = slash > 0 ? findProvider(config.catalog, base.slice(0, slash)) : undefined;
  if (provider) {
    if (!provider.enabled) return undefined;
    const model = base.slice(slash + 1);
    const listed = provider.models.find((m) => m.name === model) ?? null;
    // OpenAI-compatible and Ollama providers serve models the catalog does not list; the mock only its own.
    if (!listed && provider.type === 'mock') return undefined;
    return { provider: provider.name, model, type: listed?.model_type ?? 'llm', listed };
  }
  const ref = resolveModelRef(config.catalog, base);
  if (!ref) return undefined;
  const listed = findProvider(config.catalog, ref.provider)?.models.find((m) => m.name === ref.model) ?? null;
  return { provider: ref.provider, model: ref.model, type: listed?.model_type ?? 'llm', listed };
}

/** Every model the layer offers: the RAG models first, then the enabled providers' models by priority. */
export function listCompatModels(config: AppConfig): CompatModel[] {
  const llm = findProvider(config.catalog, config.llm.provider);
  const llmListed = llm?.models.find((m) => m.name === config.llm.model);
  const rag: CompatModel[] = COMPAT_MODES.map((mode) => ({
    name: `${RAG_FAMILY}:${mode}`,
    kind: 'rag',
    type: 'llm',
    provider: config.llm.provider,
    model: config.llm.model,
    providerType: llm?.type ?? 'mock',
    contextLength: llmListed?.capabilities.context_length ?? 0,
    embeddingDimension: config.embedding.dimension,
    mode,
  }));
  const provided: CompatModel[] = sortedProviders(config.catalog)
    .filter((p) => p.enabled)
    .flatMap((p) =>
      p.models.map((m) => ({
        name: modelId(p.name, m.name),
        kind: 'provider' as const,
        type: m.model_type,
        provider: p.name,
        model: m.name,
        providerType: p.type,
        contextLength: m.capabilities.context_length,
        embeddingDimension: m.capabilities.embedding_dimension,
        mode: null,
      })),
    );
  return [...rag, ...provided];
}

/** The listed model a name refers to, or a description of an unlisted provider model (served all the same). */
export function describeModel(config: AppConfig, ref: ModelRef): CompatModel {
  const all = listCompatModels(config);
  if (ref.kind === 'rag') return all.find((m) => m.kind === 'rag' && m.mode === ref.mode)!;
  const listed = all.find((m) => m.kind === 'provider' && m.provider === ref.provider && m.model === ref.model);
  if (listed) return listed;
  return {
    name: modelId(ref.provider, ref.model),
    kind: 'provider',
    type: ref.type,
    provider: ref.provider,
    model: ref.model,
    providerType: findProvider(config.catalog, ref.provider)?.type ?? 'openai',
    contextLength: 0,
    embeddingDimension: 0,
    mode: null,
  };
}

/**
 * A content digest of what answers under a name: the RAG mode with its LLM and embedding model, or the provider
 * model. It changes when the configuration behind the name changes, as a runtime's digest does with the weights.
 */
export function digestOf(config: AppConfig, m: CompatModel): string {
  const parts =
    m.kind === 'rag'
      ? [m.name, `${config.llm.provider}/${config.llm.model}`, `${config.embedding.provider}/${config.embedding.model}`, config.version]
      : [m.name, m.providerType];
  return createHash('sha256').update(parts.join('\n')).digest('hex');
}

/** A listed model with what the listings report: digest, size in bytes, last change. */
export interface ModelEntry extends CompatModel {
  digest: string;
  /** RAG models: the bytes of the workspace's vector index; provider models: 0 (their weights are not here). */
  size: number;
  modifiedAt: Date;
}

/** What `/api/show` tells of a model. */
export interface ModelShow {
  entry: ModelEntry;
  /** `general.*` and `<family>.*` facts, as a runtime's model_info. */
  info: Record<string, string | number>;
  /** The generation defaults that apply, e.g. `temperature 0.7`. */
  parameters: Record<string, string | number>;
  /** The system prompt the model starts from ('' when none). */
  system: string;
  capabilities: string[];
}
