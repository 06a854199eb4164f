import type { AppConfig, CatalogProvider, ModelCapabilities } from '../config/types';
export { ProviderDisabledError } from './resolve';
import { llmBudget } from './budget';
import { unrelatedSimilarity } from './calibrate';
import { MockEmbeddings, MockLlm } from './mock';
import type { EmbeddingProvider, LlmProvider, ProviderRegistry } from './ports';
import { resolveModel } from './resolve';
import { withOutputHygiene } from './hygiene';
import { withResilience } from './resilience';
import { type CallSlots, createCallSlots, Semaphore } from './semaphore';
import type { UsageRecorder } from './usage';
import { workspaceModels } from './workspace-models';

/**
 * Builds providers from the catalog on first use and caches one (resilience-wrapped) instance per
 * provider and model. Providers of type openai/ollama accept models the catalog does not list.
 */

export interface RegistryLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface RegistryOptions {
  /** Told about every successful call (cost accounting). */
  recorder?: UsageRecorder;
  /** The runtime's call slots (its providers share them); slots of this registry's own without. */
  slots?: CallSlots;
  /** The mock providers' simulated latency, read at each call; the configuration's by default. */
  mockLatencyMs?: () => number;
  /** Reachability probe timeout. */
  checkTimeoutMs?: number;
}

const CHECK_TIMEOUT_MS = 3000;

/**
 * The LangChain adapters, loaded on first use: the LangChain packages take about 30 MB that a service on the
 * mock provider never needs.
 */
/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/consistent-type-imports -- loaded on first use, see above */
function langchain(): typeof import('./langchain') {
  return require('./langchain') as typeof import('./langchain');
}
/* eslint-enable @typescript-eslint/no-require-imports, @typescript-eslint/consistent-type-imports */

export function createProviderRegistry(config: AppConfig, log?: RegistryLogger, options: RegistryOptions = {}): ProviderRegistry {
  const llms = new Map<string, LlmProvider>();
  const embeddings = new Map<string, EmbeddingProvider>();
  const mockLatencyMs = options.mockLatencyMs ?? (() => config.mockLatencyMs);
  const slots = options.slots ?? createCallSlots({ llm: config.ingest.llmConcurrency, embedding: config.ingest.embeddingConcurrency });
  const resilience = (kind: 'llm' | 'embedding') => ({
    concurrency: kind === 'llm' ? config.ingest.llmConcurrency : config.ingest.embeddingConcurrency,
    timeoutMs: config.ingest.llmTimeoutMs,
    retries: config.ingest.llmRetries,
    recorder: options.recorder,
    semaphore: slots[kind],
  });

  // openai/ollama: streamed calls under the model's budget, with a semaphore of its own.
  const modelSemaphores = new Map<string, Semaphore>();
  const budgeted = (p: CatalogProvider, name: string) => {
    const budget = llmBudget(config, p, name);
    const key = `${p.name}\u0000${name}`;
    let modelSemaphore = modelSemaphores.get(key);
    if (!modelSemaphore) {
      modelSemaphore = new Semaphore(budget.concurrency);
      modelSemaphores.set(key, modelSemaphore);
    }
    return { ...resilience('llm'), budget, modelSemaphore };
  };

  const registry: ProviderRegistry = {
    llm(provider, model) {
      const { provider: p, model: name } = resolveModel(config, 'llm', { provider, model }, workspaceModels());
      const key = `${p.name}\u0000${name}`;
      let instance = llms.get(key);
      if (!instance) {
        const raw =
          p.type === 'mock' ? new MockLlm(p.name, name, mockLatencyMs, config.mockTokenDelayMs) : langchain().createLangChainLlm(p, name);
        // Reasoning is taken out after the budget: its fragments keep the idle timer alive and the repetition guard sees them.
        instance = withOutputHygiene(withResilience(raw, p.type === 'mock' ? resilience('llm') : budgeted(p, name)));
        llms.set(key, instance);
      }
      return instance;
    },

    embedding(provider, model, requestedDimension) {
      const resolved = resolveModel(config, 'embedding', { provider, model, dimension: requestedDimension }, workspaceModels());
      const { provider: p, model: name, dimension } = resolved;
      const key = `${p.name}\u0000${name}\u0000${dimension}`;
      let instance = embeddings.get(key);
      if (!instance) {
        const raw =
          p.type === 'mock'
            ? new MockEmbeddings(p.name, name, dimension, mockLatencyMs)
            : langchain().createLangChainEmbeddings(p, name, dimension);
        const listed = p.models.find((m) => m.name === name)?.capabilities;
        instance = withConventions(withResilience(raw, resilience('embedding')), listed ?? {});
        embeddings.set(key, instance);
      }
      return instance;
    },

    hasProvider(name) {
      return config.catalog.providers.some((p) => p.name === name && p.enabled);
    },

    defaultLlmProviderName() {
      return config.llm.provider;
    },

    async check() {
      const enabled = config.catalog.providers.filter((p) => p.enabled);
      return Promise.all(enabled.map((p) => checkProvider(p, options.checkTimeoutMs ?? CHECK_TIMEOUT_MS)));
    },
  };

  const llmType = config.catalog.providers.find((p) => p.name === config.llm.provider)?.type;
  log?.info(
    {
      llm_provider: config.llm.provider,
      llm_model: config.llm.model,
      embedding_provider: config.embedding.provider,
      embedding_model: config.embedding.model,
      embedding_dimension: config.embedding.dimension,
      catalog: config.catalog.source,
    },
    llmType === 'mock'
      ? 'using the offline mock LLM provider; set SERVICE_LLM_PROVIDER to a provider of the catalog (models.toml) for a real model'
      : 'model providers configured (SERVICE_LLM_PROVIDER=mock selects the offline mock provider)',
  );
  return registry;
}

