import { inBackground, nextTurn, startInSlices, TimeSlicer } from '../../src/domain/turns';

/** Turns of the event loop: waiters resume one per turn, background work after the work of requests. */

describe('nextTurn', () => {
  it('resumes concurrent waiters in order, one per turn', async () => {
    const order: number[] = [];
    let turn = 0;
    const ticker = setInterval(() => undefined, 1); // keeps the loop turning
    const counting = (async () => {
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve)).then(() => (turn += 1));
    })();
    const turns: number[] = [];
    await Promise.all([0, 1, 2].map((i) => nextTurn().then(() => (order.push(i), turns.push(turn)))));
    await counting;
    clearInterval(ticker);
    expect(order).toEqual([0, 1, 2]);
    expect(new Set(turns).size).toBe(3);
  });

  it('lets background waiters resume only after at most four foreground ones, and never starves them', async () => {
    const order: string[] = [];
    const waits: Array<Promise<unknown>> = [];
    for (let i = 0; i < 3; i++) waits.push(inBackground(() => nextTurn().then(() => order.push(`b${i}`))));
    for (let i = 0; i < 10; i++) waits.push(nextTurn().then(() => order.push(`f${i}`)));
    await Promise.all(waits);
    expect(order).toEqual(['f0', 'f1', 'f2', 'f3', 'b0', 'f4', 'f5', 'f6', 'f7', 'b1', 'f8', 'f9', 'b2']);
  });

  it('keeps the background mark across awaits of the work it started', async () => {
    const order: string[] = [];
    const work = inBackground(async () => {
      await Promise.resolve();
      await nextTurn();
      order.push('background');
    });
    await Promise.resolve();
    const request = nextTurn().then(() => order.push('request'));
    await Promise.all([work, request]);
    expect(order).toEqual(['request', 'background']);
  });
});

describe('startInSlices', () => {
  /** Synchronous work that uses up more than a slice of 5 ms. */
  const spin = () => {
    const until = performance.now() + 10;
    while (performance.now() < until);
  };

  it('yields to pending I/O between starts once a start has used up the slice', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('io'));
    const results = await startInSlices(
      [1, 2, 3],
      async (i) => {
        order.push(`start ${i}`);
        spin();
        return i * 10;
      },
      new TimeSlicer(5),
    );
    expect(results).toEqual([10, 20, 30]);
    // The callback queued before the starts runs right after the first one, not after all three.
    expect(order).toEqual(['start 1', 'io', 'start 2', 'start 3']);
  });

  it('rejects with the first failure once every item has started, with no unhandled rejection', async () => {
    const started: number[] = [];
    await expect(
      startInSlices([1, 2, 3], async (i) => {
        started.push(i);
        if (i === 1) throw new Error('first failed');
        return i;
      }),
    ).rejects.toThrow('first failed');
    expect(started).toEqual([1, 2, 3]);
  });
});
