import Redis from 'ioredis';
import type { AppConfig } from './config/types';
import { GraphEvents } from './graph/events';
import { settleEmbeddingRefreshes } from './ingest/merge-stage';
import { createGraphService } from './graph/service';
import { createEntityLocks } from './graph/locks';
import { createLineageService } from './lineage/service';
import { createProviderRegistry } from './llm/registry';
import { startTracing } from './llm/tracing';
import { createQueryService, createReranker } from './retrieval';
import { createChatService, createConversationService } from './services/chat';
import { createCompatService } from './services/compat';
import { createCostService } from './services/costs';
import { createDocumentService } from './services/documents';
import { createAuthService } from './services/auth';
import { createTenancyService } from './services/tenancy';
import { type ServiceHost, createTaskService } from './services/tasks';
import type { Logger } from './logger';
import { createStores } from './store';
import type { Runtime } from './services/runtime';

export type { Runtime };

/**
 * The composition root: picks store and provider implementations from the configuration and wires services.
 * Routes receive the result and call services only.
 */
export async function createRuntime(config: AppConfig, log: Logger): Promise<Runtime> {
  const stores = await createStores(config, log);
  const tracing = await startTracing(config.tracing, config.version, log);
  const costs = createCostService({
    config,
    costs: stores.costs,
    log,
    tenantOf: async (id) => (await stores.accounts.workspaces.get(id))?.tenant_id ?? null,
  });
  const providers = createProviderRegistry(config, log, { recorder: costs.recorder });
  const events = new GraphEvents();
  const redis = config.redisUrl
    ? // No offline queue: while Redis is down, limited requests fail fast with 503 instead of hanging.
      new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000 })
    : null;
  redis?.on('error', (err) => log.warn({ err: err.message }, 'redis error'));
  const closers: Array<() => Promise<void>> = [];
  // Runs last: usage recorded by everything that stops before it is written.
  closers.push(() => costs.close());
  // Spans of everything that stops before are sent.
  closers.push(() => tracing.shutdown());
  // Entity leases last as long as task leases: a dead instance's locks and tasks come free together.
  const entityLocks = createEntityLocks(stores.locks, config.taskLeaseMs);
  const starters: Array<() => Promise<void>> = [];
  // Runs after the task workers stop (closers run last first): vectors refreshed in the background are written.
  closers.push(() => settleEmbeddingRefreshes());
  // What tasks and documents use; a provider registry swapped at run time (runtime.providers) lands here,
  // so the next task runs with it.
  const host: ServiceHost = { config, stores, providers, events, log, entityLocks };
  const tasks = createTaskService(host);
  const documents = createDocumentService(host, tasks);
  starters.push(async () => {
    await tasks.start();
    await documents.recoverStuckEverywhere();
  });
  closers.push(() => tasks.close());
  const reranker = createReranker(config.rerank, log);
  const graph = createGraphService({ stores, events, providers, entityLocks });
  const tenancy = createTenancyService({
    config,
    stores,
    providers: () => host.providers,
    log,
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
  const auth = createAuthService({ config: config.auth, accounts: stores.accounts, log, operatorTenantId: () => tenancy.operatorTenantId });
  let bootstrap;
  try {
    await tenancy.ensureDefaultTenant();
    bootstrap = await auth.bootstrap();
  } catch (err) {
    await stores.close().catch(() => undefined);
    redis?.disconnect();
    throw err;
  }
  if (auth.open) {
    log.warn(
      { dev_mode: config.auth.devMode, auth_enabled: config.auth.enabled },
      'THE API IS OPEN: anyone who reaches this port can read, change and delete everything (SERVICE_DEV_MODE=true or SERVICE_AUTH_ENABLED=false); never run it like this in production',
    );
  }

  const runtime: Runtime = {
    config,
    log,
    stores,
    get providers() {
      return host.providers;
    },
    set providers(next) {
      host.providers = next;
    },
    events,
    graph,
    lineage: createLineageService({ stores, config }),
    query: createQueryService({ stores, providers, reranker }),
    chat: createChatService({ stores, providers, reranker }),
    conversations: createConversationService(stores.conversations),
    compat: createCompatService({ config, stores, providers, reranker }),
    tasks,
    documents,
    redis,
    auth,
    tenancy,
    costs,
    tracing: tracing.status,
    bootstrap,
    async start() {
      for (const start of starters) await start();
    },
    async close() {
      for (const close of closers.reverse()) await close();
      await stores.close();
      if (redis) redis.disconnect();
    },
  };
  return runtime;
}
