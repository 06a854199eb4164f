import { LlmCache } from '../../src/llm/cache/responses';
import { createEntityLocks } from '../../src/records/locks';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config/load';
import type { AppConfig } from '../../src/config/types';
import { contentHash } from '../../src/domain/ids';
import type { DocumentRecord, IngestOptions, Scope } from '../../src/domain/types';
import { type GraphChange, GraphEvents } from '../../src/graph/events';
import type { IngestDeps } from '../../src/ingest/deps';
import { createIngestState } from '../../src/ingest/state';
import type { ChatMessage, CompletionOptions, EmbeddingProvider, LlmProvider, ProviderRegistry } from '../../src/llm/ports';
import { createProviderRegistry } from '../../src/llm/registry';
import { createLogger } from '../../src/logger';
import { createMemoryStores } from '../../src/store/memory';
import { WorkerCpuPool } from '../../src/ingest/offload/worker-pool';

/** Ingestion on memory stores with the real mock provider, counting (and optionally failing) LLM calls. */

export interface LlmCall {
  task?: string;
  /** The text after the last `---TEXT---` line of the prompt's first user message. */
  text: string;
}

export interface IngestFixture {
  deps: IngestDeps;
  scope: Scope;
  config: AppConfig;
  calls: LlmCall[];
  changes: GraphChange[];
  /** When set, an LLM call it returns true for rejects with an error. */
  failWhen: ((call: LlmCall) => boolean) | null;
  /** When set, an embedding call it returns true for rejects with an error. */
  failEmbeddingWhen: ((texts: string[]) => boolean) | null;
  callsFor(task: string): LlmCall[];
  addDocument(content: string, options?: Partial<IngestOptions> & { title?: string }): Promise<DocumentRecord>;
}

export function createIngestFixture(ingest: Partial<AppConfig['ingest']> = {}): IngestFixture {
  const base = loadConfig(
    {
      RUST_LOG: 'silent',
      SERVICE_LLM_PROVIDER: 'mock',
      SERVICE_EMBEDDING_PROVIDER: 'mock',
      SERVICE_MODELS_CONFIG: `${__dirname}/../../models.toml`,
    },
    { cwd: `${__dirname}/../..`, homeDir: '/nonexistent' },
  );
  // Relationships follow the entity thresholds a test sets unless it sets theirs.
  const relationship = {
    summaryRelationshipFragmentThreshold: ingest.summaryFragmentThreshold ?? base.ingest.summaryRelationshipFragmentThreshold,
    summaryRelationshipTokenThreshold: ingest.summaryTokenThreshold ?? base.ingest.summaryRelationshipTokenThreshold,
  };
  const config: AppConfig = { ...base, ingest: { ...base.ingest, llmRetries: 0, ...relationship, ...ingest } };
  const log = createLogger('silent');
  const inner = createProviderRegistry(config);
  const events = new GraphEvents();
  const fixture: IngestFixture = {
    config,
    scope: { workspaceId: `ws-${randomUUID().slice(0, 8)}` },
    calls: [],
    changes: [],
    failWhen: null,
    failEmbeddingWhen: null,
    deps: undefined as unknown as IngestDeps,
    callsFor: (task) => fixture.calls.filter((c) => c.task === task),
    async addDocument(content, options = {}) {
      const now = new Date().toISOString();
      const doc: DocumentRecord = {
        id: randomUUID(),
        title: options.title ?? 'test document',
        status: 'processing',
        content_hash: contentHash(content),
        content,
        document_type: 'text',
        file_path: 'test.txt',
        file_size: Buffer.byteLength(content),
        source: null,
        metadata: {},
        chunk_count: 0,
        entity_count: 0,
        relationship_count: 0,
        created_at: now,
        updated_at: now,
        processed_at: null,
        processing_time_ms: null,
        error: null,
        track_id: null,
        task_id: null,
        llm_model: null,
        embedding_model: null,
        page_count: null,
        pdf_id: null,
        options: {
          enable_gleaning: options.enable_gleaning ?? true,
          max_gleaning: options.max_gleaning ?? 1,
          use_llm_summarization: options.use_llm_summarization ?? true,
        },
      };
      await fixture.deps.stores.documents.insert(fixture.scope, doc);
      return doc;
    },
  };
  const providers: ProviderRegistry = {
    ...inner,
    llm: (provider, model) => countingLlm(inner.llm(provider, model), fixture),
    embedding: (provider, model) => failingEmbeddings(inner.embedding(provider, model), fixture),
  };
  events.subscribe((batch) => fixture.changes.push(...batch.changes));
  const stores = createMemoryStores();
  fixture.deps = {
    config,
    stores,
    providers,
    events,
    log,
    entityLocks: createEntityLocks(stores.locks),
    llmCache: new LlmCache(),
    cpu: new WorkerCpuPool(),
    ingest: createIngestState(),
  };
  return fixture;
}

function failingEmbeddings(embedder: EmbeddingProvider, fixture: IngestFixture): EmbeddingProvider {
  return {
    provider: embedder.provider,
    model: embedder.model,
    dimension: embedder.dimension,
    async embed(texts, signal) {
      if (fixture.failEmbeddingWhen?.(texts)) throw new Error('injected embedding failure');
      return embedder.embed(texts, signal);
    },
  };
}

function countingLlm(llm: LlmProvider, fixture: IngestFixture): LlmProvider {
  const callOf = (messages: ChatMessage[], options?: CompletionOptions): LlmCall => {
    const user = messages.find((m) => m.role === 'user')?.content ?? '';
    const at = user.lastIndexOf('---TEXT---\n');
    return { task: options?.task, text: at < 0 ? user : user.slice(at + '---TEXT---\n'.length) };
  };
  return {
    provider: llm.provider,
    model: llm.model,
    async complete(messages, options) {
      const call = callOf(messages, options);
      fixture.calls.push(call);
      if (fixture.failWhen?.(call)) throw new Error(`injected failure for a ${call.task} call`);
      return llm.complete(messages, options);
    },
    stream: (messages, options) => llm.stream(messages, options),
  };
}

/** Every LLM call made through the fixture's providers from now on first awaits `before` with its messages and options. */
export function beforeLlmCalls(f: IngestFixture, before: (messages: ChatMessage[], options?: CompletionOptions) => Promise<void>): void {
  const llmOf = f.deps.providers.llm.bind(f.deps.providers);
  f.deps = {
    ...f.deps,
    providers: {
      ...f.deps.providers,
      llm: (provider, model) => {
        const llm = llmOf(provider, model);
        const gated: LlmProvider = {
          ...llm,
          async complete(messages, options) {
            await before(messages, options);
            return llm.complete(messages, options);
          },
        };
        return gated;
      },
    },
  };
}

/** Records every text the fixture's runs embed, from now on, in `texts`; returns the provider behind the recorder. */
export function recordEmbeddedTexts(f: IngestFixture, texts: string[]): EmbeddingProvider {
  const inner = f.deps.providers.embedding();
  const recording: EmbeddingProvider = {
    provider: inner.provider,
    model: inner.model,
    dimension: inner.dimension,
    embed(batch, signal) {
      texts.push(...batch);
      return inner.embed(batch, signal);
    },
  };
  f.deps = { ...f.deps, providers: { ...f.deps.providers, embedding: () => recording } };
  return inner;
}

/** Entity resolution off for the fixture's runs (the configuration is read-only: the fixture gets another). */
export function withoutResolution(f: IngestFixture): void {
  f.deps = { ...f.deps, config: { ...f.deps.config, resolution: { ...f.deps.config.resolution, enabled: false } } };
}
