import type Redis from 'ioredis';
import type { RedisOptions } from 'ioredis';
import type { AppConfig } from './config/types';
import { GraphEvents } from './graph/events';
import { createEngine } from './engine';
import { LlmCache } from './llm/cache/responses';
import { createCallSlots } from './llm/semaphore';
import { createIngestState } from './ingest/state';
import type { CpuPool } from './ingest/offload/cpu-pool';
import { WorkerCpuPool } from './ingest/offload/worker-pool';
import { tokenEncoder } from './llm/tokens';
import { createAnalyticsService } from './graph/analytics/service';
import { createGraphService } from './graph/service';
import { createEntityLocks } from './records/locks';
import { createLineageService } from './lineage/service';
import { createProviderRegistry } from './llm/registry';
import type { ProviderRegistry } from './llm/ports';
import type { UsageRecorder } from './llm/usage';
import { startTracing } from './llm/tracing';
import { createQueryService, createReranker, DEFAULT_QUERY_MODE, QUERY_DEFAULTS } from './retrieval';
import { createChatService, createConversationService, createFolderService } from './services/chat';
import { createSavedViewService } from './services/views';
import { createCommunityService } from './services/communities';
import { createCompatService } from './services/compat';
import { createCostService } from './services/costs';
import { createDocumentService } from './services/documents';
import { createIntegrityService } from './services/integrity';
import { LlmHealth } from './services/llm-health';
import { createModelService } from './services/models';
import { createSettingsService, withChatDefaults, withQueryDefaults } from './services/settings';
import { createResolutionService } from './services/resolution';
import { type AuthService, createAuthService, sharedSigningKey } from './services/auth';
import { createTenancyService } from './services/tenancy';
import { type ServiceHost, createTaskService } from './services/tasks';
import type { Logger } from './logger';
import { createStores } from './store';
import { MemoryChangeFeed } from './store/memory/change-feed';
import { RedisChangeFeed } from './store/redis/change-feed';
import { RedisWindowCounters } from './store/redis/window-counters';
import type { Runtime } from './services/runtime';

export type { Runtime };

export interface RuntimeOptions {
  /** Told about every provider call (provider, model, tokens). */
  recorder?: UsageRecorder;
  /** Where CPU-heavy ingestion work runs (default: worker threads); the runtime closes it. */
  cpu?: CpuPool;
  /**
   * Wraps the provider registry the runtime builds (a test or benchmark counting or failing calls); every service
   * (ingestion, query, chat, compatible APIs, graph) uses what it answers.
   */
  providers?: (built: ProviderRegistry) => ProviderRegistry;
  /** The simulated latency of the mock providers, read at each call (default: the configuration's). */
  mockLatencyMs?: () => number;
}

/** How often each instance reads the stored runtime settings for changes made through another instance. */
const SETTINGS_POLL_MS = 500;

/** Followed in a second: a change published while Redis could not tell this instance still arrives. */
const SHARED_FEED_POLL_MS = 1_000;

/** A Redis connection; ioredis is loaded only when Redis is configured (about 5 MB the embedded default never needs). */
function redisClient(url: string, options: RedisOptions): Redis {
  /* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/consistent-type-imports -- see above */
  const { default: RedisClient } = require('ioredis') as typeof import('ioredis');
  /* eslint-enable @typescript-eslint/no-require-imports, @typescript-eslint/consistent-type-imports */
  return new RedisClient(url, options);
}

/**
 * The graph change bus: over a Redis stream per workspace when Redis is configured (every instance sees every
 * change), over a feed in memory otherwise.
 */
function createGraphEvents(config: AppConfig, redis: Redis | null, log: Logger): GraphEvents {
  const window = config.graphStream.replayWindow;
  if (!redis || !config.redisUrl) return new GraphEvents(new MemoryChangeFeed(window), log);
  const subscriber = redisClient(config.redisUrl, { maxRetriesPerRequest: null, connectTimeout: 2_000 });
  subscriber.on('error', (err) => log.warn({ err: err.message }, 'redis error (graph change subscription)'));
  const feed = new RedisChangeFeed(redis, subscriber, window);
  // Not awaited: the service starts while Redis is down (ioredis subscribes once it connects; followers poll meanwhile).
  feed.start().catch((err: unknown) => log.warn({ err: (err as Error).message }, 'graph change subscription failed'));
  return new GraphEvents(feed, log, SHARED_FEED_POLL_MS);
}

/**
 * The composition root: picks store and provider implementations from the configuration and wires services.
 * Routes receive the result and call services only.
 */
