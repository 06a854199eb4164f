import type { AppConfig } from '../config/types';
import type { Logger } from '../logger';
import { createMemoryStores } from './memory';
import type { Stores } from './ports';

/** Embedded (memory) or persistent (Neo4j, + Qdrant) stores, by configuration. */
export async function createStores(config: AppConfig, log: Logger): Promise<Stores> {
  if (config.storage.mode === 'memory') {
    log.info('storage: embedded in-memory stores (data is lost on restart)');
    return createMemoryStores();
  }
  throw new Error('persistent storage (Neo4j) is not available in this build');
}
