import type { AppConfig } from '../config/types';
import type { Logger } from '../logger';
import { createMemoryStores } from './memory';
import type { Stores } from './ports';

/**
 * Embedded (memory) or persistent (Neo4j, + Qdrant for vectors when QDRANT_URL is set) stores, by
 * configuration. Persistent start-up failures throw an Error whose message is one line saying what to fix.
 */
export async function createStores(config: AppConfig, log: Logger): Promise<Stores> {
  if (config.storage.mode === 'memory') {
    log.info('storage: embedded in-memory stores (data is lost on restart)');
    return createMemoryStores();
  }
  const { uri, user, password, database } = config.storage;
  // Loaded only in persistent mode: the driver and the Qdrant client take about 17 MB the embedded mode never needs.
  /* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/consistent-type-imports -- see above */
  const { createNeo4jStores } = require('./neo4j') as typeof import('./neo4j');
  /* eslint-enable @typescript-eslint/no-require-imports, @typescript-eslint/consistent-type-imports */
  return createNeo4jStores({
    neo4j: { uri, user, password, database, pool: config.neo4jPool },
    dimension: config.embedding.dimension,
    qdrant: config.qdrant,
    log,
  });
}
