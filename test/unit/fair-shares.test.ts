import { type Admitted, Shares } from '../../src/domain/shares';
import { UnavailableError } from '../../src/domain/errors';
import { inBackground } from '../../src/domain/turns';
import { onBehalfOf } from '../../src/domain/work-owner';
import { SessionBudget, defaultBudget } from '../../src/store/neo4j/session-budget';

function released(admitted: Admitted): () => void {
  if (!('release' in admitted)) throw new Error(`refused: ${admitted.refused}`);
  return admitted.release;
}

describe('Shares', () => {
  it('refuses at once past a tenant, workspace or instance share when it may not wait, naming the full share', async () => {
    const shares = new Shares({ total: 4, perTenant: 2, perWorkspace: 1 }, 0);
    const a = released(await shares.take('t1', 'w1'));
    expect(await shares.take('t1', 'w1')).toEqual({ refused: 'workspace' });
    released(await shares.take('t1', 'w2'));
    expect(await shares.take('t1', 'w3')).toEqual({ refused: 'tenant' });
    released(await shares.take('t2', 'w1'));
    released(await shares.take('t3', 'w1'));
    expect(await shares.take('t4', 'w1')).toEqual({ refused: 'total' });
    a();
    a(); // releasing twice frees one slot only
    expect(shares.running()).toBe(3);
    released(await shares.take('t1', 'w1'));
  });

  it('hands a freed slot to the first waiter whose share has room: a tenant over its share holds no one else up', async () => {
    const shares = new Shares({ total: 3, perTenant: 2, perWorkspace: 0 }, 10_000);
    const busy = [released(await shares.take('greedy', 'w')), released(await shares.take('greedy', 'w'))];
    const order: string[] = [];
    const greedy = shares.take('greedy', 'w').then((x) => (order.push('greedy'), x));
    const other = shares.take('other', 'w').then((x) => (order.push('other'), x));
    // The other tenant is served at once although the greedy tenant's request came first.
    released(await other);
    expect(order).toEqual(['other']);
    busy[0]();
    released(await greedy);
    expect(order).toEqual(['other', 'greedy']);
    expect(shares.running('greedy')).toBe(2);
  });

  it('waits at most the bounded wait, then refuses with the share that was full; an aborted wait gives its place up', async () => {
    const shares = new Shares({ total: 1, perTenant: 0, perWorkspace: 0 }, 50);
    const hold = released(await shares.take('t', 'w'));
    expect(await shares.take('t', 'w')).toEqual({ refused: 'total' });
    const gone = new AbortController();
    const waiting = shares.take('u', 'w', gone.signal);
    gone.abort();
    expect(await waiting).toEqual({ refused: 'total' });
    hold();
    expect(shares.running()).toBe(0);
    released(await shares.take('u', 'w'));
  });
});

describe('SessionBudget', () => {
  const blocker = () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    return { gate, open };
  };

  it('splits the pool: three fifths for requests, half of those per tenant, the rest for background work', () => {
    expect(defaultBudget(50, 5_000)).toEqual({ requests: 30, requestsPerTenant: 15, background: 20, waitMs: 5_000 });
    expect(defaultBudget(10, 100, { requests: 4, requestsPerTenant: 1 })).toEqual({
      requests: 4,
      requestsPerTenant: 1,
      background: 6,
      waitMs: 100,
    });
  });

  it("keeps one tenant's requests to its share and background work to its own, refusing past them with a 503 error", async () => {
    const budget = new SessionBudget({ requests: 3, requestsPerTenant: 2, background: 1, waitMs: 50 });
    const { gate, open } = blocker();
    const held = [1, 2].map(() => onBehalfOf('greedy', () => budget.run(() => gate)));
    const over = onBehalfOf('greedy', () => budget.run(async () => 'ran'));
    await expect(over).rejects.toThrow(UnavailableError);
    await expect(over).rejects.toThrow(/this tenant's share/);
    expect(budget.inUse('greedy').requests).toBe(2);
    // Another tenant and the background still get sessions.
    await expect(onBehalfOf('other', () => budget.run(async () => 'ran'))).resolves.toBe('ran');
    const ingest = inBackground(() => budget.run(() => gate));
    expect(budget.inUse().background).toBe(1);
    await expect(inBackground(() => budget.run(async () => 'ran'))).rejects.toThrow(/background share/);
    open();
    await Promise.all([...held, ingest]);
    expect(budget.inUse()).toEqual({ requests: 0, background: 0 });
  });
});
