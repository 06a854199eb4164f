import type { CypherTransaction, Neo4jClient, Row } from '../../src/store/neo4j/client';
import { TASK_FIELDS, encode } from '../../src/store/neo4j/codecs';
import { Neo4jTaskStore } from '../../src/store/neo4j/tasks';
import { at, makeTask } from '../contract/fixtures';

const settle = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A client over pending tasks of one workspace, with Neo4j's row lock: a transaction that runs `tasks/lock` on a
 * task holds it until the transaction ends, and other transactions locking that task wait for it.
 */
function fakeClient(ids: string[]) {
  const status = new Map(ids.map((id) => [id, 'pending']));
  const locks = new Map<string, Promise<void>>();
  const locked: string[] = [];
  const client = {
    readRows: async (name: string): Promise<Row[]> => {
      expect(name).toBe('tasks/claim-candidates');
      await settle();
      return ids.filter((id) => status.get(id) === 'pending').map((id) => ({ tenant_id: '', workspace_id: 'w', id }));
    },
    write: async <T>(work: (tx: CypherTransaction) => Promise<T>): Promise<T> => {
      const held: Array<() => void> = [];
      const tx = {
        run: async (name: string, params: Record<string, unknown>): Promise<Row[]> => {
          const id = String(params.id);
          if (name === 'tasks/lock') {
            locked.push(id);
            const before = locks.get(id) ?? Promise.resolve();
            let release!: () => void;
            locks.set(
              id,
              before.then(() => new Promise<void>((resolve) => (release = resolve))),
            );
            await before;
            held.push(() => release());
            return [{ id }];
          }
          await settle();
          if (status.get(id) !== 'pending') return [];
          status.set(id, 'running');
          return [{ task: encode(TASK_FIELDS, makeTask({ id, status: 'running', lease_owner: String(params.owner) })) }];
        },
      };
      try {
        return await work(tx as unknown as CypherTransaction);
      } finally {
        for (const release of held) release();
      }
    },
  };
  return { locked, tasks: new Neo4jTaskStore(client as unknown as Neo4jClient) };
}

describe('Neo4jTaskStore claims', () => {
  it('sends concurrent claimers of one instance to different tasks instead of all to the first', async () => {
    const ids = ['t1', 't2', 't3', 't4'];
    const { locked, tasks } = fakeClient(ids);
    const claims = await Promise.all(ids.map((_, i) => tasks.claimNext(`worker-${i}`, at(1), at(5))));
    expect(claims.map((c) => c?.task.id).sort()).toEqual(ids);
    expect(claims.map((c) => c?.task.lease_owner)).toEqual(['worker-0', 'worker-1', 'worker-2', 'worker-3']);
    // One lock per task: no claimer waited on a task another one was taking.
    expect(locked.sort()).toEqual(ids);
  });

  it('still tries a task another claimer is after once the free ones are gone', async () => {
    const { tasks } = fakeClient(['only']);
    const [a, b] = await Promise.all([tasks.claimNext('worker-a', at(1), at(5)), tasks.claimNext('worker-b', at(1), at(5))]);
    expect([a?.task.id, b?.task.id].sort()).toEqual(['only', undefined]);
  });
});
