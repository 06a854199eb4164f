/** The validated configuration. Only src/config reads process.env; everything else receives this object. */
import type { ShareCaps } from '../domain/shares';

export interface ModelCapabilities {
  readonly context_length: number;
  readonly max_output_tokens: number;
  readonly supports_vision: boolean;
  readonly supports_function_calling: boolean;
  readonly supports_json_mode: boolean;
  readonly supports_streaming: boolean;
  readonly supports_system_message: boolean;
  /** 0 for LLMs, > 0 for embedding models. */
  readonly embedding_dimension: number;
  /**
   * Embedding models: the cosine similarity below which a vector hit is noise for this model (retrieval's
   * cut-off); 0.2 when absent. Hashing embeddings score related texts lower than trained models do.
   */
  readonly similarity_threshold?: number;
  /** Embedding models: text put before a query (e5: "query: ") and before a stored text (e5: "passage: "). */
  readonly query_prefix?: string;
  readonly document_prefix?: string;
}

/** What one LLM call may spend; unset keys fall back to the provider's, then to its type's default (src/llm/budget.ts). */
export interface CallBudget {
  readonly max_output_tokens?: number;
  /** Total cap of one call. */
  readonly timeout_ms?: number;
  /** Longest wait for the first fragment and between two fragments. */
  readonly idle_timeout_ms?: number;
  /** Calls to this model at once. */
  readonly concurrency?: number;
}

export interface ModelCost {
  readonly input_per_1k: number;
  readonly output_per_1k: number;
  readonly embedding_per_1k: number;
  readonly image_per_unit: number;
}

export interface CatalogModel {
  readonly name: string;
  readonly display_name: string;
  readonly model_type: 'llm' | 'embedding';
  readonly description: string;
  readonly deprecated: boolean;
  readonly tags: readonly string[];
  readonly capabilities: ModelCapabilities;
  readonly cost: ModelCost;
  readonly budget?: CallBudget;
}

/** `mock` is offline and deterministic; `openai` covers every OpenAI-compatible API; `ollama` the local runtime. */
export type ProviderType = 'mock' | 'openai' | 'ollama';

export interface CatalogProvider {
  readonly name: string;
  readonly display_name: string;
  readonly type: ProviderType;
  readonly api_base: string | null;
  readonly api_key_env: string | null;
  /** Resolved from the variable named by api_key_env at start-up; never logged. */
  readonly api_key: string | null;
  readonly enabled: boolean;
  readonly priority: number;
  readonly description: string;
  readonly budget?: CallBudget;
  readonly models: readonly CatalogModel[];
}

export interface ModelCatalog {
  /** Where the catalog came from: a file path, or 'built-in'. */
  readonly source: string;
  readonly defaults: {
    readonly llm_provider: string;
    readonly llm_model: string;
    readonly embedding_provider: string;
    readonly embedding_model: string;
  };
  readonly providers: readonly CatalogProvider[];
  /** Whether [defaults] named the provider of each kind; when not, the built-in rule chose it (docs/api.md §1.2). */
  readonly defaultsGiven: { llm: boolean; embedding: boolean };
}

/** Which reranker orders retrieved chunks: the offline BM25 blend, a Cohere/Jina-compatible API, or none. */
export type RerankProvider = 'builtin' | 'cohere' | 'jina' | 'none';

export interface RerankConfig {
  readonly provider: RerankProvider;
  /** Endpoint of the reranking API; null selects the vendor's public endpoint. */
  readonly url: string | null;
  /** Never logged. */
  readonly apiKey: string | null;
  /** Null selects the vendor's default model. */
  readonly model: string | null;
}

