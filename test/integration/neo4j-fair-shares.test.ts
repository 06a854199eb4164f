import type { Neo4jClient } from '../../src/store/neo4j/client';
import { makeEntity, makeRelationship } from '../contract/fixtures';
import { json, prose, waitForTask } from '../fixtures/documents';
import { type TestApp, startTestApp } from '../helpers/app';
import { type TestRequestInit, workspaceRequest } from '../helpers/request';

/**
 * Persistent mode: hundreds of graph stream subscribers opened with one tenant's key, next to another tenant's
 * ingestion, queries and reads. The subscribers past the tenant's share are refused with 429 and Retry-After; the
 * ones admitted never hold more Neo4j sessions than the tenant's share of the pool, and none once idle; the other
 * tenant's documents complete, its requests are served, and no request with a valid key gets 401.
 */
jest.setTimeout(240_000);

const SUBSCRIBERS = 300;
const STREAMS_PER_TENANT = 24;
const SESSIONS_PER_TENANT = 4;
const DOCUMENTS = 4;

let app: TestApp;
type Client = (path: string, init?: TestRequestInit) => Promise<Response>;
const held: AbortController[] = [];
/**
 * The responses of admitted subscribers, kept: fetch cancels the body of a response that is garbage collected
 * unread, which closes its connection and frees its slot for the next subscriber.
 */
const open: Response[] = [];

beforeAll(async () => {
  app = await startTestApp({
    ...(process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL } : {}),
    WORKER_THREADS: '4',
    SERVICE_MOCK_LATENCY_MS: '50',
    SERVICE_MAX_GRAPH_STREAMS: '200',
    SERVICE_MAX_GRAPH_STREAMS_PER_TENANT: String(STREAMS_PER_TENANT),
    SERVICE_MAX_GRAPH_STREAMS_PER_WORKSPACE: '100',
    NEO4J_MAX_POOL_SIZE: '16',
    NEO4J_REQUEST_SESSIONS: '10',
    NEO4J_REQUEST_SESSIONS_PER_TENANT: String(SESSIONS_PER_TENANT),
  });
});

afterAll(async () => {
  for (const controller of held) controller.abort();
  await app?.close();
});

/** A new tenant with an editor key, as a client of its default workspace. */
async function tenant(name: string): Promise<{ id: string; workspace: string; client: Client }> {
  const made = await app.rt.tenancy.createTenant({ name: `${name} ${Date.now().toString(36)}` });
  const key = await app.createApiKey({ role: 'editor', tenantId: made.tenant.id });
  const workspace = made.default_workspace.id;
  return { id: made.tenant.id, workspace, client: workspaceRequest(app.url, workspace, { 'X-API-Key': key }) };
}

test("one tenant's stream subscribers take its share only: the other tenant's ingestion and queries are served", async () => {
  const greedy = await tenant('Greedy');
  const other = await tenant('Other');
  // The greedy tenant's graph, so that each admitted subscriber's snapshot reads Neo4j.
  const entities = Array.from({ length: 60 }, (_, i) => makeEntity(`G${i}`));
  await app.rt.stores.graph.upsertEntities({ tenantId: greedy.id, workspaceId: greedy.workspace }, entities);
  await app.rt.stores.graph.upsertRelationships(
    { tenantId: greedy.id, workspaceId: greedy.workspace },
    entities.slice(1).map((e, i) => makeRelationship(`G${i}`, `G${i + 1}`)),
  );

  const db = (app.rt.stores.chunks as unknown as { db: Neo4jClient }).db;
  // Sessions of the greedy tenant's requests, counted by every unit of work once it holds its own.
  let mostSessions = 0;
  const run = db.budget.run.bind(db.budget);
  db.budget.run = <T>(work: () => Promise<T>) =>
    run(() => {
      mostSessions = Math.max(mostSessions, db.budget.inUse(greedy.id).requests);
      return work();
    });

  const statuses: number[] = [];
  const record = (res: Response) => (statuses.push(res.status), res);

  // The other tenant's documents start processing.
  const tasks: string[] = [];
  for (let i = 0; i < DOCUMENTS; i++) {
    const res = record(
      await other.client('/api/v1/documents', { method: 'POST', json: { content: prose(`fair-${i}`, 8), async_processing: true } }),
    );
    expect(res.status).toBe(202);
    tasks.push((await json(res)).task_id);
  }

  // The flood: every subscriber at once, while the other tenant queries and reads.
  const subscribers = Array.from({ length: SUBSCRIBERS }, async () => {
    const controller = new AbortController();
    held.push(controller);
    const res = await greedy.client('/api/v1/graph/stream', { headers: { Accept: 'text/event-stream' }, signal: controller.signal });
    if (res.status === 200) open.push(res);
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: res.status === 200 ? null : await res.text() };
  });
  const otherWork = Array.from({ length: 12 }, async (_, i) => {
    const res = record(
      i % 3 === 0
        ? await other.client('/api/v1/query', { method: 'POST', json: { query: `What is fair-${i}?`, mode: 'bypass' } })
        : await other.client(i % 3 === 1 ? '/api/v1/graph' : '/api/v1/graph/entities'),
    );
    await res.arrayBuffer();
    return res.status;
  });
  const answered = await Promise.all(subscribers);
  // An admitted subscriber has its snapshot before its 200; connected and idle, it holds no session.
  expect(db.budget.inUse(greedy.id).requests).toBe(0);
  expect(await Promise.all(otherWork)).toEqual(otherWork.map(() => 200));

  const admitted = answered.filter((a) => a.status === 200);
  const refused = answered.filter((a) => a.status !== 200);
  expect(admitted).toHaveLength(STREAMS_PER_TENANT);
  expect(refused).toHaveLength(SUBSCRIBERS - STREAMS_PER_TENANT);
  for (const r of refused) {
    expect(r.status).toBe(429);
    expect(r.retryAfter).toBe('1');
  }
  expect(JSON.parse(refused[0].body!).detail).toMatch(/this tenant has 24 graph stream subscribers in progress/);

  // The other tenant's documents complete, and its subscriber is admitted beside the greedy tenant's.
  const polling = { request: async (path: string) => record(await other.client(path)) };
  const finished = await Promise.all(tasks.map((id) => waitForTask(polling, id, undefined, 180_000)));
  expect(finished.map((t) => t.status)).toEqual(tasks.map(() => 'completed'));
  const controller = new AbortController();
  held.push(controller);
  const subscribed = record(
    await other.client('/api/v1/graph/stream', { headers: { Accept: 'text/event-stream' }, signal: controller.signal }),
  );
  open.push(subscribed);
  expect(subscribed.status).toBe(200);

  expect(statuses.filter((s) => s === 401)).toEqual([]);
  expect([...answered.map((a) => a.status), ...statuses]).not.toContain(401);
  expect(mostSessions).toBeGreaterThan(0);
  expect(mostSessions).toBeLessThanOrEqual(SESSIONS_PER_TENANT);
});
