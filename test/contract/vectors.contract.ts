import type { VectorHit, VectorPoint } from '../../src/domain/types';
import { cosine, seededRandom } from './fixtures';
import { type StoresCleanup, type StoresFactory, useStores } from './harness';

function randomVector(random: () => number, dim: number): number[] {
  return Array.from({ length: dim }, () => random() * 2 - 1);
}

/** Exact cosine ranking of every point, the reference the stores are checked against. */
function bruteForce(points: VectorPoint[], query: number[], topK: number, documentIds?: string[]): VectorHit[] {
  const wanted = documentIds ? new Set(documentIds) : null;
  return points
    .filter((p) => !wanted || p.document_ids.some((d) => wanted.has(d)))
    .map((p) => ({ id: p.id, score: cosine(p.vector, query) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, topK);
}

function expectSameHits(actual: VectorHit[], expected: VectorHit[]): void {
  expect(actual.map((h) => h.id)).toEqual(expected.map((h) => h.id));
  actual.forEach((hit, i) => expect(hit.score).toBeCloseTo(expected[i].score, 4));
}

function randomPoints(seed: number, count: number, dim: number): VectorPoint[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => ({
    id: `p-${i}`,
    vector: randomVector(random, dim),
    document_ids: [`doc-${i % 5}`, ...(i % 7 === 0 ? ['doc-shared'] : [])],
  }));
}

export function vectorStoreContract(name: string, makeStores: StoresFactory, cleanup?: StoresCleanup): void {
  describe(`${name}: VectorStore contract`, () => {
    const ctx = useStores(makeStores, cleanup);
    const vectors = () => ctx.stores().vectors;

    it('ranks by cosine similarity, best first, exactly as a brute-force scan', async () => {
      const scope = ctx.scope();
      const points = randomPoints(5, 300, 23);
      await vectors().upsert(scope, 'chunk', points);
      const random = seededRandom(6);
      for (let q = 0; q < 10; q++) {
        const query = randomVector(random, 23);
        expectSameHits(await vectors().search(scope, 'chunk', query, 10), bruteForce(points, query, 10));
      }
    });

    it('compares directions, not lengths: a scaled copy of a stored vector scores 1', async () => {
      const scope = ctx.scope();
      const points = randomPoints(7, 20, 8);
      await vectors().upsert(scope, 'entity', points);
      const [best] = await vectors().search(
        scope,
        'entity',
        points[3].vector.map((x) => x * 42),
        1,
      );
      expect(best.id).toBe('p-3');
      expect(best.score).toBeCloseTo(1, 5);
    });

    it('returns at most topK hits, every point when topK exceeds the count, none for topK 0', async () => {
      const scope = ctx.scope();
      const points = randomPoints(8, 12, 8);
      await vectors().upsert(scope, 'chunk', points);
      const query = points[0].vector;
      expect(await vectors().search(scope, 'chunk', query, 5)).toHaveLength(5);
      expectSameHits(await vectors().search(scope, 'chunk', query, 50), bruteForce(points, query, 50));
      expect(await vectors().search(scope, 'chunk', query, 0)).toEqual([]);
    });

    it('restricts hits to points of the given documents', async () => {
      const scope = ctx.scope();
      const points = randomPoints(9, 100, 16);
      await vectors().upsert(scope, 'chunk', points);
      const query = randomVector(seededRandom(10), 16);
      for (const documentIds of [['doc-1'], ['doc-2', 'doc-shared'], ['doc-none']]) {
        const hits = await vectors().search(scope, 'chunk', query, 8, { documentIds });
        expectSameHits(hits, bruteForce(points, query, 8, documentIds));
      }
      expect(await vectors().search(scope, 'chunk', query, 8, { documentIds: [] })).toEqual([]);
      expectSameHits(await vectors().search(scope, 'chunk', query, 8, {}), bruteForce(points, query, 8));
    });

    it('scores only the given points when ids are named, with the document filter still applied', async () => {
      const scope = ctx.scope();
      const points = randomPoints(12, 60, 16);
      await vectors().upsert(scope, 'chunk', points);
      const query = randomVector(seededRandom(13), 16);
      const ids = ['p-3', 'p-17', 'p-40', 'p-59', 'p-unknown'];
      const named = points.filter((p) => ids.includes(p.id));
      expectSameHits(await vectors().search(scope, 'chunk', query, 10, { ids }), bruteForce(named, query, 10));
      expectSameHits(await vectors().search(scope, 'chunk', query, 2, { ids }), bruteForce(named, query, 2));
      expectSameHits(
        await vectors().search(scope, 'chunk', query, 10, { ids, documentIds: ['doc-1'] }),
        bruteForce(named, query, 10, ['doc-1']),
      );
      expect(await vectors().search(scope, 'chunk', query, 10, { ids: [] })).toEqual([]);
    });

    it('replaces a point upserted again under the same id', async () => {
      const scope = ctx.scope();
      const points = randomPoints(11, 30, 8);
      await vectors().upsert(scope, 'relationship', points);
      const moved = { id: 'p-4', vector: points[20].vector.map((x) => -x), document_ids: ['doc-new'] };
      await vectors().upsert(scope, 'relationship', [moved]);
      expect(await vectors().count(scope, 'relationship')).toBe(30);
      const [best] = await vectors().search(scope, 'relationship', moved.vector, 1, { documentIds: ['doc-new'] });
      expect(best.id).toBe('p-4');
      expect(best.score).toBeCloseTo(1, 5);
      expect(await vectors().search(scope, 'relationship', moved.vector, 5, { documentIds: ['doc-4'] })).not.toContainEqual(
        expect.objectContaining({ id: 'p-4' }),
      );
    });

    it('deletes points: gone from search and count, the rest still ranked exactly', async () => {
      const scope = ctx.scope();
      let points = randomPoints(12, 200, 13);
      await vectors().upsert(scope, 'chunk', points);
      const doomed = new Set(points.filter((_, i) => i % 3 === 0 || i === 199).map((p) => p.id));
      await vectors().delete(scope, 'chunk', [...doomed, 'never-there']);
      points = points.filter((p) => !doomed.has(p.id));
      expect(await vectors().count(scope, 'chunk')).toBe(points.length);
      const random = seededRandom(13);
      for (let q = 0; q < 5; q++) {
        const query = randomVector(random, 13);
        expectSameHits(await vectors().search(scope, 'chunk', query, points.length), bruteForce(points, query, points.length));
        const documentIds = [`doc-${q}`];
        expectSameHits(await vectors().search(scope, 'chunk', query, 10, { documentIds }), bruteForce(points, query, 10, documentIds));
      }
      const extra = randomPoints(14, 3, 13).map((p) => ({ ...p, id: `extra-${p.id}` }));
      await vectors().upsert(scope, 'chunk', extra);
      points = [...points, ...extra];
      const query = randomVector(random, 13);
      expectSameHits(await vectors().search(scope, 'chunk', query, 20), bruteForce(points, query, 20));
    });

    it('counts per kind and reports bytes as dimension x 4 per point over all kinds', async () => {
      const scope = ctx.scope();
      expect(await vectors().bytes(scope)).toBe(0);
      await vectors().upsert(scope, 'chunk', randomPoints(15, 10, 32));
      await vectors().upsert(scope, 'entity', randomPoints(16, 4, 16));
      expect(await vectors().count(scope, 'chunk')).toBe(10);
      expect(await vectors().count(scope, 'entity')).toBe(4);
      expect(await vectors().count(scope, 'relationship')).toBe(0);
      expect(await vectors().bytes(scope)).toBe(10 * 32 * 4 + 4 * 16 * 4);
      await vectors().delete(scope, 'chunk', ['p-0', 'p-1']);
      expect(await vectors().bytes(scope)).toBe(8 * 32 * 4 + 4 * 16 * 4);
      expect(await vectors().search(scope, 'relationship', randomVector(seededRandom(1), 16), 3)).toEqual([]);
    });

    it('lists the record ids of every point of a kind in the workspace', async () => {
      const [scope, other] = [ctx.scope(), ctx.scope()];
      await vectors().upsert(scope, 'entity', randomPoints(18, 6, 8));
      await vectors().upsert(
        other,
        'entity',
        randomPoints(19, 2, 8).map((p) => ({ ...p, id: `other-${p.id}` })),
      );
      await vectors().delete(scope, 'entity', ['p-2']);
      expect((await vectors().ids(scope, 'entity')).sort()).toEqual(['p-0', 'p-1', 'p-3', 'p-4', 'p-5']);
      expect(await vectors().ids(scope, 'chunk')).toEqual([]);
    });

    it('reads back the stored vectors of the records that have one: the same direction, carried to another id', async () => {
      const [scope, other] = [ctx.scope(), ctx.scope()];
      const points = randomPoints(21, 4, 12);
      await vectors().upsert(scope, 'relationship', points);
      await vectors().upsert(other, 'relationship', [{ ...points[3], id: 'p-9' }]);
      const read = await vectors().vectorsOf(scope, 'relationship', ['p-0', 'p-2', 'p-9', 'missing']);
      expect([...read.keys()].sort()).toEqual(['p-0', 'p-2']);
      for (const id of ['p-0', 'p-2']) {
        const stored = points.find((p) => p.id === id) as VectorPoint;
        expect(read.get(id)).toHaveLength(12);
        expect(cosine(read.get(id) as number[], stored.vector)).toBeCloseTo(1, 5);
      }
      expect((await vectors().vectorsOf(scope, 'entity', ['p-0'])).size).toBe(0);
      expect((await vectors().vectorsOf(scope, 'relationship', [])).size).toBe(0);
      // Written under a new id, the read vector ranks as the original did.
      await vectors().upsert(scope, 'relationship', [{ id: 'p-0-renamed', vector: read.get('p-0') as number[], document_ids: ['doc-0'] }]);
      const hits = await vectors().search(scope, 'relationship', points[0].vector, 2);
      expect(hits.map((h) => h.id).sort()).toEqual(['p-0', 'p-0-renamed']);
      expect(hits[1].score).toBeCloseTo(1, 4);
    });

    it('keeps workspaces apart: another workspace neither finds nor deletes the vectors', async () => {
      const [a, b] = [ctx.scope(), ctx.scope()];
      const points = randomPoints(17, 10, 8);
      await vectors().upsert(a, 'chunk', points);
      expect(await vectors().search(b, 'chunk', points[0].vector, 5)).toEqual([]);
      expect(await vectors().count(b, 'chunk')).toBe(0);
      expect(await vectors().bytes(b)).toBe(0);
      await vectors().delete(
        b,
        'chunk',
        points.map((p) => p.id),
      );
      expect(await vectors().count(a, 'chunk')).toBe(10);
      const own = randomPoints(18, 3, 8);
      await vectors().upsert(b, 'chunk', own);
      const hits = await vectors().search(b, 'chunk', points[0].vector, 10);
      expect(hits.map((h) => h.id).sort()).toEqual(own.map((p) => p.id).sort());
    });
  });
}
