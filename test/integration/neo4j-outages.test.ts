import { prose } from '../fixtures/documents';
import { type OwnServer, startOwnServer } from '../fixtures/servers';
import { reportedOrphans } from '../fixtures/service-integrity';
import { type ServiceProcess, startService } from '../fixtures/service-process';

/**
 * Outages of the real servers under load: each test starts its own Neo4j, Redis or Qdrant (scripts/*), points
 * the real service process at it, stops it while requests keep coming, and starts it again. While it is down the
 * affected routes answer 503 problems, /ready says not ready and /live stays up; the process does not crash; once
 * the server is back the service recovers by itself and finishes the work queued before the outage (a run that
 * meets the outage goes back to the queue with a backoff and completes once the server is back; past the configured
 * retries it fails, naming the server).
 */
jest.setTimeout(300_000);

const run = Date.now().toString(36);
const services: ServiceProcess[] = [];
const servers: OwnServer[] = [];

// A test's services stop with it: instances sharing the test Neo4j claim each other's tasks, and one left running
// (with a dependency that is gone) would take over the next test's documents.
afterEach(async () => {
  for (const service of services.splice(0)) await service.kill('SIGKILL');
});

afterAll(async () => {
  for (const server of servers) await server.remove().catch(() => undefined);
});

async function own(kind: 'neo4j' | 'redis' | 'qdrant'): Promise<OwnServer> {
  const server = await startOwnServer(kind);
  servers.push(server);
  return server;
}

async function service(name: string, env: Record<string, string>): Promise<ServiceProcess> {
  const started = await startService(`outage-${name}-${run}`, null, { SERVICE_MOCK_LATENCY_MS: '20', ...env });
  services.push(started);
  return started;
}

async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const status = async (s: ServiceProcess, path: string, init?: Parameters<ServiceProcess['request']>[1]) =>
  (await s.request(path, init)).status;

/**
 * Requests from `connections` concurrent clients, round-robin over `paths`, until `stop()`: the statuses seen, and
 * every 5xx that was not a 503 problem.
 */
function load(s: ServiceProcess, requests: Array<() => Promise<Response>>, connections = 4) {
  let running = true;
  const statuses = new Map<number, number>();
  const bad: string[] = [];
  /** The request id of each 5xx in `bad`, by its index there. */
  const failed = new Map<number, string | null>();
  const clients = Array.from({ length: connections }, async (_, c) => {
    for (let i = c; running; i++) {
      try {
        const res = await requests[i % requests.length]();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const type = res.headers.get('content-type') ?? '';
        if (res.status >= 500 && (res.status !== 503 || !type.startsWith('application/problem+json'))) {
          failed.set(bad.length, res.headers.get('x-request-id'));
          bad.push(`${res.status} ${await res.text()}`);
        } else await res.arrayBuffer();
      } catch (err) {
        bad.push(`request failed: ${String(err)}`);
      }
    }
  });
  return {
    statuses,
    bad,
    async stop() {
      running = false;
      await Promise.all(clients);
      // What the service logged for each 5xx, so that a failure names its cause.
      for (const [i, id] of failed) bad[i] += loggedCause(s, id);
    },
  };
}

/** What the service logged as the cause of a failed request, so that a failure names it. */
function loggedCause(s: ServiceProcess, requestId: string | null): string {
  const line = s.logs.find((l) => l.requestId === requestId && l.err);
  const err = line?.err as { type?: string; code?: string; message?: string } | undefined;
  return err ? ` (logged: ${err.type ?? 'Error'} ${err.code ?? ''} ${err.message ?? ''})` : '';
}

function alive(s: ServiceProcess): Promise<boolean> {
  return Promise.race([s.exited.then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 10))]);
}

async function queueDocuments(s: ServiceProcess, count: number, tag: string): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await s.request('/api/v1/documents', {
      method: 'POST',
      json: { content: prose(`${tag}-${run}-${i}`, 6), async_processing: true },
    });
    expect(res.status).toBe(202);
  }
}

async function openTasks(s: ServiceProcess): Promise<number> {
  let open = 0;
  for (const st of ['pending', 'running']) {
    const res = await s.request(`/api/v1/tasks?status=${st}&limit=1`);
    if (res.status !== 200) return -1;
    open += ((await res.json()) as { total: number }).total;
  }
  return open;
}

