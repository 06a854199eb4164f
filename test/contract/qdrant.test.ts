import type { Scope } from '../../src/domain/types';
import { createMemoryStores } from '../../src/store/memory';
import type { Stores } from '../../src/store/ports';
import { QdrantVectorStore } from '../../src/store/qdrant/vectors';
import { storesContract, vectorStoreContract } from './index';

/**
 * The vector-store contract against a live Qdrant (TEST_QDRANT_URL, set by `npm test` from QDRANT_URL): the
 * other ports stay in memory. jest.config.js leaves this file out when no Qdrant is configured, and the test
 * runner says so.
 */
jest.setTimeout(120_000);

async function makeStores(): Promise<Stores> {
  const memory = createMemoryStores();
  const vectors = QdrantVectorStore.create(process.env.TEST_QDRANT_URL as string, process.env.TEST_QDRANT_API_KEY ?? null);
  await vectors.prepare(256);
  return {
    ...memory,
    vectors,
    async health() {
      return { ...(await memory.health()), vector_storage: await vectors.ping() };
    },
    async dropWorkspace(scope: Scope) {
      await memory.dropWorkspace(scope);
      await vectors.dropWorkspace(scope);
    },
  };
}

vectorStoreContract('qdrant', makeStores);
storesContract('memory + qdrant', makeStores);
