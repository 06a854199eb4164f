import { randomUUID } from 'node:crypto';
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

describe('Qdrant vector store adapter (live server)', () => {
  it('counts, deletes and drops a workspace across the collections of every dimension', async () => {
    const store = QdrantVectorStore.create(process.env.TEST_QDRANT_URL as string, null);
    const [a, b] = [{ workspaceId: randomUUID() }, { workspaceId: randomUUID() }];
    await store.upsert(a, 'chunk', [
      { id: 'x', vector: [1, 0], document_ids: [] },
      { id: 'y', vector: [0, 1], document_ids: [] },
    ]);
    await store.upsert(a, 'entity', [{ id: 'e', vector: [1, 0, 0, 0], document_ids: [] }]);
    await store.upsert(b, 'chunk', [{ id: 'x', vector: [1, 0], document_ids: [] }]);
    expect(await store.count(a, 'chunk')).toBe(2);
    expect(await store.bytes(a)).toBe(2 * 2 * 4 + 4 * 4);
    await store.delete(a, 'chunk', ['x']);
    expect(await store.count(a, 'chunk')).toBe(1);
    expect(await store.count(b, 'chunk')).toBe(1);
    await store.dropWorkspace(a);
    expect(await store.bytes(a)).toBe(0);
    expect(await store.count(b, 'chunk')).toBe(1);
  });

  it('refuses a batch whose dimension differs from the vectors the workspace already holds for that kind', async () => {
    const store = QdrantVectorStore.create(process.env.TEST_QDRANT_URL as string, null);
    const scope = { workspaceId: randomUUID() };
    const other = { workspaceId: randomUUID() };
    await store.upsert(scope, 'chunk', [{ id: 'x', vector: [1, 0], document_ids: [] }]);
    await expect(store.upsert(scope, 'chunk', [{ id: 'y', vector: [1, 0, 0], document_ids: [] }])).rejects.toThrow(
      'vectors have dimension 3, the chunk index holds 2',
    );
    await store.upsert(other, 'chunk', [{ id: 'y', vector: [1, 0, 0], document_ids: [] }]);
    expect(await store.count(other, 'chunk')).toBe(1);
  });
});
