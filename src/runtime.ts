import Redis from 'ioredis';
import type { AppConfig } from './config/types';
import { GraphEvents } from './graph/events';
import { type GraphService, createGraphService } from './graph/service';
import { type LineageService, createLineageService } from './lineage/service';
import { createProviderRegistry } from './llm/registry';
import type { ProviderRegistry } from './llm/ports';
import type { Logger } from './logger';
import { createStores } from './store';
import type { Stores } from './store/ports';

/**
 * The composition root: picks store and provider implementations from the configuration and wires services.
 * Routes receive this object and call services only.
 */
export interface Runtime {
  config: AppConfig;
  log: Logger;
  stores: Stores;
  providers: ProviderRegistry;
  events: GraphEvents;
  graph: GraphService;
  lineage: LineageService;
  redis: Redis | null;
  /** Start background work (task workers); tests may create a runtime without starting it. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function createRuntime(config: AppConfig, log: Logger): Promise<Runtime> {
  const stores = await createStores(config, log);
  const providers = createProviderRegistry(config, log);
  const events = new GraphEvents();
  const redis = config.redisUrl ? new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 }) : null;
  redis?.on('error', (err) => log.warn({ err: err.message }, 'redis error'));
  const closers: Array<() => Promise<void>> = [];

  const runtime: Runtime = {
    config,
    log,
    stores,
    providers,
    events,
    graph: createGraphService({ stores, events, providers }),
    lineage: createLineageService({ stores, config }),
    redis,
    async start() {},
    async close() {
      for (const close of closers.reverse()) await close();
      await stores.close();
      if (redis) redis.disconnect();
    },
  };
  return runtime;
}
