import type { AppConfig } from '../config/types';
import type { Logger } from '../logger';
import { createMemoryStores } from './memory';
import { createNeo4jStores } from './neo4j';
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
  return createNeo4jStores({
    neo4j: { uri, user, password, database },
    dimension: config.embedding.dimension,
    qdrant: config.qdrantUrl ? { url: config.qdrantUrl, apiKey: config.qdrantApiKey } : null,
    log,
  });
}
