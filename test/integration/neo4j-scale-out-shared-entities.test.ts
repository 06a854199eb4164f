import { prose } from '../fixtures/documents';
import { integrityProblems, openTestDriver, SOUND, storedTasks } from '../fixtures/graph-integrity';
import { queueAndDrain, type ServiceProcess, startService, taskEvents } from '../fixtures/service-process';

/**
 * Two service instances on one Neo4j ingesting documents that all name the same people, organisations and
 * places: their merges into the same entity records must not lose each other's sources (the entity lock
 * holds across processes). Every chunk's entities list the chunk, and nothing is written twice.
 */
jest.setTimeout(120_000);

const DOCUMENTS = 12;
const run = Date.now().toString(36);
let workspace = '';
const env = {
  SERVICE_MOCK_LATENCY_MS: '50',
  SERVICE_CHUNK_TOKENS: '64',
  SERVICE_CHUNK_OVERLAP_TOKENS: '8',
  WORKER_THREADS: '2',
};

const driver = openTestDriver();
const services: ServiceProcess[] = [];

afterAll(async () => {
  for (const service of services) await service.kill('SIGKILL');
});

describe('persistent mode: two instances merging into the same entities', () => {
  it('keeps every source of the shared entities and writes nothing twice', async () => {
    for (const id of [`shared-1-${run}`, `shared-2-${run}`]) {
      services.push(await startService(id, workspace || null, env));
      workspace = services[0].workspace;
    }
    const contents = Array.from({ length: DOCUMENTS }, (_, i) => prose(`shared-${run}-${i}`, 10));
    const { taskIds } = await queueAndDrain(services, workspace, contents);

    expect((await storedTasks(driver, workspace)).filter((t) => t.status !== 'completed')).toEqual([]);
    for (const service of services)
      expect(taskEvents([service], 'task run ended', (l) => l.workspace_id === workspace).length).toBeGreaterThan(0);
    expect(taskEvents(services, 'task claimed', (l) => l.workspace_id === workspace).sort()).toEqual([...taskIds].sort());
    const { records } = await driver.executeQuery(
      'MATCH (e:Entity {workspace_id: $w}) WHERE size(e.document_ids) = $n RETURN count(e) AS n',
      {
        w: workspace,
        n: DOCUMENTS,
      },
    );
    // The shared names really are shared: some entities draw on every document.
    expect(records[0].get('n')).toBeGreaterThan(0);
    expect(await integrityProblems(driver, workspace)).toEqual(SOUND);
  });
});
