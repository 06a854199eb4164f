import { json, prose } from '../fixtures/documents';
import { integrityProblems, openTestDriver, SOUND, storedTasks } from '../fixtures/graph-integrity';
import { reportedOrphans, verifyWorkspace } from '../fixtures/service-integrity';
import { type ServiceProcess, startService, taskEvents } from '../fixtures/service-process';
import { waitFor } from '../helpers/wait';

/**
 * The real service on Neo4j is killed (SIGKILL) in the middle of a queue of slow documents and a new instance,
 * under another instance id, is started on the same database: it takes the dead instance's tasks over once
 * their leases end. Every document ends completed, none is processed twice, and nothing is left without its
 * document.
 */
jest.setTimeout(120_000);

const DOCUMENTS = 20;
const run = Date.now().toString(36);
let workspace = '';
const env = {
  SERVICE_MOCK_LATENCY_MS: '100',
  SERVICE_TASK_LEASE_MS: '2000',
  SERVICE_CHUNK_TOKENS: '64',
  SERVICE_CHUNK_OVERLAP_TOKENS: '8',
  WORKER_THREADS: '4',
};

const driver = openTestDriver();
const services: ServiceProcess[] = [];

afterAll(async () => {
  for (const service of services) await service.kill('SIGKILL');
});

async function taskCounts(service: ServiceProcess): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const status of ['pending', 'running', 'completed', 'failed', 'cancelled']) {
    counts[status] = (await json(await service.request(`/api/v1/tasks?status=${status}&limit=1`))).total;
  }
  return counts;
}

/** The stored documents and tasks of the workspace, straight from Neo4j. */
async function stored() {
  const query =
    'MATCH (d:Document {workspace_id: $w}) RETURN d.id AS id, d.status AS status, d.processed_at AS processed_at, d.task_id AS task_id';
  const { records } = await driver.executeQuery(query, { w: workspace });
  return { documents: records.map((r) => r.toObject()), tasks: await storedTasks(driver, workspace) };
}

describe('persistent mode: SIGKILL mid-queue and restart under a new instance id', () => {
  it('completes every document exactly once and leaves no data without its document', async () => {
    const first = await startService(`kill-a-${run}`, null, env);
    workspace = first.workspace;
    services.push(first);
    for (let i = 0; i < DOCUMENTS; i++) {
      const res = await first.request('/api/v1/documents', {
        method: 'POST',
        json: { content: prose(`kill-${run}-${i}`, 8), async_processing: true },
      });
      expect(res.status).toBe(202);
    }
    // Kill while some documents are done and others are half-way (their chunks and graph data partly written).
    const atKill = await waitFor(
      'some tasks completed and some running',
      () => taskCounts(first),
      (c) => c.completed >= 3 && c.running >= 2,
    );
    await first.kill('SIGKILL');
    const before = await stored();
    const completedBefore = new Map(before.documents.filter((d) => d.status === 'completed').map((d) => [d.id, d.processed_at]));
    const runningAtKill = before.tasks.filter((t) => t.status === 'running').map((t) => t.id);
    expect(completedBefore.size).toBeGreaterThanOrEqual(3);
    expect(runningAtKill.length).toBeGreaterThanOrEqual(2);

    const second = await startService(`kill-b-${run}`, workspace, env);
    services.push(second);
    const settled = await waitFor(
      'every task finished',
      () => taskCounts(second),
      (c) => c.pending + c.running === 0,
    );
    expect(settled).toMatchObject({ completed: DOCUMENTS, failed: 0, cancelled: 0 });

    const after = await stored();
    expect(after.documents).toHaveLength(DOCUMENTS);
    expect(after.documents.filter((d) => d.status !== 'completed')).toEqual([]);
    // One task per document, the one the document names: a takeover reruns the same task, no duplicate is queued.
    expect(after.tasks).toHaveLength(DOCUMENTS);
    expect(new Set(after.tasks.map((t) => t.document_id)).size).toBe(DOCUMENTS);
    for (const doc of after.documents) expect(after.tasks.find((t) => t.id === doc.task_id)?.document_id).toBe(doc.id);
    // Documents finished before the kill are not processed again.
    for (const [id, processedAt] of completedBefore) expect(after.documents.find((d) => d.id === id)?.processed_at).toBe(processedAt);
    const claimedBySecond = taskEvents([second], 'task claimed');
    const finishedFirst = taskEvents([first], 'task run ended', (l) => l.status === 'completed');
    expect(claimedBySecond.filter((id) => finishedFirst.includes(id))).toEqual([]);
    expect(new Set(claimedBySecond).size).toBe(claimedBySecond.length);
    expect(claimedBySecond).toEqual(expect.arrayContaining(runningAtKill));
    // No task completed twice across both lives of the service.
    const completions = taskEvents([first, second], 'task run ended', (l) => l.status === 'completed');
    expect(new Set(completions).size).toBe(completions.length);

    expect(await integrityProblems(driver, workspace)).toEqual(SOUND);
    expect(await reportedOrphans((path) => second.request(path))).toEqual({});
    const verified = await verifyWorkspace(workspace);
    expect(verified).toEqual({ code: 0, output: expect.stringMatching(new RegExp(`^${workspace}: 0 orphans \\(${DOCUMENTS} completed`)) });
    process.stdout.write(
      `kill-and-restart: at the kill ${JSON.stringify(atKill)}; ${completedBefore.size} documents completed before it, ` +
        `${runningAtKill.length} runs interrupted and taken over by the new instance, ${claimedBySecond.length} tasks claimed after the restart\n`,
    );
    await second.kill('SIGTERM');
  });
});
