import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { VectorKind } from '../../src/domain/types';
import { collectionName, QdrantVectorStore, type QdrantLayout } from '../../src/store/qdrant/vectors';
import { BalancedInstances, balancedEnv, ingestionUnderWay, taskCounts, unfinished, uploadRange } from '../fixtures/balancer';
import { json } from '../fixtures/documents';
import { copiesInStep, qdrantCluster } from '../fixtures/qdrant-cluster';
import { reportedOrphans } from '../fixtures/service-integrity';
import { waitFor } from '../helpers/wait';

/**
 * Three instances of the service behind HAProxy on one Neo4j, one Redis and a three-node Qdrant cluster
 * (scripts/qdrant/qdrant.sh cluster start 3) holding the vectors: three shards of three copies, two copies confirm
 * a write, reads ask a quorum. Thirty documents are ingested through the balancer while one instance is killed
 * (SIGKILL) and the Qdrant node every instance talks to first is stopped, then both start again. Every document
 * completes, the integrity check finds nothing orphaned or missing, every copy of every shard on every node holds
 * the same points once the node has caught up, and each node alone counts every vector of the workspace; queries
 * meanwhile are answered, or refused with 503 and Retry-After, never with a 500.
 */
jest.setTimeout(300_000);

const LAYOUT: QdrantLayout = { shards: 3, replicationFactor: 3, writeConsistency: 2, readConsistency: 'quorum' };
const KINDS: VectorKind[] = ['chunk', 'entity', 'relationship'];
/** SERVICE_EMBEDDING_DIMENSION of the instances (the mock provider's default). */
const DIMENSION = 256;
const DOCUMENTS = 30;

const run = Date.now().toString(36);
const qdrantDir = mkdtempSync(path.join(os.tmpdir(), 'kgrag-qdrant-nodes-'));
const qdrant = (...args: string[]) => qdrantCluster(qdrantDir, ...args);
let qdrantUrls: string[] = [];
let balanced: BalancedInstances | undefined;

beforeAll(async () => {
  const env = balancedEnv();
  qdrantUrls = qdrant('cluster', 'start', '3').split('\n').pop()!.split(',');
  balanced = new BalancedInstances(`qdrant-balanced-${run}`, {
    ...env,
    QDRANT_URL: qdrantUrls.join(','),
    QDRANT_SHARDS: String(LAYOUT.shards),
    QDRANT_REPLICATION_FACTOR: String(LAYOUT.replicationFactor),
    QDRANT_WRITE_CONSISTENCY: String(LAYOUT.writeConsistency),
    QDRANT_READ_CONSISTENCY: String(LAYOUT.readConsistency),
    SERVICE_EMBEDDING_DIMENSION: String(DIMENSION),
  });
  await balanced.start();
});

afterAll(async () => {
  await balanced?.stop();
  if (qdrantUrls.length > 0) qdrant('cluster', 'stop');
  rmSync(qdrantDir, { recursive: true, force: true });
});

describe('persistent mode: three instances behind HAProxy, vectors in a three-node Qdrant cluster', () => {
  it('ingests through the balancer while an instance is killed and a Qdrant node stopped, losing no vector', async () => {
    const { instances, request: viaBalancer } = balanced!;
    const prefix = `cluster-${run}`;
    const { answers, queries } = await ingestionUnderWay(viaBalancer, prefix, DOCUMENTS / 2);

    // An instance dies, and the Qdrant node listed first (the one every instance sends its requests to) stops.
    await instances[1].kill('SIGKILL');
    qdrant('node', 'stop', '1');
    const outage = { answered: answers.get('query 200'), completed: (await taskCounts(viaBalancer)).completed };
    await uploadRange(viaBalancer, answers, prefix, DOCUMENTS / 2, DOCUMENTS);
    // Documents written and queries answered while the node is away.
    const during = await waitFor(
      'documents processed and queries answered with the node away',
      async (): Promise<Record<string, number>> => ({
        ...(await taskCounts(viaBalancer)),
        answered: answers.get('query 200') - outage.answered,
      }),
      (c) => c.completed >= outage.completed + 5 && c.answered >= 3,
      120_000,
    );

    qdrant('node', 'start', '1');
    await balanced!.startInstance(1);
    const settled = await waitFor(
      'the queue to drain',
      () => taskCounts(viaBalancer),
      (c) => c.pending === 0 && c.running === 0,
      180_000,
    );
    await queries.stop();
    process.stdout.write(
      `balanced cluster: tasks when the node stopped ${JSON.stringify(outage)}, with it away ${JSON.stringify(during)}, at the end ${JSON.stringify(settled)}; ` +
        `answers ${JSON.stringify(answers)}; ` +
        `faults ${JSON.stringify(answers.faults)}\n`,
    );

    expect(await unfinished(viaBalancer, prefix)).toEqual({ total: DOCUMENTS, unfinished: [] });
    expect(await reportedOrphans((p) => viaBalancer(p))).toEqual({});
    expect(answers.faults).toEqual([]);

    // The vectors of the workspace, as the integrity check counted them through the service.
    const report = await json(await viaBalancer('/api/v1/admin/integrity'));
    const vectors = (report.checked as { vectors: Record<VectorKind, number> }).vectors;
    expect(vectors.chunk).toBeGreaterThanOrEqual(DOCUMENTS);

    // Node 1 catches up: every copy of every shard on every node is active and holds as many points as the others.
    for (const kind of KINDS) {
      const collection = collectionName(kind, DIMENSION);
      const copies = await copiesInStep(qdrantUrls, collection, 9);
      const perShard = new Map(copies.map((c) => [c.shard_id, c.points_count]));
      expect(perShard.size).toBe(3);
      expect([...perShard.values()].reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(vectors[kind]);
      // Each node alone, the one that was away among them, reads every vector of the workspace.
      for (const url of qdrantUrls) {
        const node = QdrantVectorStore.create(url, null, LAYOUT);
        expect(await node.count({ workspaceId: balanced!.workspace }, kind)).toBe(vectors[kind]);
      }
    }
  });
});
