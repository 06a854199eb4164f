import { createLogger } from '../../src/logger';
import { createNeo4jStores } from '../../src/store/neo4j';
import { allStoreContracts } from './index';

/**
 * The store contracts against Neo4j (vectors in Neo4j's own indexes). Runs in the persistent pass of
 * `npm test`, which provides TEST_NEO4J_URI and runs this file alone on a fresh database: claims look at
 * the tasks of every workspace.
 */
jest.setTimeout(180_000);

const settings = { uri: process.env.TEST_NEO4J_URI as string, user: null, password: null, database: null };

allStoreContracts('neo4j', () => createNeo4jStores({ neo4j: settings, dimension: 256, log: createLogger('silent') }));
