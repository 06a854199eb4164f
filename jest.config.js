/**
 * Suites that need a live server run only when the test runner (scripts/test.mjs) provides one:
 * Neo4j through TEST_NEO4J_URI, Qdrant through TEST_QDRANT_URL, the real local models (test/real/) through
 * TEST_OLLAMA_URL and
 * TEST_EMBEDDINGS_URL (scripts/models/models.sh).
 */
const serverSuites = [];
if (!process.env.TEST_NEO4J_URI) serverSuites.push('/test/contract/neo4j[^/]*\\.test\\.ts$', '/test/integration/neo4j-[^/]*\\.test\\.ts$');
if (!process.env.TEST_QDRANT_URL) serverSuites.push('/test/contract/qdrant(-cluster)?\\.test\\.ts$');
// Neo4j for the graph and Qdrant for the vectors, together (a single server, or a cluster a suite starts itself).
if (!process.env.TEST_QDRANT_URL || !process.env.TEST_NEO4J_URI) serverSuites.push('/test/(api|integration)/qdrant-[^/]*\\.test\\.ts$');

if (!process.env.TEST_OLLAMA_URL || !process.env.TEST_EMBEDDINGS_URL) serverSuites.push('/test/real/');

/** @type {import('jest').Config} */
module.exports = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testPathIgnorePatterns: ['/node_modules/', ...serverSuites],
  testTimeout: 30000,
  // Tests are type-checked by `npm run typecheck` (tsconfig.json includes test/ and scripts/), which CI runs before
  // them; ts-jest only transpiles (isolatedModules), which keeps a run fast on two cores.
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
};