export interface AuthConfig {
  /** Fail-closed authentication (docs/api.md §5.4); false opens the API. */
  readonly enabled: boolean;
  /** An open API for development and demos, announced in the log and in /health. */
  readonly devMode: boolean;
  /** Above every tenant; never logged. */
  readonly masterKey: string | null;
  /** HS256 secret of access tokens; null: a random one per process (tokens end with the process). */
  readonly jwtSecret: string | null;
  readonly jwtIssuer: string;
  readonly jwtAudience: string;
  readonly accessTokenTtlS: number;
  readonly refreshTokenTtlS: number;
  readonly bootstrapAdmin: { username: string; password: string; email: string } | null;
  /** Failed logins allowed per user name and per client address within the window. */
  readonly loginAttempts: { perUserAtAddress: number; perUser: number; perAddress: number; windowMs: number };
}

export type TracingApi = 'auto' | 'ingestion' | 'otlp';

/** Trace export (docs/api.md §1.4). */
export interface TracingConfig {
  /** Both keys are set. */
  readonly enabled: boolean;
  readonly publicKey: string | null;
  /** Never logged or shown. */
  readonly secretKey: string | null;
  readonly baseUrl: string;
  readonly projectId: string | null;
  readonly api: TracingApi;
}

/** `T` read-only at every depth (what `deepFreeze` makes of a value at run time). */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/**
 * The service configuration, read-only at every depth and frozen at load (src/config/load.ts): settings that
 * change at run time are published by the settings service (src/services/settings), never written into it.
 */
export type AppConfig = DeepReadonly<ConfigValues>;

