import type { Driver, Session, Transaction } from 'neo4j-driver';
import { TaskQueue } from '../../src/services/tasks/queue';
import { json, prose } from '../fixtures/documents';
import { reportedOrphans } from '../fixtures/service-integrity';
import { startTestApp, type TestApp } from '../helpers/app';
import { waitFor } from '../helpers/wait';

/**
 * Persistent mode: while documents run, every connection of the service's Neo4j pool is taken (as by a burst of
 * load), so its store calls wait out the driver's acquisition time-out. The runs that meet it go back to the queue
 * with backoff, as after an outage, instead of failing for good; once the pool frees they complete, and the
 * integrity check finds nothing left over.
 */
jest.setTimeout(180_000);

const DOCUMENTS = 3;
/** The pool size of the Neo4j client (src/store/neo4j/client.ts). */
const POOL_SIZE = 50;

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ WORKER_THREADS: '2', SERVICE_MOCK_LATENCY_MS: '300', SERVICE_TASK_OUTAGE_BACKOFF_MS: '200' });
});

afterAll(async () => {
  await app?.close();
});

/** The private step of a run that writes its outcome. */
type SettleHook = { settle: (...args: unknown[]) => Promise<unknown> };

/** The driver whose pool the app's stores draw their connections from. */
const appDriver = () => (app.rt.stores.chunks as unknown as { db: { driver: Driver } }).db.driver;

test('runs that meet an exhausted connection pool go back to the queue and complete once it frees', async () => {
  // The cue to free the pool: a run that met the time-out ending as "unavailable". Outages met elsewhere (the
  // workers' polling for tasks, a lease renewal) may come first, while every run still waits on the model, so
  // they are not the cue. The run settles (reads and writes its task) once the pool is free again.
  let runMet!: () => void;
  const runUnavailable = new Promise<void>((resolve) => (runMet = resolve));
  let poolFreed!: () => void;
  const freed = new Promise<void>((resolve) => (poolFreed = resolve));
  const queue = TaskQueue.prototype as unknown as SettleHook;
  const original = queue.settle;
  jest.spyOn(queue, 'settle').mockImplementation(async function (this: unknown, ...args: unknown[]) {
    if ((args[3] as { kind: string }).kind === 'unavailable') {
      runMet();
      await freed;
    }
    return original.apply(this, args);
  });

  const tasks: string[] = [];
  for (let i = 0; i < DOCUMENTS; i++) {
    const res = await app.request('/api/v1/documents', {
      method: 'POST',
      json: { content: prose(`pool-${i}`, 12), async_processing: true },
    });
    expect(res.status).toBe(202);
    tasks.push((await json(res)).task_id);
  }
  await waitFor(
    'a task running',
    async () => (await json(await app.request('/api/v1/tasks?status=running&limit=1'))).total,
    (running) => running > 0,
    120_000,
  );

  const held: Array<{ session: Session; tx: Transaction }> = [];
  const take = async () => {
    const session = appDriver().session();
    const tx = session.beginTransaction();
    await tx.run('RETURN 1');
    held.push({ session, tx });
  };
  await Promise.allSettled(Array.from({ length: POOL_SIZE }, take));
  expect(held.length).toBeGreaterThan(POOL_SIZE / 2);
  await runUnavailable;
  for (const { session, tx } of held) {
    await tx.rollback().catch(() => undefined);
    await session.close();
  }
  poolFreed();

  const finished = await waitFor(
    'every task finished',
    () => Promise.all(tasks.map(async (id) => json(await app.request(`/api/v1/tasks/${id}`)))),
    (list) => list.every((t) => t.status !== 'pending' && t.status !== 'running'),
    120_000,
  );
  expect(finished.map((t) => t.status)).toEqual(tasks.map(() => 'completed'));
  // At least one run met the time-out and was put back, not failed.
  expect(Math.max(...finished.map((t) => t.attempts as number))).toBeGreaterThan(0);
  const documents = (await json(await app.request('/api/v1/documents?limit=10'))).documents as Array<{ status: string }>;
  expect(documents.map((d) => d.status)).toEqual(tasks.map(() => 'completed'));
  expect(await reportedOrphans((path) => app.request(path))).toEqual({});
});
