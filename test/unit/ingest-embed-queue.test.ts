import { EmbeddingQueue } from '../../src/ingest/embed/queue';

/** A window no test reaches unless it says so. */
const WIDE = { merges: 1000, deadlineMs: 60_000 };
import { MergeClaims } from '../../src/ingest/embed/claims';
import type { EmbeddingProvider } from '../../src/llm/ports';

const scope = { workspaceId: 'embed-queue' };

/** An embedding provider whose calls wait until released; a vector's only value is its text's length. */
function gatedProvider() {
  const calls: string[][] = [];
  const gates: Array<() => void> = [];
  const provider: EmbeddingProvider = {
    provider: 'test',
    model: 'gated',
    dimension: 1,
    embed(texts) {
      calls.push(texts);
      return new Promise((resolve) => gates.push(() => resolve(texts.map((t) => [t.length]))));
    },
  };
  const releaseAll = async () => {
    for (let i = 0; i < 20 && (gates.length > 0 || i < 3); i++) {
      while (gates.length) gates.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { provider, calls, releaseAll };
}

describe('the shared embedding queue', () => {
  it('gives a record queued again before its turn one embedding, of its latest text, to every caller', async () => {
    const { provider, calls, releaseAll } = gatedProvider();
    const queue = new EmbeddingQueue(provider, 1, 64);
    const busy = queue.embed(scope, 'chunk', [{ id: 'other', text: 'occupies the only slot' }]);
    const first = queue.embed(scope, 'entity', [{ id: 'ACME', text: 'Acme: v1' }]);
    const second = queue.embed(scope, 'entity', [{ id: 'ACME', text: 'Acme: version two' }]);
    await releaseAll();
    await busy;
    const [[a], [b]] = await Promise.all([first, second]);
    expect(a).toEqual({ vector: ['Acme: version two'.length], text: 'Acme: version two' });
    expect(b).toEqual(a);
    expect(calls).toEqual([['occupies the only slot'], ['Acme: version two']]);
  });

  it('lets a caller join the embedding of the same text already under way', async () => {
    const { provider, calls, releaseAll } = gatedProvider();
    const queue = new EmbeddingQueue(provider, 2, 64);
    const first = queue.embed(scope, 'entity', [{ id: 'ACME', text: 'Acme' }]);
    const second = queue.embed(scope, 'entity', [{ id: 'ACME', text: 'Acme' }]);
    await releaseAll();
    expect(await second).toEqual(await first);
    expect(calls).toEqual([['Acme']]);
  });

  it('holds refreshes back while a document is in flight, embeds each refreshed record once, and sends it once none is', async () => {
    const { provider, calls, releaseAll } = gatedProvider();
    const claims = new MergeClaims();
    const queue = new EmbeddingQueue(provider, 1, 64, WIDE, claims);
    const inFlight = claims.claim();
    const waitedOn = queue.embed(scope, 'chunk', [{ id: 'c1', text: 'a chunk' }]);
    const refreshes = ['Acme: one', 'Acme: one, two', 'Acme: one, two, three'].map((text) =>
      queue.embed(scope, 'entity', [{ id: 'ACME', text }], undefined, 'later'),
    );
    const more = queue.embed(scope, 'chunk', [{ id: 'c2', text: 'another chunk' }]);
    await releaseAll();
    await Promise.all([waitedOn, more]);
    expect(calls).toEqual([['a chunk'], ['another chunk']]);
    inFlight.release();
    await releaseAll();
    const results = await Promise.all(refreshes);
    expect(calls).toEqual([['a chunk'], ['another chunk'], ['Acme: one, two, three']]);
    expect(results.map(([r]) => r.text)).toEqual(Array(3).fill('Acme: one, two, three'));
  });

  it('sends a refresh with the texts waited on when no document is in flight', async () => {
    const { provider, calls, releaseAll } = gatedProvider();
    const queue = new EmbeddingQueue(provider, 1, 64, WIDE);
    const busy = queue.embed(scope, 'chunk', [{ id: 'c1', text: 'a chunk' }]);
    const refresh = queue.embed(scope, 'entity', [{ id: 'ACME', text: 'Acme' }], undefined, 'later');
    const more = queue.embed(scope, 'chunk', [{ id: 'c2', text: 'another chunk' }]);
    await releaseAll();
    await Promise.all([busy, refresh, more]);
    expect(calls).toEqual([['a chunk'], ['another chunk', 'Acme']]);
  });

  it('sends a refresh once so many documents have merged since it was queued, while a call is still out', async () => {
    const { provider, calls, releaseAll } = gatedProvider();
    const claims = new MergeClaims();
    const queue = new EmbeddingQueue(provider, 2, 64, { merges: 2, deadlineMs: 60_000 }, claims);
    // A document still in flight: without the window the refresh would wait for it.
    claims.claim();
    const busy = queue.embed(scope, 'chunk', [{ id: 'c1', text: 'a chunk' }]);
    const refresh = queue.embed(scope, 'entity', [{ id: 'ACME', text: 'Acme' }], undefined, 'later');
    await new Promise((r) => setImmediate(r));
    claims.claim().release();
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual([['a chunk']]);
    claims.claim().release();
    await new Promise((r) => setImmediate(r));
    // Sent beside the call still out: the window has passed.
    expect(calls).toEqual([['a chunk'], ['Acme']]);
    await releaseAll();
    await Promise.all([busy, refresh]);
  });

  it('sends held refreshes at once when settled', async () => {
    const { provider, calls, releaseAll } = gatedProvider();
    const claims = new MergeClaims();
    const queue = new EmbeddingQueue(provider, 1, 64, WIDE, claims);
    claims.claim();
    const busy = queue.embed(scope, 'chunk', [{ id: 'c1', text: 'a chunk' }]);
    const refresh = queue.embed(scope, 'entity', [{ id: 'ACME', text: 'Acme' }], undefined, 'later');
    const settled = queue.settle();
    await releaseAll();
    await Promise.all([busy, refresh, settled]);
    expect(calls).toEqual([['a chunk'], ['Acme']]);
  });

  it('aborts a shared call only once every caller waiting on it has given up', async () => {
    const seen: Array<AbortSignal | undefined> = [];
    const provider: EmbeddingProvider = {
      provider: 'test',
      model: 'signals',
      dimension: 1,
      embed: (texts, signal) => {
        seen.push(signal);
        return new Promise(() => undefined);
      },
    };
    const queue = new EmbeddingQueue(provider, 1, 64);
    const [a, b] = [new AbortController(), new AbortController()];
    void queue
      .embed(
        scope,
        'chunk',
        [
          { id: 'c1', text: 'one' },
          { id: 'c2', text: 'two' },
        ],
        a.signal,
      )
      .catch(() => undefined);
    // Queued before the call goes out: both callers share it.
    void queue.embed(scope, 'chunk', [{ id: 'c2', text: 'two' }], b.signal).catch(() => undefined);
    await new Promise((r) => setImmediate(r));
    expect(seen).toHaveLength(1);
    a.abort();
    expect(seen[0]?.aborted).toBe(false);
    b.abort();
    expect(seen[0]?.aborted).toBe(true);
  });

  it('embeds a record new to the graph at once while documents are in flight, and their changes to it as one refresh', async () => {
    const { provider, calls, releaseAll } = gatedProvider();
    const claims = new MergeClaims();
    const queue = new EmbeddingQueue(provider, 1, 64, { merges: 2, deadlineMs: 60_000 }, claims);
    const [first, second, third] = [claims.claim(), claims.claim(), claims.claim()];
    const created = queue.embed(scope, 'entity', [{ id: 'ACME', text: 'Acme' }]);
    first.release();
    await releaseAll();
    expect((await created)[0].text).toBe('Acme');
    // Two documents in flight change it in turn: one text, the last, once two documents have merged since the first.
    const changed = queue.embed(scope, 'entity', [{ id: 'ACME', text: 'Acme\nsecond' }], undefined, 'later');
    second.release();
    const again = queue.embed(scope, 'entity', [{ id: 'ACME', text: 'Acme\nsecond\nthird' }], undefined, 'later');
    await releaseAll();
    expect(calls).toEqual([['Acme']]);
    third.release();
    await releaseAll();
    const [[a], [b]] = await Promise.all([changed, again]);
    expect(calls).toEqual([['Acme'], ['Acme\nsecond\nthird']]);
    expect(b).toEqual(a);
  });
});
