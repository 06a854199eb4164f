import type { Logger } from '../../logger';
import type { AppConfig } from '../../config/types';
import type { Scope } from '../../domain/types';
import { findModel } from '../../llm/catalog-view';
import type { LlmCache } from '../../llm/cache/responses';
import type { ProviderRegistry } from '../../llm/ports';
import { QUERY_DEFAULTS, type Reranker } from '../../retrieval';
import type { Stores } from '../../store/ports';
import { type CompatAnswer, completeTurn, type PreparedTurn, prepareTurn, type TurnRequest } from './answer';
import { type EmbedRequest, type Embedded, embedTexts } from './embeddings';
import { LoadedModels } from './keep-alive';
import {
  type CompatModel,
  describeModel,
  digestOf,
  listCompatModels,
  type ModelEntry,
  type ModelShow,
  RAG_FAMILY,
  resolveModel,
} from './models';

export interface CompatServiceDeps {
  config: AppConfig;
  stores: Stores;
  providers: ProviderRegistry;
  reranker: Reranker | null;
  llmCache: LlmCache;
  log?: Pick<Logger, 'warn'>;
  /** The providers that answer now: the listings show only the models this instance can serve. */
  servableProviders: () => Promise<Set<string>>;
}

/** The compatibility layer's logic (docs/api.md §4.12); the Ollama and OpenAI routes present its results. */
export interface CompatService {
  readonly version: string;
  /** Every model, with the workspace's index size on the RAG models. */
  models(scope: Scope): Promise<ModelEntry[]>;
  /** One model by the name a client uses (a `@workspace` suffix is kept in the name); 404 when unknown. */
  model(scope: Scope, name: string): Promise<ModelEntry>;
  show(scope: Scope, name: string): Promise<ModelShow>;
  /** The models used in the workspace within their keep-alive. */
  running(scope: Scope): Promise<Array<{ entry: ModelEntry; expiresAt: Date }>>;
  /** Checks a chat or generate request; throws before anything runs. */
  prepare(scope: Scope, request: TurnRequest): PreparedTurn;
  complete(turn: PreparedTurn, signal: AbortSignal): Promise<CompatAnswer>;
  /** A request with nothing to answer loads the model (keep-alive 0 unloads it). */
  load(scope: Scope, model: string, keepAliveMs: number): 'load' | 'unload';
  embed(scope: Scope, request: EmbedRequest, signal?: AbortSignal): Promise<Embedded>;
}

export function createCompatService(deps: CompatServiceDeps): CompatService {
  const { config, stores } = deps;
  const loaded = new LoadedModels();
  // The models were "created" when this instance started; their digest changes with the configuration.
  const startedAt = new Date();
  const answerDeps = { ...deps, loaded };

  const entryOf = (m: CompatModel, indexBytes: number, name = m.name): ModelEntry => ({
    ...m,
    name,
    digest: digestOf(config, m),
    size: m.kind === 'rag' ? indexBytes : 0,
    modifiedAt: startedAt,
  });

  const described = async (scope: Scope, name: string) => {
    const ref = resolveModel(config, name);
    const model = describeModel(config, ref);
    const bytes = model.kind === 'rag' ? await stores.vectors.bytes(scope) : 0;
    return { ref, entry: entryOf(model, bytes, name.trim()) };
  };

  return {
    version: config.version,

    async models(scope) {
      const [bytes, servable] = await Promise.all([stores.vectors.bytes(scope), deps.servableProviders()]);
      return listCompatModels(config)
        .filter((m) => m.kind === 'rag' || servable.has(m.provider))
        .map((m) => entryOf(m, bytes));
    },

    async model(scope, name) {
      return (await described(scope, name)).entry;
    },

    async show(scope, name) {
      const { entry } = await described(scope, name);
      const family = entry.kind === 'rag' ? RAG_FAMILY : entry.providerType;
      const info: Record<string, string | number> = {
        'general.architecture': family,
        'general.basename': entry.kind === 'rag' ? RAG_FAMILY : entry.model,
        [`${family}.context_length`]: entry.contextLength,
        [`${family}.embedding_length`]: entry.embeddingDimension,
      };
      if (entry.kind === 'rag') {
        const [graph, documents, chunks] = await Promise.all([
          stores.graph.stats(scope),
          stores.documents.countByStatus(scope),
          stores.chunks.count(scope),
        ]);
        Object.assign(info, {
          'kgrag.mode': entry.mode ?? '',
          'kgrag.workspace': scope.workspaceId,
          'kgrag.llm': `${config.llm.provider}/${config.llm.model}`,
          'kgrag.embedding_model': `${config.embedding.provider}/${config.embedding.model}`,
          'kgrag.document_count': documents.completed + documents.processing + documents.failed,
          'kgrag.chunk_count': chunks,
          'kgrag.entity_count': graph.total_nodes,
          'kgrag.relationship_count': graph.total_edges,
        });
      }
      const llmModel = entry.kind === 'provider' ? findModel(config.catalog, entry.provider, entry.model) : undefined;
      const parameters: Record<string, string | number> =
        entry.type === 'embedding'
          ? {}
          : entry.kind === 'rag'
            ? { temperature: QUERY_DEFAULTS.temperature, num_predict: QUERY_DEFAULTS.max_tokens }
            : llmModel
              ? { num_predict: llmModel.capabilities.max_output_tokens }
              : {};
      return {
        entry,
        info,
        parameters,
        system: '',
        capabilities: entry.type === 'embedding' ? ['embedding'] : ['completion'],
      };
    },

    async running(scope) {
      const bytes = await stores.vectors.bytes(scope);
      return loaded
        .list(scope)
        .map(({ name, expiresAt }) => ({ entry: entryOf(describeModel(config, resolveModel(config, name)), bytes), expiresAt }));
    },

    prepare: (scope, request) => prepareTurn(answerDeps, scope, request),

    complete: (turn, signal) => completeTurn(turn, signal),

    load(scope, model, keepAliveMs) {
      const ref = resolveModel(config, model);
      loaded.touch(scope, describeModel(config, ref).name, keepAliveMs);
      return keepAliveMs <= 0 ? 'unload' : 'load';
    },

    embed: (scope, request, signal) => embedTexts(answerDeps, scope, request, signal),
  };
}
