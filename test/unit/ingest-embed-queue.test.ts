import { EmbeddingQueue } from '../../src/ingest/embed-queue';
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

  it('holds refreshes back while texts that callers wait on are queued, and embeds each refreshed record once', async () => {
    const { provider, calls, releaseAll } = gatedProvider();
    const queue = new EmbeddingQueue(provider, 1, 64, 60_000);
    const waitedOn = queue.embed(scope, 'chunk', [{ id: 'c1', text: 'a chunk' }]);
    const refreshes = ['Acme: one', 'Acme: one, two', 'Acme: one, two, three'].map((text) =>
      queue.embed(scope, 'entity', [{ id: 'ACME', text }], undefined, 'later'),
    );
    const more = queue.embed(scope, 'chunk', [{ id: 'c2', text: 'another chunk' }]);
    await releaseAll();
    await Promise.all([waitedOn, more]);
    const results = await Promise.all(refreshes);
    expect(calls).toEqual([['a chunk'], ['another chunk'], ['Acme: one, two, three']]);
    expect(results.map(([r]) => r.text)).toEqual(Array(3).fill('Acme: one, two, three'));
  });

  it('sends held refreshes at once when settled', async () => {
    const { provider, calls, releaseAll } = gatedProvider();
    const queue = new EmbeddingQueue(provider, 1, 64, 60_000);
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
});
