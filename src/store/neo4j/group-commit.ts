/**
 * Statements of one kind that callers would send one by one, sent together when they arrive at once (a group
 * commit). A call on an idle lane runs at once and alone; calls that arrive while its statement runs wait for it,
 * then go as one statement of at most `maxItems` calls. Under load many small statements become a few larger
 * ones (each statement costs Neo4j a transaction, a commit and a Bolt exchange whatever its size); with nothing in
 * flight a call waits for nothing. Every call settles with its own result, or with the error of its statement,
 * only once that statement ended: a write has committed when its call resolves, as if it had been sent alone.
 */
export class GroupCommit<I, O> {
  private readonly lanes = new Map<string, Lane<I, O>>();

  constructor(
    /** Runs calls of one lane as one statement; returns one result per call, in their order. */
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly maxItems = 512,
  ) {}

  /** A group commit of calls that answer nothing once their statement ends. */
  static ofWrites<I>(run: (items: I[]) => Promise<unknown>, maxItems?: number): GroupCommit<I, void> {
    return new GroupCommit<I, void>(async (items) => {
      await run(items);
      return items.map(() => undefined);
    }, maxItems);
  }

  submit(lane: string, item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      let queue = this.lanes.get(lane);
      if (queue) {
        queue.push({ item, resolve, reject });
        return;
      }
      queue = [{ item, resolve, reject }];
      this.lanes.set(lane, queue);
      void this.drain(lane, queue);
    });
  }

  /** Sends the lane's calls until none wait; the lane is forgotten once empty. */
  private async drain(lane: string, queue: Lane<I, O>): Promise<void> {
    // Calls made in the same turn as the first one go with it.
    await Promise.resolve();
    while (queue.length > 0) {
      const calls = queue.splice(0, this.maxItems);
      try {
        const results = await this.run(calls.map((c) => c.item));
        calls.forEach((c, i) => c.resolve(results[i]));
      } catch (err) {
        for (const c of calls) c.reject(err);
      }
    }
    this.lanes.delete(lane);
  }
}

type Lane<I, O> = Array<{ item: I; resolve: (value: O) => void; reject: (err: unknown) => void }>;