describe('Neo4j stopped under load', () => {
  it('answers 503 problems, reports not ready while live, and recovers by itself with the queued work finished', async () => {
    const neo4j = await own('neo4j');
    const s = await service('neo4j', { NEO4J_URI: neo4j.url, SERVICE_TASK_LEASE_MS: '3000', WORKER_THREADS: '2' });
    const seeded = await s.request('/api/v1/documents', { method: 'POST', json: { content: prose(`seed-${run}`, 6) } });
    expect(seeded.status).toBe(201);
    const traffic = load(s, [
      () => s.request('/api/v1/query', { method: 'POST', json: { query: 'What does the seed say?', mode: 'hybrid' } }),
      () => s.request('/api/v1/graph?limit=50'),
      () => s.request('/api/v1/graph/entities?limit=20'),
      () => s.request('/api/v1/documents?limit=20'),
    ]);
    await queueDocuments(s, 6, 'neo4j-queued');
    const t0 = Date.now();
    const phase = (name: string) => process.stdout.write(`neo4j outage: ${name} at ${Date.now() - t0} ms\n`);

    await neo4j.stop();
    phase('stopped');
    await until('a 503 from the graph routes', async () => (await status(s, '/api/v1/graph/stats')) === 503);
    const refused = await s.request('/api/v1/documents?limit=5');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    // Refused by the open circuit, which names the database and says when to come back.
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({
      status: 503,
      type: expect.stringMatching(/\/service-unavailable$/),
      detail: expect.stringMatching(/Neo4j/),
    });
    const timings: number[] = [];
    for (const path of ['/api/v1/documents?limit=5', '/api/v1/graph/stats', '/api/v1/graph/entities?limit=5', '/api/v1/tasks']) {
      for (let i = 0; i < 5; i++) {
        const at = performance.now();
        expect(await status(s, path)).toBe(503);
        timings.push(performance.now() - at);
      }
    }
    timings.sort((a, b) => a - b);
    process.stdout.write(
      `neo4j outage: 503 answered in p50 ${timings[timings.length >> 1].toFixed(1)} ms, max ${timings[timings.length - 1].toFixed(1)} ms (${timings.length} requests)\n`,
    );
    expect(await status(s, '/ready')).toBe(503);
    expect(await status(s, '/live')).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await alive(s)).toBe(true);

    await neo4j.start();
    phase('started');
    await until('ready again', async () => (await status(s, '/ready')) === 200);
    phase('ready');
    await until('the queued documents processed', async () => (await openTasks(s)) === 0);
    phase('queue done');
    await traffic.stop();
    const completed = await s.request('/api/v1/tasks?status=completed&limit=1');
    // The seed document's task and every queued one.
    expect(((await completed.json()) as { total: number }).total).toBe(7);
    expect(await status(s, '/api/v1/graph/stats')).toBe(200);
    expect(traffic.bad).toEqual([]);
    expect(traffic.statuses.get(503)).toBeGreaterThan(0);
    expect(traffic.statuses.get(200)).toBeGreaterThan(0);
    expect(await alive(s)).toBe(true);
    // Runs the outage stopped were undone before they ran again: nothing is left over.
    expect(await reportedOrphans((path) => s.request(path))).toEqual({});
    await neo4j.remove();
  });
});

describe('Redis (the rate-limit store) stopped under load', () => {
  it('answers 503 on limited routes, reports not ready while live, and recovers by itself', async () => {
    const redis = await own('redis');
    const s = await service('redis', { REDIS_URL: redis.url, SERVICE_RATE_LIMIT_QUERY: '100000', SERVICE_RATE_LIMIT_GRAPH: '100000' });
    const traffic = load(s, [
      () => s.request('/api/v1/query', { method: 'POST', json: { query: 'anything at all', mode: 'bypass' } }),
      () => s.request('/api/v1/graph?limit=10'),
    ]);
    await until('traffic', async () => (traffic.statuses.get(200) ?? 0) > 0);
    expect((await s.request('/api/v1/graph?limit=10')).headers.get('x-ratelimit-limit')).toBe('100000');

    await redis.stop();
    await until('a 503 from a limited route', async () => (await status(s, '/api/v1/graph?limit=10')) === 503);
    const refused = await s.request('/api/v1/graph?limit=10');
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ status: 503 });
    expect(await status(s, '/ready')).toBe(503);
    expect(await status(s, '/live')).toBe(200);
    expect(await alive(s)).toBe(true);

    await redis.start();
    await until('ready again', async () => (await status(s, '/ready')) === 200);
    await until('limited routes answer again', async () => (await status(s, '/api/v1/graph?limit=10')) === 200);
    await traffic.stop();
    expect(traffic.bad).toEqual([]);
    expect(traffic.statuses.get(503)).toBeGreaterThan(0);
    expect(await alive(s)).toBe(true);
    await redis.remove();
  });
});

