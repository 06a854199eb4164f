import { json, prose } from '../fixtures/documents';
import { integrityProblems, openTestDriver, SOUND, storedTasks } from '../fixtures/graph-integrity';
import { reportedOrphans } from '../fixtures/service-integrity';
import { type ServiceProcess, startService, taskEvents } from '../fixtures/service-process';
import { waitFor } from '../helpers/wait';

/**
 * Persistent mode: the real service is stopped with SIGTERM (once: a graceful stop; twice: at once) in the middle
 * of a queue of slow documents, and started again on the same Neo4j. Every accepted document ends `completed`
 * or `failed`, and the graph holds nothing without its document.
 */
jest.setTimeout(180_000);

const DOCUMENTS = 12;
const run = Date.now().toString(36);
const env = {
  SERVICE_MOCK_LATENCY_MS: '100',
  SERVICE_TASK_LEASE_MS: '2000',
  SERVICE_CHUNK_TOKENS: '64',
  SERVICE_CHUNK_OVERLAP_TOKENS: '8',
  WORKER_THREADS: '3',
};

const driver = openTestDriver();
const services: ServiceProcess[] = [];

afterAll(async () => {
  for (const service of services) await service.kill('SIGKILL');
  await driver.close();
});

async function taskCounts(service: ServiceProcess): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const status of ['pending', 'running', 'completed', 'failed', 'cancelled']) {
    counts[status] = (await json(await service.request(`/api/v1/tasks?status=${status}&limit=1`))).total;
  }
  return counts;
}

async function documentStatuses(workspace: string): Promise<string[]> {
  const { records } = await driver.executeQuery('MATCH (d:Document {workspace_id: $w}) RETURN d.status AS status', { w: workspace });
  return records.map((r) => r.get('status') as string);
}

describe.each([
  ['once', 1, 0],
  ['twice', 2, 1],
])('persistent mode: SIGTERM %s mid-queue, then a restart', (name, signals, exitCode) => {
  it(`exits ${exitCode}, and every accepted document reaches completed or failed after the restart`, async () => {
    const first = await startService(`sigterm-${name}-a-${run}`, null, env);
    services.push(first);
    const { workspace } = first;
    for (let i = 0; i < DOCUMENTS; i++) {
      const res = await first.request('/api/v1/documents', {
        method: 'POST',
        json: { content: prose(`sigterm-${name}-${run}-${i}`, 8), async_processing: true },
      });
      expect(res.status).toBe(202);
    }
    await waitFor(
      'some tasks completed and some running',
      () => taskCounts(first),
      (c) => c.completed >= 2 && c.running >= 1,
      90_000,
    );
    first.signal('SIGTERM');
    if (signals === 2) {
      while (!first.logs.some((l) => l.msg === 'shutting down')) await new Promise((resolve) => setTimeout(resolve, 20));
      first.signal('SIGTERM');
    }
    expect((await first.exited).code).toBe(exitCode);
    if (signals === 1) {
      // A graceful stop hands every interrupted run back to the queue: nothing is left running under its lease.
      // (A run that lost its lease earlier, on a host too busy to renew it in time, ended too, as interrupted
      // with 'lease lost'; the run that took its task over settled it.)
      const tasks = await storedTasks(driver, workspace);
      expect(tasks).toHaveLength(DOCUMENTS);
      expect(tasks.filter((t) => t.status === 'running')).toEqual([]);
      const interrupted = taskEvents([first], 'task run ended', (l) => l.status === 'interrupted' && l.error === 'instance shutting down');
      for (const id of interrupted) expect(tasks.find((t) => t.id === id)?.status).toBe('pending');
    }

    const second = await startService(`sigterm-${name}-b-${run}`, workspace, env);
    services.push(second);
    const settled = await waitFor(
      'every task finished',
      () => taskCounts(second),
      (c) => c.pending + c.running === 0,
      90_000,
    );
    expect(settled.completed + settled.failed).toBe(DOCUMENTS);
    const statuses = await documentStatuses(workspace);
    expect(statuses).toHaveLength(DOCUMENTS);
    expect(statuses.filter((s) => s !== 'completed' && s !== 'failed')).toEqual([]);
    expect(await integrityProblems(driver, workspace)).toEqual(SOUND);
    expect(await reportedOrphans((path) => second.request(path))).toEqual({});
    await second.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  });
});
