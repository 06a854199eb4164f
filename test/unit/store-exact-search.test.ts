import type { VectorPoint } from '../../src/domain/types';
import { INT8_MIN_ROWS } from '../../src/store/memory/vector-matrix';
import { MemoryVectorStore } from '../../src/store/memory/vectors';
import { cosine, seededRandom as random } from '../contract/fixtures';

const scope = { workspaceId: 'exact' };

/** Points clustered around a few directions, so that many scores lie close together near the top. */
function points(count: number, dimension: number, seed: number, prefix = 'p'): VectorPoint[] {
  const next = random(seed);
  const centres = Array.from({ length: 5 }, () => Array.from({ length: dimension }, () => next() * 2 - 1));
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}-${i}`,
    vector: centres[i % 5].map((c) => c + (next() - 0.5) * 0.6),
    document_ids: [`doc-${i % 7}`],
  }));
}

/** The top k by cosine computed in doubles, one point at a time. */
function bruteForce(data: VectorPoint[], query: number[], k: number, documents?: Set<string>) {
  return data
    .filter((p) => !documents || p.document_ids.some((d) => documents.has(d)))
    .map((p) => ({ id: p.id, score: cosine(p.vector, query) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k);
}

function expectSame(hits: Array<{ id: string; score: number }>, truth: Array<{ id: string; score: number }>) {
  expect(hits.map((h) => h.id)).toEqual(truth.map((t) => t.id));
  hits.forEach((h, i) => expect(h.score).toBeCloseTo(truth[i].score, 5));
}

describe('exact search over many rows, candidates ranked by bytes then scored on floats', () => {
  const data = points(INT8_MIN_ROWS * 2 + 100, 96, 1);
  const store = new MemoryVectorStore({ annMinRows: Number.MAX_SAFE_INTEGER });
  beforeAll(() => store.upsert(scope, 'entity', data));

  it('returns the exact top k, in order, with the exact scores', async () => {
    for (const query of points(40, 96, 2, 'q')) {
      for (const k of [1, 10, 60]) expectSame(await store.search(scope, 'entity', query.vector, k), bruteForce(data, query.vector, k));
    }
  });

  it('returns the exact top k of the filtered documents', async () => {
    const documents = new Set(['doc-2', 'doc-5']);
    for (const query of points(20, 96, 3, 'q')) {
      const hits = await store.search(scope, 'entity', query.vector, 10, { documentIds: [...documents] });
      expectSame(hits, bruteForce(data, query.vector, 10, documents));
    }
  });

  it('returns the exact top k for sparse vectors, most of whose components are zero, as feature hashing makes', async () => {
    // Rows with about a quarter of their components set and queries with about a fifth (an odd number or an even
    // one), each over a block and a part of the next.
    const sparse = (count: number, seed: number, share: number, prefix: string): VectorPoint[] => {
      const next = random(seed);
      return Array.from({ length: count }, (_, i) => ({
        id: `${prefix}-${i}`,
        vector: Array.from({ length: 96 }, () => (next() < share ? next() * 2 - 1 : 0)),
        document_ids: [`doc-${i % 7}`],
      }));
    };
    const rows = sparse(5000, 6, 0.25, 's');
    const copy = new MemoryVectorStore({ annMinRows: Number.MAX_SAFE_INTEGER });
    await copy.upsert(scope, 'entity', rows);
    for (const query of sparse(30, 7, 0.2, 'q')) {
      for (const k of [1, 10, 60]) expectSame(await copy.search(scope, 'entity', query.vector, k), bruteForce(rows, query.vector, k));
    }
    const one = new Array<number>(96).fill(0);
    one[17] = 1;
    expectSame(await copy.search(scope, 'entity', one, 10), bruteForce(rows, one, 10));
  });

  it('follows deletes and replaced vectors', async () => {
    const copy = new MemoryVectorStore({ annMinRows: Number.MAX_SAFE_INTEGER });
    await copy.upsert(scope, 'entity', data);
    const gone = new Set(data.filter((_, i) => i % 4 === 0).map((p) => p.id));
    await copy.delete(scope, 'entity', [...gone]);
    const replaced = points(300, 96, 4).map((p, i) => ({ ...p, id: `p-${i * 4 + 1}` }));
    await copy.upsert(scope, 'entity', replaced);
    const byId = new Map(data.filter((p) => !gone.has(p.id)).map((p) => [p.id, p]));
    for (const p of replaced) byId.set(p.id, p);
    const live = [...byId.values()];
    expect(await copy.count(scope, 'entity')).toBe(live.length);
    for (const query of [...points(20, 96, 5, 'q'), ...replaced.slice(0, 5)]) {
      expectSame(await copy.search(scope, 'entity', query.vector, 10), bruteForce(live, query.vector, 10));
    }
  });
});