export async function createRuntime(config: AppConfig, log: Logger, options: RuntimeOptions = {}): Promise<Runtime> {
  const stores = await createStores(config, log);
  // The runtime's process state: each part owned below closes with `engine.close()`, the last owned first.
  const engine = createEngine();
  // The configuration is read-only; the settings service publishes it with the runtime settings applied, and
  // what follows them reads it through `live.config` at each use.
  const settings = createSettingsService({
    config,
    records: stores.accounts.settings,
    log,
    queryDefaults: { default_mode: DEFAULT_QUERY_MODE, enable_rerank: true, rerank_top_k: QUERY_DEFAULTS.rerank_top_k },
  });
  const live = {
    get config() {
      return settings.config();
    },
  };
  /** Persistent mode: other instances may share the database (embedded mode is one process by nature). */
  const shared = config.storage.mode !== 'memory';
  const tracing = await startTracing(config.tracing, config.version, log);
  const costs = createCostService({
    get config() {
      return live.config;
    },
    costs: stores.costs,
    locks: stores.locks,
    log,
    tenantOf: async (id) => (await stores.accounts.workspaces.get(id))?.tenant_id ?? null,
  });
  // Every LLM call and every embedding call of this runtime's providers holds one of these slots.
  const slots = createCallSlots({ llm: config.ingest.llmConcurrency, embedding: config.ingest.embeddingConcurrency });
  const built = createProviderRegistry(config, log, {
    slots,
    mockLatencyMs: options.mockLatencyMs,
    recorder: {
      record(e) {
        costs.recorder.record(e);
        options.recorder?.record(e);
      },
    },
  });
  const providers = options.providers ? options.providers(built) : built;
  const redis = config.redisUrl
    ? // No offline queue: while Redis is down, limited requests fail fast with 503 instead of hanging.
      redisClient(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000 })
    : null;
  redis?.on('error', (err) => log.warn({ err: err.message }, 'redis error'));
  // Closed last: QUIT lets commands in flight finish; a connection that is down is simply dropped.
  if (redis) {
    engine.own({
      close: () =>
        (redis.status === 'ready' ? redis.quit().then(() => undefined) : Promise.resolve(redis.disconnect())).catch(() =>
          redis.disconnect(),
        ),
    });
  }
  engine.own(stores);
  const events = createGraphEvents(config, redis, log);
  // Usage recorded by everything that stops before is written.
  engine.own(costs);
  // Spans of everything that stops before are sent.
  engine.own({ close: () => tracing.shutdown() });
  engine.own(events);
  // Entity leases last as long as task leases: a dead instance's locks and tasks come free together.
  const entityLocks = createEntityLocks(stores.locks, config.taskLeaseMs);
  const starters: Array<() => Promise<void>> = [];
  const models = createModelService({ config, providers: () => providers, log });
  // What the probes report of the default provider; a check under way is waited for on close.
  const llmHealth = engine.own(new LlmHealth(providers));
  // Several instances on one database: a settings change another instance takes applies here within the poll.
  if (shared) {
    let stopFollowing = () => undefined as void;
    starters.push(async () => void (stopFollowing = settings.follow(SETTINGS_POLL_MS)));
    engine.own({ close: async () => stopFollowing() });
  }
  // The cl100k tables take a good part of a second to build: at start-up, not in the first request that counts.
  starters.push(async () => void tokenEncoder());
  starters.push(async () => {
    await models.probeDefaults();
  });
  // Parsing and chunking run in worker threads; they stop once the tasks that use them have.
  const cpu = engine.own(options.cpu ?? new WorkerCpuPool());
  // Closed after the task workers stop (owned before them): embedding queues settle and vectors refreshed in the
  // background are written.
  const ingest = engine.own(createIngestState());
  // Likewise: LLM answers' cache entries still waiting to be written.
  const llmCache = engine.own(new LlmCache());
  // What tasks and documents use.
  const host: ServiceHost = {
    get config() {
      return live.config;
    },
    stores,
    providers,
    events,
    log,
    entityLocks,
    cpu,
    llmCache,
    ingest,
  };
  const tasks = createTaskService(host);
  const documents = createDocumentService(host, tasks);
  let recheck: NodeJS.Timeout | undefined;
  starters.push(async () => {
    await tasks.start();
    const { admitting } = await documents.recoverStuckEverywhere();
    // Documents whose admission had not written their task yet: looked at again once it would have (or died).
    if (admitting > 0) {
      recheck = setTimeout(() => {
        documents.recoverStuckEverywhere().catch((err: unknown) => log.error({ err }, 'the second start-up recovery failed'));
      }, config.taskLeaseMs);
      recheck.unref();
    }
  });
  engine.own({
    async close() {
      clearTimeout(recheck);
      await tasks.close();
    },
  });
  const communities = createCommunityService({
    stores,
    providers: () => providers,
    events,
    log,
    refreshMs: config.communityRefreshMs,
  });
  starters.push(async () => communities.start());
  engine.own(communities);
  const reranker = createReranker(config.rerank, log);
  const graph = createGraphService(
    { stores, events, providers, entityLocks, llmCache },
    {
      streamKeepAliveMs: config.graphStream.heartbeatMs,
      cypher: config.cypher,
      stream: { maxBufferedBytes: config.graphStream.maxBufferedBytes, maxQueuedBatches: config.graphStream.replayWindow },
    },
  );
  const tenancy = createTenancyService({
    config,
    stores,
    providers: () => providers,
    log,
    llmCache,
    stats: (scope) => graph.workspaceStats(scope),
    async stopTasks(scope) {
      await tasks.cancelPending(scope);
      for (const task of (await tasks.list(scope, { limit: 10_000, offset: 0, status: 'running' })).items) {
        await tasks.cancel(scope, task.id).catch(() => undefined);
      }
    },
    reprocessAll: (scope) => documents.reprocessAll(scope),
    liveTasks: async (scope) => (await tasks.list(scope, { limit: 10_000, offset: 0, status: 'running' })).items,
  });
  let auth: AuthService;
  let bootstrap;
  try {
    // Instances sharing the database also share the access-token signing key, unless one is configured.
    const signingKey = shared && !config.auth.jwtSecret ? await sharedSigningKey(stores.accounts.settings) : undefined;
    auth = createAuthService({
      config: config.auth,
      accounts: stores.accounts,
      log,
      operatorTenantId: () => tenancy.operatorTenantId,
      resolveWorkspace: (tenantId, ref) => tenancy.resolveWorkspaceRef(tenantId, ref),
      loginCounters: redis ? new RedisWindowCounters(redis) : undefined,
      sharedSigningKey: signingKey,
    });
    // Stored settings apply before anything is ingested or served.
    await settings.load();
    await tenancy.ensureDefaultTenant();
    bootstrap = await auth.bootstrap();
  } catch (err) {
    // Everything owned so far (worker threads, caches, the change feed, stores, Redis) closes, not only the stores.
    await engine.close().catch((closeErr: unknown) => log.warn({ err: closeErr }, 'closing after a failed start failed'));
    throw err;
  }
  if (auth.open) {
    log.warn(
      { dev_mode: config.auth.devMode, auth_enabled: config.auth.enabled },
      'THE API IS OPEN: anyone who reaches this port can read, change and delete everything (SERVICE_DEV_MODE=true or SERVICE_AUTH_ENABLED=false); never run it like this in production',
    );
  }

  // What query and chat answer with.
  const answering = {
    stores,
    providers,
    reranker,
    llmCache,
    noContextResponse: config.noContextResponse,
    promptsDir: config.promptsDir,
    log,
  };
  const runtime: Runtime = {
    get config() {
      return live.config;
    },
    log,
    stores,
    providers,
    events,
    graph,
    lineage: createLineageService({ stores, config }),
    query: withQueryDefaults(createQueryService(answering), () => settings.current().query),
    chat: withChatDefaults(createChatService(answering), () => settings.current().query),
    conversations: createConversationService(stores.conversations),
    folders: createFolderService(stores.conversations),
    views: createSavedViewService(stores.accounts.savedViews),
    compat: createCompatService({ config, stores, providers, reranker, llmCache, log, servableProviders: models.servableProviders }),
    tasks,
    documents,
    integrity: createIntegrityService(stores, config.defaultWorkspaceId),
    resolution: createResolutionService(host),
    communities,
    analytics: createAnalyticsService(stores),
    redis,
    cpu,
    ingest,
    slots,
    llmCache,
    auth,
    tenancy,
    models,
    llmHealth,
    settings,
    costs,
    tracing: tracing.status,
    traced: (fn) => tracing.run(fn),
    bootstrap,
    async start() {
      // Background work started here (task workers, recomputes) exports its spans through this runtime's tracing.
      for (const start of starters) await tracing.run(start);
    },
    close: () => engine.close(),
  };
  return runtime;
}
