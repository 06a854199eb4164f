import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Scope, VectorPoint } from '../../src/domain/types';
import { createMemoryStores } from '../../src/store/memory';
import type { Stores } from '../../src/store/ports';
import { collectionName, QdrantVectorStore, type QdrantLayout } from '../../src/store/qdrant/vectors';
import { copiesInStep, qdrantCluster } from '../fixtures/qdrant-cluster';
import { vectorStoreContract } from './index';

/**
 * The vector-store contract against a three-node Qdrant cluster (scripts/qdrant/qdrant.sh cluster start 3),
 * collections in three shards of three copies each, then a node killed and started again: the store moves to a
 * node that answers, reads and writes go on, and once the node is back every copy of every shard holds the same
 * points. Runs beside the single-server Qdrant suites (jest.config.js leaves it out without TEST_QDRANT_URL).
 */
jest.setTimeout(180_000);

/** Every shard on every node: with one node away, two copies still confirm a write and a quorum of copies answers a read (`majority` asks every copy, and fails while one is away). */
const LAYOUT: QdrantLayout = { shards: 3, replicationFactor: 3, writeConsistency: 2, readConsistency: 'quorum' };
const DIMENSION = 24;

let runDir: string;
let urls: string[];

const qdrant = (...args: string[]) => qdrantCluster(runDir, ...args);

beforeAll(() => {
  runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgrag-qdrant-cluster-'));
  urls = qdrant('cluster', 'start', '3').split('\n').pop()!.split(',');
  expect(urls).toHaveLength(3);
});

afterAll(() => {
  if (!runDir) return;
  qdrant('cluster', 'stop');
  fs.rmSync(runDir, { recursive: true, force: true });
});

const clusterStore = () => QdrantVectorStore.create(urls.join(','), null, LAYOUT);

async function makeStores(): Promise<Stores> {
  const memory = createMemoryStores();
  const vectors = clusterStore();
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

vectorStoreContract('qdrant cluster', makeStores);

const points = (from: number, n: number): VectorPoint[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `p${from + i}`,
    vector: Array.from({ length: DIMENSION }, (_, d) => Math.sin((from + i + 1) * (d + 1))),
    document_ids: [`doc-${(from + i) % 5}`],
  }));

describe('Qdrant cluster: a node killed and started again', () => {
  it('creates collections with the configured shards and copies', async () => {
    const store = clusterStore();
    await store.upsert({ workspaceId: 'layout' }, 'entity', points(0, 3));
    const info = (await (await fetch(`${urls[1]}/collections/${collectionName('entity', DIMENSION)}`)).json()) as {
      result: { config: { params: { shard_number: number; replication_factor: number; write_consistency_factor: number } } };
    };
    expect(info.result.config.params).toMatchObject({ shard_number: 3, replication_factor: 3, write_consistency_factor: 2 });
    await store.dropWorkspace({ workspaceId: 'layout' });
  });

  it('reads and writes through the nodes that answer, and every copy holds every point once the node is back', async () => {
    const store = clusterStore();
    const scope = { workspaceId: `cluster-${Date.now()}` };
    await store.upsert(scope, 'chunk', points(0, 200));
    expect(await store.count(scope, 'chunk')).toBe(200);

    // The first node listed, the one the store talks to, dies.
    qdrant('node', 'kill', '1');
    const query = points(7, 1)[0].vector;
    expect((await store.search(scope, 'chunk', query, 1))[0].id).toBe('p7');
    await store.upsert(scope, 'chunk', points(200, 100));
    await store.delete(scope, 'chunk', ['p0', 'p1']);
    expect(await store.count(scope, 'chunk')).toBe(298);
    expect((await store.search(scope, 'chunk', points(250, 1)[0].vector, 1, { documentIds: ['doc-0'] }))[0].id).toBe('p250');

    qdrant('node', 'start', '1');
    const collection = collectionName('chunk', DIMENSION);
    // The node that was away catches up: its copies go back to Active with the points of the others.
    const copies = await copiesInStep(urls, collection, 9);
    // Three shards of three copies; the points of this workspace are among them (the collection is shared).
    const perShard = new Map(copies.map((c) => [c.shard_id, c.points_count]));
    expect(perShard.size).toBe(3);
    expect([...perShard.values()].reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(298);
    // A store given only the node that came back reads everything from it.
    const returned = QdrantVectorStore.create(urls[0], null, LAYOUT);
    expect(await returned.count(scope, 'chunk')).toBe(298);
    expect(new Set(await returned.ids(scope, 'chunk'))).toEqual(new Set(points(2, 298).map((p) => p.id)));
    await store.dropWorkspace(scope);
  });
});
