import type { VectorPoint } from '../../src/domain/types';
import { MemoryVectorStore } from '../../src/store/memory/vectors';
import { seededRandom as random } from '../contract/fixtures';

const scope = { workspaceId: 'thread' };

function points(count: number, seed: number, prefix = 'p'): VectorPoint[] {
  const next = random(seed);
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}-${i}`,
    vector: Array.from({ length: 48 }, () => next() * 2 - 1),
    document_ids: [`doc-${i % 5}`],
  }));
}

const options = { annMinRows: Number.MAX_SAFE_INTEGER, bytesMinRows: 200 };

describe('exact searches ranked on the search thread', () => {
  let threaded: MemoryVectorStore;
  let inProcess: MemoryVectorStore;
  beforeEach(async () => {
    threaded = new MemoryVectorStore({ ...options, searchThreads: 1 });
    inProcess = new MemoryVectorStore(options);
    for (const store of [threaded, inProcess]) await store.upsert(scope, 'entity', points(1500, 1));
  });
  afterEach(() => threaded.close());

  const same = async (query: number[], k = 10, filter?: { documentIds: string[] }) =>
    expect(await threaded.search(scope, 'entity', query, k, filter)).toEqual(await inProcess.search(scope, 'entity', query, k, filter));

  it('answers as the in-process search does, with and without a document filter', async () => {
    for (const query of points(25, 2, 'q')) {
      await same(query.vector);
      await same(query.vector, 40);
      await same(query.vector, 5, { documentIds: ['doc-1'] });
    }
  });

  it('answers concurrent searches each with its own results', async () => {
    const queries = points(30, 3, 'q');
    const together = await Promise.all(queries.map((q) => threaded.search(scope, 'entity', q.vector, 10)));
    for (const [i, q] of queries.entries()) expect(together[i]).toEqual(await inProcess.search(scope, 'entity', q.vector, 10));
  });

  it('sees every upsert and delete made before the search', async () => {
    const [query] = points(1, 4, 'q');
    const nearest = { id: 'nearest', vector: query.vector.map((x) => x * 2), document_ids: ['doc-0'] };
    const gone = points(1500, 1)
      .filter((_, i) => i % 3 === 0)
      .map((p) => p.id);
    for (const store of [threaded, inProcess]) {
      await store.delete(scope, 'entity', gone);
      await store.upsert(scope, 'entity', [nearest]);
    }
    const hits = await threaded.search(scope, 'entity', query.vector, 10);
    expect(hits[0].id).toBe('nearest');
    expect(hits.some((h) => gone.includes(h.id))).toBe(false);
    expect(hits).toEqual(await inProcess.search(scope, 'entity', query.vector, 10));
  });

  it('answers from the current rows when a write lands while the thread is ranking', async () => {
    const [query] = points(1, 5, 'q');
    const pending = threaded.search(scope, 'entity', query.vector, 10);
    const nearest = { id: 'nearest', vector: query.vector, document_ids: ['doc-0'] };
    await threaded.upsert(scope, 'entity', [nearest]);
    await inProcess.upsert(scope, 'entity', [nearest]);
    const hits = await pending;
    expect(hits[0]).toEqual({ id: 'nearest', score: expect.closeTo(1, 5) });
    expect(hits).toEqual(await inProcess.search(scope, 'entity', query.vector, 10));
  });

  it('searches in process once the thread is closed', async () => {
    await threaded.close();
    await threaded.upsert(scope, 'entity', points(1500, 1));
    const [query] = points(1, 6, 'q');
    await same(query.vector);
  });
});

describe('two search threads', () => {
  it('answer every kind as the in-process search does, searched side by side', async () => {
    const threaded = new MemoryVectorStore({ ...options, searchThreads: 2 });
    const inProcess = new MemoryVectorStore(options);
    try {
      const kinds = ['chunk', 'entity', 'relationship'] as const;
      for (const store of [threaded, inProcess]) {
        for (const [i, kind] of kinds.entries()) await store.upsert(scope, kind, points(1200, 10 + i, kind));
      }
      for (const query of points(10, 7, 'q')) {
        const together = await Promise.all(kinds.map((kind) => threaded.search(scope, kind, query.vector, 10)));
        for (const [i, kind] of kinds.entries()) expect(together[i]).toEqual(await inProcess.search(scope, kind, query.vector, 10));
      }
      await threaded.delete(scope, 'relationship', ['relationship-0', 'relationship-1']);
      await inProcess.delete(scope, 'relationship', ['relationship-0', 'relationship-1']);
      const [query] = points(1, 8, 'q');
      expect(await threaded.search(scope, 'relationship', query.vector, 50)).toEqual(
        await inProcess.search(scope, 'relationship', query.vector, 50),
      );
    } finally {
      await threaded.close();
    }
  });
});
