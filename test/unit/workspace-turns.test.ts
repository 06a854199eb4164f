import { WorkspaceTurns } from '../../src/http/middleware/turns';

const never = new AbortController().signal;

describe('WorkspaceTurns', () => {
  it('gives turns up to the cap, then in arrival order as turns end', async () => {
    const turns = new WorkspaceTurns(2, 10_000);
    const a = await turns.take('w', never);
    const b = await turns.take('w', never);
    const order: string[] = [];
    const c = turns.take('w', never).then((end) => (order.push('c'), end));
    const d = turns.take('w', never).then((end) => (order.push('d'), end));
    expect(turns.size('w')).toEqual({ running: 2, waiting: 2 });
    expect(await turns.take('other', never)).not.toBeNull();
    b?.();
    const endC = await c;
    expect(order).toEqual(['c']);
    a?.();
    a?.(); // ending a turn twice frees one slot only
    const endD = await d;
    expect(order).toEqual(['c', 'd']);
    expect(turns.size('w')).toEqual({ running: 2, waiting: 0 });
    endC?.();
    endD?.();
    expect(turns.size('w')).toEqual({ running: 0, waiting: 0 });
  });

  it('answers null when the wait runs out or the signal fires, and gives that place up', async () => {
    const turns = new WorkspaceTurns(1, 50);
    const end = await turns.take('w', never);
    expect(await turns.take('w', never)).toBeNull();
    const gone = new AbortController();
    const waiting = turns.take('w', gone.signal);
    gone.abort();
    expect(await waiting).toBeNull();
    expect(turns.size('w')).toEqual({ running: 1, waiting: 0 });
    end?.();
    expect(turns.size('w')).toEqual({ running: 0, waiting: 0 });
  });

  it('lets every request run at once when the cap is 0', async () => {
    const turns = new WorkspaceTurns(0, 50);
    for (let i = 0; i < 5; i++) expect(await turns.take('w', never)).not.toBeNull();
  });
});
