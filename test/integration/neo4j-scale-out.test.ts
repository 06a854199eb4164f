import { isolatedProse } from '../fixtures/corpus';
import { integrityProblems, openTestDriver, SOUND, storedTasks } from '../fixtures/graph-integrity';
import { createWorkspace, type LogLine, queueAndDrain, type ServiceProcess, startService, taskEvents } from '../fixtures/service-process';

/**
 * Scale-out on one Neo4j: the same queue of slow documents is drained by one service instance, then by two
 * (separate processes, different instance ids). With two, every task is claimed and completed exactly once,
 * both instances take part, and the graph is as sound as with one. Throughput is printed, never asserted.
 * The documents share no entity (isolatedProse): this is about the queue; neo4j-scale-out-shared-entities
 * covers concurrent merges into the same records.
 */
jest.setTimeout(150_000);

const DOCUMENTS = 24;
const run = Date.now().toString(36);
const env = {
  SERVICE_MOCK_LATENCY_MS: '100',
  SERVICE_CHUNK_TOKENS: '64',
  SERVICE_CHUNK_OVERLAP_TOKENS: '8',
  WORKER_THREADS: '2',
  // The documents stay apart only if resolution does not merge their look-alike names; the queue is what is tested.
  SERVICE_ENTITY_RESOLUTION: 'false',
};

const driver = openTestDriver();
const services: ServiceProcess[] = [];

afterAll(async () => {
  for (const service of services) await service.kill('SIGKILL');
});

async function start(instanceId: string): Promise<ServiceProcess> {
  const service = await startService(instanceId, null, env);
  services.push(service);
  return service;
}

const documents = (first: number) => Array.from({ length: DOCUMENTS }, (_, i) => isolatedProse(first + i));
const perMinute = (ms: number) => ((DOCUMENTS * 60_000) / ms).toFixed(1);

describe('persistent mode: two instances share one task queue', () => {
  it('processes every document exactly once with two instances, both taking part', async () => {
    const one = await start(`scale-1-${run}`);
    const alone = await createWorkspace(one.url);
    const single = await queueAndDrain([one], alone, documents(0));
    expect((await storedTasks(driver, alone)).filter((t) => t.status !== 'completed')).toEqual([]);
    expect(await integrityProblems(driver, alone)).toEqual(SOUND);

    const two = await start(`scale-2-${run}`);
    const together = await createWorkspace(one.url);
    const pair = await queueAndDrain([one, two], together, documents(DOCUMENTS));

    const tasks = await storedTasks(driver, together);
    expect(tasks).toHaveLength(DOCUMENTS);
    expect(tasks.filter((t) => t.status !== 'completed')).toEqual([]);
    expect(new Set(tasks.map((t) => t.document_id)).size).toBe(DOCUMENTS);
    // Every task claimed once and completed once, over both instances' logs.
    const inWorkspace = (line: LogLine) => line.workspace_id === together;
    expect(taskEvents([one, two], 'task claimed', inWorkspace).sort()).toEqual([...pair.taskIds].sort());
    const completions = taskEvents([one, two], 'task run ended', (l) => inWorkspace(l) && l.status === 'completed');
    expect(completions.sort()).toEqual([...pair.taskIds].sort());
    const byFirst = taskEvents([one], 'task run ended', inWorkspace).length;
    const bySecond = taskEvents([two], 'task run ended', inWorkspace).length;
    expect(byFirst).toBeGreaterThan(0);
    expect(bySecond).toBeGreaterThan(0);
    expect(await integrityProblems(driver, together)).toEqual(SOUND);
    const shared = 'MATCH (e:Entity {workspace_id: $w}) WHERE size(e.document_ids) > 1 RETURN count(e) AS n';
    const { records } = await driver.executeQuery(shared, { w: together });
    expect(records[0].get('n')).toBe(0);

    process.stdout.write(
      `scale-out (${DOCUMENTS} documents, ${env.WORKER_THREADS} workers per instance, ${env.SERVICE_MOCK_LATENCY_MS} ms per provider call): ` +
        `one instance ${single.ms} ms (${perMinute(single.ms)} documents/min); ` +
        `two instances ${pair.ms} ms (${perMinute(pair.ms)} documents/min; ${byFirst} + ${bySecond} tasks); ` +
        `speed-up ${(single.ms / pair.ms).toFixed(2)}x\n`,
    );
  });
});
