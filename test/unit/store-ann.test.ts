import type { VectorPoint } from '../../src/domain/types';
import { HnswIndex } from '../../src/store/memory/hnsw';
import { MemoryVectorStore } from '../../src/store/memory/vectors';
import { seededRandom as random } from '../contract/fixtures';

const scope = { workspaceId: 'ann' };

/**
 * Points on a low-dimensional manifold with a little noise, as embeddings of texts are (a few latent factors
 * spread over many dimensions), not uniform noise in every dimension.
 */
function points(count: number, dimension: number, seed: number): VectorPoint[] {
  // One basis per dimension, shared by the points and the queries of a test.
  const basisRandom = random(dimension);
  const basis = Array.from({ length: 8 }, () => Array.from({ length: dimension }, () => basisRandom() * 2 - 1));
  const next = random(seed);
  return Array.from({ length: count }, (_, i) => {
    const factors = basis.map(() => next() * 2 - 1);
    const vector = Array.from(
      { length: dimension },
      (_, d) => factors.reduce((sum, f, k) => sum + f * basis[k][d], 0) + (next() - 0.5) * 0.1,
    );
    return { id: `p-${i}`, vector, document_ids: [`doc-${i % 7}`] };
  });
}

/** A store searching through its HNSW index from `annMinRows` points, with the index built, and an exact one. */
async function stores(annMinRows: number, data: VectorPoint[]) {
  const ann = new MemoryVectorStore({ annMinRows });
  const exact = new MemoryVectorStore({ annMinRows: Number.MAX_SAFE_INTEGER });
  await ann.upsert(scope, 'chunk', data);
  await exact.upsert(scope, 'chunk', data);
  await ann.indexed();
  return { ann, exact };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

const ids = (hits: Array<{ id: string }>) => hits.map((h) => h.id);

describe('approximate nearest neighbours in the embedded vector store', () => {
  it('gives the exact results on a small set', async () => {
    const data = points(300, 32, 1);
    const { ann, exact } = await stores(1, data);
    for (const query of points(20, 32, 2)) {
      expect(ids(await ann.search(scope, 'chunk', query.vector, 10))).toEqual(ids(await exact.search(scope, 'chunk', query.vector, 10)));
    }
  });

  it('finds at least 98% of the exact top 10 on a larger set', async () => {
    const data = points(4000, 64, 3);
    const { ann, exact } = await stores(1000, data);
    let found = 0;
    const queries = points(60, 64, 4);
    for (const query of queries) {
      const truth = new Set(ids(await exact.search(scope, 'chunk', query.vector, 10)));
      found += ids(await ann.search(scope, 'chunk', query.vector, 10)).filter((id) => truth.has(id)).length;
    }
    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.98);
  });

  it('finds at least 98% of the exact top 10 on near-random vectors, the hardest case for graph indexes', async () => {
    const next = random(11);
    const noise = (count: number, prefix: string) =>
      Array.from({ length: count }, (_, i) => ({
        id: `${prefix}-${i}`,
        vector: Array.from({ length: 128 }, () => next() * 2 - 1),
        document_ids: ['doc-0'],
      }));
    const { ann, exact } = await stores(1000, noise(6000, 'p'));
    let found = 0;
    const queries = noise(50, 'q');
    for (const query of queries) {
      const truth = new Set(ids(await exact.search(scope, 'chunk', query.vector, 10)));
      found += ids(await ann.search(scope, 'chunk', query.vector, 10)).filter((id) => truth.has(id)).length;
    }
    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.98);
  });

  it('follows deletes and replaced vectors, and never returns a deleted point', async () => {
    const data = points(400, 16, 5);
    const { ann, exact } = await stores(1, data);
    const gone = data.filter((_, i) => i % 3 === 0).map((p) => p.id);
    const moved = points(50, 16, 6).map((p, i) => ({ ...p, id: `p-${i * 3 + 1}` }));
    for (const store of [ann, exact]) {
      await store.delete(scope, 'chunk', gone);
      await store.upsert(scope, 'chunk', moved);
    }
    await ann.indexed();
    expect(await ann.count(scope, 'chunk')).toBe(await exact.count(scope, 'chunk'));
    for (const query of [...points(10, 16, 7), ...moved.slice(0, 5)]) {
      const hits = await ann.search(scope, 'chunk', query.vector, 10);
      expect(ids(hits)).toEqual(ids(await exact.search(scope, 'chunk', query.vector, 10)));
      expect(ids(hits).some((id) => gone.includes(id))).toBe(false);
    }
  });

  it('builds the index a slice at a time, searching exactly until it is complete', async () => {
    const data = points(2000, 64, 12);
    const store = new MemoryVectorStore({ annMinRows: 1000 });
    const exact = new MemoryVectorStore({ annMinRows: Number.MAX_SAFE_INTEGER });
    await exact.upsert(scope, 'chunk', data);
    const searches = jest.spyOn(HnswIndex.prototype, 'search');
    try {
      await store.upsert(scope, 'chunk', data);
      let built = false;
      const indexed = store.indexed().then(() => (built = true));
      // A timer set after the upsert runs while the index is still being built: the build lets other work in.
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(built).toBe(false);
      const [query] = points(1, 64, 13);
      expect(await store.search(scope, 'chunk', query.vector, 10)).toEqual(await exact.search(scope, 'chunk', query.vector, 10));
      expect(searches).not.toHaveBeenCalled();
      await indexed;
      await store.search(scope, 'chunk', query.vector, 10);
      expect(searches).toHaveBeenCalledTimes(1);
    } finally {
      searches.mockRestore();
    }
  });

  it('puts every write made during the build into the index: new points, replaced vectors, deletes', async () => {
    const data = points(400, 16, 14);
    // A slice of 0 ms adds one point at a time, so the writes below land between the build's steps.
    const store = new MemoryVectorStore({ annMinRows: 300, annSliceMs: 0 });
    const exact = new MemoryVectorStore({ annMinRows: Number.MAX_SAFE_INTEGER });
    await store.upsert(scope, 'chunk', data);
    await exact.upsert(scope, 'chunk', data);
    const fresh = points(460, 16, 15)
      .slice(400)
      .map((p, i) => ({ ...p, id: `new-${i}` }));
    // Replaced: from step 10 on, one point the build has passed (it adds a point a turn) and one ahead of it.
    const vectors = points(20, 16, 16);
    const replaced = Array.from({ length: 10 }, (_, i) => [
      { ...vectors[2 * i], id: `p-${i + 6}` },
      { ...vectors[2 * i + 1], id: `p-${i * 20 + 200}` },
    ]).flat();
    // Deleting the first rows moves rows the build has not reached yet to where it has been.
    const gone = ['p-0', 'p-1', 'p-2', 'p-5', 'p-399', 'p-398'];
    let built = false;
    void store.indexed().then(() => (built = true));
    for (let step = 0; step < 20; step++) {
      await turn();
      const writes = [
        (s: MemoryVectorStore) => s.upsert(scope, 'chunk', fresh.slice(step * 3, step * 3 + 3)),
        (s: MemoryVectorStore) => s.upsert(scope, 'chunk', step < 10 ? [] : replaced.slice((step - 10) * 2, (step - 9) * 2)),
        (s: MemoryVectorStore) => s.delete(scope, 'chunk', step < gone.length ? [gone[step]] : []),
      ];
      for (const write of writes) for (const s of [store, exact]) await write(s);
    }
    expect(built).toBe(false);
    await store.indexed();
    expect(await store.count(scope, 'chunk')).toBe(await exact.count(scope, 'chunk'));
    for (const query of [...points(20, 16, 17), ...fresh.slice(0, 5), ...replaced.slice(0, 5)]) {
      const hits = ids(await store.search(scope, 'chunk', query.vector, 10));
      expect(hits).toEqual(ids(await exact.search(scope, 'chunk', query.vector, 10)));
      expect(hits.some((id) => gone.includes(id))).toBe(false);
    }
  });

  it('keeps document filters exact', async () => {
    const data = points(300, 16, 8);
    const { ann, exact } = await stores(1, data);
    const [query] = points(1, 16, 9);
    const filter = { documentIds: ['doc-3'] };
    expect(await ann.search(scope, 'chunk', query.vector, 5, filter)).toEqual(await exact.search(scope, 'chunk', query.vector, 5, filter));
  });
});