describe('Qdrant (the vector store) stopped under load', () => {
  it('answers 503 on vector routes, reports not ready while live, holds ingestion back and finishes it once Qdrant is back', async () => {
    const qdrant = await own('qdrant');
    const s = await service('qdrant', {
      QDRANT_URL: qdrant.url,
      SERVICE_TASK_LEASE_MS: '3000',
      WORKER_THREADS: '2',
      SERVICE_TASK_OUTAGE_BACKOFF_MS: '250',
    });
    const seeded = await s.request('/api/v1/documents', { method: 'POST', json: { content: prose(`qseed-${run}`, 6) } });
    expect(seeded.status).toBe(201);
    const traffic = load(s, [
      () => s.request('/api/v1/query', { method: 'POST', json: { query: 'What does the seed say?', mode: 'naive' } }),
      () => s.request('/api/v1/documents?limit=20'),
    ]);
    await queueDocuments(s, 6, 'qdrant-queued');

    await qdrant.stop();
    await until('a 503 from a vector query', async () => {
      const res = await s.request('/api/v1/query', { method: 'POST', json: { query: 'What does the seed say?', mode: 'naive' } });
      return res.status === 503;
    });
    expect(await status(s, '/ready')).toBe(503);
    expect(await status(s, '/live')).toBe(200);
    expect(await status(s, '/api/v1/documents?limit=5')).toBe(200);
    // Documents that arrive during the outage wait in the queue: their runs meet the outage and are put back.
    await queueDocuments(s, 3, 'qdrant-during');
    await until('a run put back after meeting the outage', async () => {
      const res = await s.request('/api/v1/tasks?status=pending&limit=100');
      const ids = ((await res.json()) as { tasks: Array<{ id: string }> }).tasks.map((t) => t.id);
      for (const id of ids) {
        const task = (await (await s.request(`/api/v1/tasks/${id}`)).json()) as { attempts: number; error: string | null };
        if (task.attempts > 0) return /Qdrant/.test(task.error ?? '');
      }
      return false;
    });
    const waiting = (await (await s.request('/api/v1/documents?limit=100')).json()) as { documents: Array<{ status: string }> };
    expect(waiting.documents.filter((d) => d.status === 'failed')).toEqual([]);
    expect(await alive(s)).toBe(true);

    await qdrant.start();
    await until('ready again', async () => (await status(s, '/ready')) === 200);
    await until('the queued documents processed', async () => (await openTasks(s)) === 0);
    await traffic.stop();
    const res = await s.request('/api/v1/query', { method: 'POST', json: { query: 'What does the seed say?', mode: 'naive' } });
    expect(res.status).toBe(200);
    // Nothing failed: every run that met the outage went back to the queue and completed once Qdrant was back.
    expect(((await (await s.request('/api/v1/tasks?status=failed&limit=1')).json()) as { total: number }).total).toBe(0);
    const completed = ((await (await s.request('/api/v1/tasks?status=completed&limit=1')).json()) as { total: number }).total;
    // The seed document's task and every queued one.
    expect(completed).toBe(10);
    const docs = (await (await s.request('/api/v1/documents?limit=100')).json()) as { documents: Array<{ status: string }> };
    expect(docs.documents.map((d) => d.status)).toEqual(Array(10).fill('completed'));
    expect(traffic.bad).toEqual([]);
    expect(traffic.statuses.get(503)).toBeGreaterThan(0);
    expect(await alive(s)).toBe(true);
    expect(await reportedOrphans((path) => s.request(path))).toEqual({});
    await qdrant.remove();
  });

  it('fails a document with a reason naming Qdrant once it stays away through the configured retries', async () => {
    const qdrant = await own('qdrant');
    const s = await service('qdrant-gone', {
      QDRANT_URL: qdrant.url,
      SERVICE_TASK_OUTAGE_RETRIES: '2',
      SERVICE_TASK_OUTAGE_BACKOFF_MS: '100',
    });
    await qdrant.stop();
    const res = await s.request('/api/v1/documents', {
      method: 'POST',
      json: { content: prose(`qgone-${run}`, 4), async_processing: true },
    });
    expect(res.status).toBe(202);
    const { id, task_id } = (await res.json()) as { id: string; task_id: string };
    await until(
      'the task failed',
      async () => ((await (await s.request(`/api/v1/tasks/${task_id}`)).json()) as { status: string }).status === 'failed',
    );
    const task = (await (await s.request(`/api/v1/tasks/${task_id}`)).json()) as { attempts: number; error: string };
    expect(task.attempts).toBe(3);
    expect(task.error).toMatch(/stayed unreachable through 2 retries: .*Qdrant/);
    const doc = (await (await s.request(`/api/v1/documents/${id}`)).json()) as { status: string; error: string };
    expect(doc).toMatchObject({ status: 'failed', error: task.error });
    // With Qdrant back, a restart takes out whatever of the failed document the outage kept its undo from removing.
    await qdrant.start();
    await s.kill('SIGTERM');
    const restarted = await startService(`outage-qdrant-gone-b-${run}`, s.workspace, { QDRANT_URL: qdrant.url });
    services.push(restarted);
    // The recovery runs once the new instance listens.
    await until('no orphans', async () => Object.keys(await reportedOrphans((path) => restarted.request(path))).length === 0);
    expect(await (await restarted.request(`/api/v1/documents/${id}`)).json()).toMatchObject({ status: 'failed' });
    await qdrant.remove();
  });
});