/** The configuration's values as `loadConfig` assembles them. */
export interface ConfigValues {
  version: string;
  host: string;
  port: number;
  logLevel: string;
  workerThreads: number;
  storage: { mode: 'memory' } | { mode: 'neo4j'; uri: string; user: string | null; password: string | null; database: string | null };
  /**
   * Persistent mode: the Neo4j connection pool and its shares (src/store/neo4j/session-budget.ts): sessions for
   * requests at once and per tenant (null: three fifths of the pool, half of that per tenant); background work
   * (ingestion) has the rest.
   */
  neo4jPool: { maxSize: number; acquisitionTimeoutMs: number; requestSessions: number | null; requestSessionsPerTenant: number | null };
  /** Vectors in Qdrant (src/config/qdrant.ts); null: in Neo4j's own vector indexes, or in memory. */
  qdrant: QdrantConfig | null;
  redisUrl: string | null;
  llm: { provider: string; model: string };
  embedding: { provider: string; model: string; dimension: number };
  catalog: ModelCatalog;
  /** Simulated latency of every mock provider call, in ms (benchmarks). */
  mockLatencyMs: number;
  /** Simulated pause between the streamed tokens of a mock answer, in ms (demos and streaming tests). */
  mockTokenDelayMs: number;
  rerank: RerankConfig;
  tracing: TracingConfig;
  ingest: {
    chunkTokens: number;
    chunkOverlapTokens: number;
    /** Documents larger than this many bytes are processed asynchronously. */
    asyncThresholdBytes: number;
    maxGleaning: number;
    /** Concurrent LLM calls across the whole process. */
    llmConcurrency: number;
    embeddingConcurrency: number;
    /** Documents whose merges are committed together at most (src/ingest/merge/merge-batch.ts); 1 commits each on its own. */
    mergeBatch: number;
    llmTimeoutMs: number;
    llmRetries: number;
    /** Entity description fragments (count) above which an LLM summary is written. */
    summaryFragmentThreshold: number;
    /** Entity description tokens above which an LLM summary is written. */
    summaryTokenThreshold: number;
    /** The same two thresholds for relationships, whose fragments are single sentences. */
    summaryRelationshipFragmentThreshold: number;
    summaryRelationshipTokenThreshold: number;
    scanRoots: string[];
  };
  /** Requests per window and category, per API key or address; 0 disables a category. */
  rateLimits: { windowMs: number; upload: number; query: number; graph: number };
  /**
   * Entity resolution at merge time (docs/architecture.md §5.10): on unless turned off here or per workspace;
   * candidates scoring at least `mergeScore` merge, those from `reviewScore` on are confirmed by the LLM.
   */
  resolution: { enabled: boolean; mergeScore: number; reviewScore: number };
  /** Take the client address from X-Forwarded-For (only behind a proxy that sets it; else clients could forge it). */
  trustProxy: boolean;
  /** Browser origins allowed to call the API cross-origin (CORS); empty: CORS is off. */
  corsOrigins: string[];
  errorTypeBase: string;
  /** The answer when retrieval finds nothing (SERVICE_NO_CONTEXT_RESPONSE); null: the built-in one (src/retrieval/no-context.ts). */
  noContextResponse: string | null;
  /** Prompt overrides per workspace or model family (SERVICE_PROMPTS_DIR, src/prompts/overrides.ts). */
  promptsDir: string | null;
  auth: AuthConfig;
  /** Default workspace used when X-Workspace-ID is absent. */
  defaultWorkspaceId: string;
  instanceId: string;
  /**
   * How long a claimed task, and an entity lock, stays this instance's without renewal: a dead instance's tasks
   * move on, and merges waiting on its entities go ahead, after it.
   */
  taskLeaseMs: number;
  /**
   * A run that meets an unreachable dependency (Qdrant, Neo4j, a provider) goes back to the queue up to `attempts`
   * times, waiting `backoffMs` doubled at each attempt (at most a minute), before its document fails.
   */
  outageRetry: { attempts: number; backoffMs: number };
  /**
   * Communities are recomputed this long after the last graph change of a workspace (debounced, in the
   * background); 0 turns the automatic recompute off (the rebuild endpoint still works).
   */
  communityRefreshMs: number;
  /** Analysts' read-only Cypher (`POST /graph/cypher`): off unless enabled; server-side timeout and row cap. */
  cypher: { enabled: boolean; timeoutMs: number; maxRows: number };
  /**
   * The graph stream: change batches kept per workspace for `Last-Event-ID` resume (a subscriber further behind
   * is dropped), bytes a slow subscriber may leave unread before it is dropped, and the silence after which a
   * heartbeat goes out.
   */
  graphStream: { replayWindow: number; maxBufferedBytes: number; heartbeatMs: number };
  /** How long a SIGTERM waits for requests, streams and ingestion to wind down before the process exits anyway. */
  shutdownGraceMs: number;
  /**
   * Uploads and queries this instance holds at once, in all and per workspace (0: no cap; src/http/middleware/admission.ts),
   * and documents waiting for processing, in all and per workspace (0: no cap; src/services/documents/backlog.ts).
   * Of a workspace's queries in flight, at most `queriesRunningPerWorkspace` run at once (0: all); the others wait
   * their turn for at most `queryWaitMs`. Other reads run at most `reads` at once (in all, per tenant, per
   * workspace), waiting for at most `readWaitMs`; graph stream subscribers are capped by `graphStreams`.
   */
  admission: {
    queries: number;
    queriesPerWorkspace: number;
    queriesPerTenant: number;
    queriesRunningPerWorkspace: number;
    queryWaitMs: number;
    uploads: number;
    uploadsPerWorkspace: number;
    uploadsPerTenant: number;
    reads: ShareCaps;
    readWaitMs: number;
    graphStreams: ShareCaps;
    queuedDocuments: number;
    queuedDocumentsPerWorkspace: number;
  };
  /** The built web console (index.html and hashed assets) served at `/`; web/dist of the package by default. */
  consoleDir: string;
}

/** How many copies of a shard a read asks: every one, a majority, a quorum, or a number. */
export type QdrantReadConsistency = 'all' | 'majority' | 'quorum' | number;

export interface QdrantConfig {
  /** One server, or nodes of one cluster: requests go to the first that answers. */
  readonly urls: readonly string[];
  readonly apiKey: string | null;
  /** Applied when the service creates a collection; null: Qdrant's default. */
  readonly shards: number | null;
  readonly replicationFactor: number | null;
  readonly writeConsistency: number | null;
  /** Per read; null: Qdrant's default (one copy). */
  readonly readConsistency: QdrantReadConsistency | null;
}