/**
 * The provider as the catalog describes its model: its similarity threshold, and the prefixes it expects before
 * queries and stored texts (e5: "query: " / "passage: "; nomic: "search_query: " / "search_document: ").
 */
function withConventions(
  inner: EmbeddingProvider,
  { similarity_threshold, query_prefix, document_prefix }: Partial<ModelCapabilities>,
): EmbeddingProvider {
  const prefixed = (prefix: string | undefined) => (texts: string[], signal?: AbortSignal) =>
    inner.embed(prefix ? texts.map((t) => prefix + t) : texts, signal);
  let measured: Promise<number> | undefined;
  const provider: EmbeddingProvider = {
    provider: inner.provider,
    model: inner.model,
    get dimension() {
      return inner.dimension;
    },
    batchSize: inner.batchSize,
    similarityThreshold: similarity_threshold,
    embed: prefixed(document_prefix),
    embedQueries: prefixed(query_prefix),
    // Measured on first use; a failed measurement is tried again by the next query.
    unrelatedSimilarity: (signal) => {
      measured ??= unrelatedSimilarity(provider, signal).catch((err: unknown) => {
        measured = undefined;
        throw err;
      });
      return measured;
    },
  };
  return provider;
}

type CheckResult = Awaited<ReturnType<ProviderRegistry['check']>>[number];

/** mock: always healthy; openai: GET {api_base}/models with the key; ollama: GET {api_base}/api/tags. */
export async function checkProvider(p: CatalogProvider, timeoutMs = CHECK_TIMEOUT_MS): Promise<CheckResult> {
  if (p.type === 'mock') return { name: p.name, status: 'healthy', latency_ms: 0 };
  const url = p.type === 'openai' ? `${p.api_base}/models` : `${p.api_base}/api/tags`;
  const headers: Record<string, string> = p.type === 'openai' && p.api_key ? { authorization: `Bearer ${p.api_key}` } : {};
  const started = performance.now();
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    const latency_ms = Math.round(performance.now() - started);
    if (res.ok) return { name: p.name, status: 'healthy', latency_ms };
    return { name: p.name, status: 'unhealthy', latency_ms, error: `HTTP ${res.status} from ${url}` };
  } catch (err) {
    const latency_ms = Math.round(performance.now() - started);
    const e = err as Error & { cause?: { code?: string } };
    const reason = e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (e.cause?.code ?? e.message);
    return { name: p.name, status: 'unhealthy', latency_ms, error: `unreachable: ${url}: ${reason}` };
  }
}
