import { inBackground, nextTurn } from '../../src/domain/turns';

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
