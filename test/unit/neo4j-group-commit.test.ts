import type { Neo4jClient, Row } from '../../src/store/neo4j/client';
import { GroupCommit } from '../../src/store/neo4j/group-commit';
import { Neo4jKeyValueStore } from '../../src/store/neo4j/kv';

/** A statement runner whose statements end only when the test says so. */
function gatedRunner() {
  const batches: number[][] = [];
  const gates: Array<() => void> = [];
  let fail: Error | null = null;
  const run = async (items: number[]) => {
    batches.push(items);
    await new Promise<void>((resolve) => gates.push(resolve));
    if (fail) throw fail;
    return items.map((n) => n * 10);
  };
  const open = () => gates.splice(0).forEach((g) => g());
  return { batches, run, open, failNext: (e: Error) => (fail = e), recover: () => (fail = null) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommit', () => {
  it('runs a lone call at once, and the calls that arrive while it runs as one statement after it', async () => {
    const r = gatedRunner();
    const group = new GroupCommit(r.run);
    const first = group.submit('a', 1);
    await settle();
    expect(r.batches).toEqual([[1]]);
    const later = [2, 3, 4].map((n) => group.submit('a', n));
    await settle();
    expect(r.batches).toHaveLength(1);
    r.open();
    expect(await first).toBe(10);
    await settle();
    expect(r.batches[1]).toEqual([2, 3, 4]);
    r.open();
    expect(await Promise.all(later)).toEqual([20, 30, 40]);
  });

  it('sends calls made in the same turn together, keeps lanes apart and caps a statement at maxItems calls', async () => {
    const r = gatedRunner();
    const group = new GroupCommit(r.run, 3);
    const calls = [1, 2, 3, 4, 5].map((n) => group.submit('a', n));
    const other = group.submit('b', 9);
    await settle();
    expect(r.batches).toEqual([[1, 2, 3], [9]]);
    r.open();
    await settle();
    expect(r.batches[2]).toEqual([4, 5]);
    r.open();
    expect(await Promise.all(calls)).toEqual([10, 20, 30, 40, 50]);
    expect(await other).toBe(90);
  });

  it('fails only the calls of the statement that failed, and the lane goes on with the next ones', async () => {
    const r = gatedRunner();
    const group = new GroupCommit(r.run);
    const failed = [1, 2].map((n) => group.submit('a', n));
    await settle();
    const next = group.submit('a', 3);
    r.failNext(new Error('deadlock'));
    r.open();
    await expect(Promise.all(failed)).rejects.toThrow('deadlock');
    r.recover();
    await settle();
    r.open();
    expect(await next).toBe(30);
  });
  it('answers the calls of a write-only group once their one statement ended', async () => {
    const written: number[][] = [];
    const group = GroupCommit.ofWrites<number>(async (items) => {
      await settle();
      written.push(items);
    });
    const calls = [1, 2, 3].map((n) => group.submit('a', n));
    expect(written).toEqual([]);
    expect(await Promise.all(calls)).toEqual([undefined, undefined, undefined]);
    expect(written).toEqual([[1, 2, 3]]);
  });
});

describe('Neo4jKeyValueStore group commit', () => {
  function fakeClient() {
    const statements: Array<{ name: string; params: Record<string, unknown> }> = [];
    const stored = new Map<string, string>();
    const client = {
      writeRows: async (name: string, params: Record<string, unknown>): Promise<Row[]> => {
        statements.push({ name, params });
        await settle();
        for (const row of params.rows as Array<{ key: string; value: string }>) stored.set(row.key, row.value);
        return [];
      },
      readRows: async (name: string, params: Record<string, unknown>): Promise<Row[]> => {
        statements.push({ name, params });
        await settle();
        return (params.keys as string[]).filter((k) => stored.has(k)).map((key) => ({ key, value: stored.get(key) }));
      },
    };
    return { statements, kv: new Neo4jKeyValueStore(client as unknown as Neo4jClient) };
  }
  const scope = { workspaceId: 'w' };

  it('writes 50 keys set at once in one statement and reads them back at once in one more', async () => {
    const { statements, kv } = fakeClient();
    await Promise.all(Array.from({ length: 50 }, (_, i) => kv.set(scope, 'llm_response', `k${i}`, { i })));
    expect(statements.map((s) => s.name)).toEqual(['kv/set-many']);
    expect(statements[0].params.rows).toHaveLength(50);
    const values = await Promise.all(Array.from({ length: 50 }, (_, i) => kv.get<{ i: number }>(scope, 'llm_response', `k${i}`)));
    expect(values.map((v) => v?.i)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(statements.map((s) => s.name)).toEqual(['kv/set-many', 'kv/get-many']);
  });

  it('gives each reader its own copy of a value read once for several of them', async () => {
    const { kv } = fakeClient();
    await kv.set(scope, 'ns', 'k', { list: [1] });
    const [x, y] = await Promise.all([kv.get<{ list: number[] }>(scope, 'ns', 'k'), kv.get<{ list: number[] }>(scope, 'ns', 'k')]);
    x!.list.push(2);
    expect(y).toEqual({ list: [1] });
  });
});
