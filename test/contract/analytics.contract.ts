import type { Scope } from '../../src/domain/types';
import type { Stores } from '../../src/store/ports';
import { makeChunk, makeDocument, makeEntity, makeRelationship } from './fixtures';
import { type StoresCleanup, type StoresFactory, useStores } from './harness';

/**
 *   A - B        G        H (alone)
 *   |   |        |
 *   C - D - E - F        C - G
 *
 * Chunks: doc-1 #0 mentions A, B, C; doc-1 #1 mentions A, B; doc-2 #0 mentions A, D; doc-3 #0 mentions D, E, F, G, H.
 */
export async function analyticsFixture(stores: Stores, scope: Scope): Promise<void> {
  const chunkOf: Record<string, string[]> = {
    A: ['doc-1-chunk-0', 'doc-1-chunk-1', 'doc-2-chunk-0'],
    B: ['doc-1-chunk-0', 'doc-1-chunk-1'],
    C: ['doc-1-chunk-0'],
    D: ['doc-2-chunk-0', 'doc-3-chunk-0'],
    E: ['doc-3-chunk-0'],
    F: ['doc-3-chunk-0'],
    G: ['doc-3-chunk-0'],
    H: ['doc-3-chunk-0'],
  };
  const types: Record<string, string> = {
    A: 'PERSON',
    B: 'PERSON',
    C: 'ORGANIZATION',
    D: 'ORGANIZATION',
    E: 'LOCATION',
    F: 'LOCATION',
    G: 'PERSON',
    H: 'ORGANIZATION',
  };
  for (const doc of ['doc-1', 'doc-2', 'doc-3']) await stores.documents.insert(scope, makeDocument({ id: doc }));
  const chunkIds = [...new Set(Object.values(chunkOf).flat())].sort();
  await stores.chunks.upsertMany(
    scope,
    chunkIds.map((id) => {
      const [doc, index] = id.split('-chunk-');
      return makeChunk(doc, Number(index), { entity_ids: Object.keys(chunkOf).filter((e) => chunkOf[e].includes(id)) });
    }),
  );
  await stores.graph.upsertEntities(
    scope,
    Object.keys(chunkOf).map((id) =>
      makeEntity(id, {
        entity_type: types[id],
        source_chunk_ids: chunkOf[id],
        document_ids: [...new Set(chunkOf[id].map((c) => c.split('-chunk-')[0]))],
      }),
    ),
  );
  const edges = [
    ['A', 'B'],
    ['A', 'C'],
    ['B', 'D'],
    ['C', 'D'],
    ['D', 'E'],
    ['E', 'F'],
    ['C', 'G'],
  ];
  await stores.graph.upsertRelationships(
    scope,
    edges.map(([a, b], i) => makeRelationship(a, b, { weight: i + 1 })),
  );
}

export function analyticsStoreContract(name: string, makeStores: StoresFactory, cleanup?: StoresCleanup): void {
  describe(`${name}: AnalyticsStore contract`, () => {
    const ctx = useStores(makeStores, cleanup);
    const analytics = () => ctx.stores().analytics;
    let scope: Scope;

    beforeEach(async () => {
      scope = ctx.scope();
      await analyticsFixture(ctx.stores(), scope);
    });

    it('takes a snapshot of the graph, the most connected first when it is cut', async () => {
      const all = await analytics().snapshot(scope, 100);
      expect(all.truncated).toBe(false);
      expect(all.nodes.map((n) => n.id)).toEqual(['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H']);
      expect(all.nodes[4]).toEqual({ id: 'E', entity_type: 'LOCATION' });
      expect(all.edges).toHaveLength(7);
      expect(all.edges[0]).toEqual({ id: makeRelationship('A', 'B').id, source: 'A', target: 'B', weight: 1 });
      const cut = await analytics().snapshot(scope, 3);
      expect(cut.truncated).toBe(true);
      expect(cut.nodes.map((n) => n.id)).toEqual(['A', 'C', 'D']);
      expect(cut.edges.map((e) => e.id)).toEqual([makeRelationship('A', 'C').id, makeRelationship('C', 'D').id]);
      expect(await analytics().snapshot(ctx.scope(), 10)).toEqual({ nodes: [], edges: [], truncated: false });
    });

    it('finds every shortest path, within the hop limit', async () => {
      expect(await analytics().shortestPaths(scope, 'A', 'E', 6, 10)).toEqual([
        ['A', 'B', 'D', 'E'],
        ['A', 'C', 'D', 'E'],
      ]);
      expect(await analytics().shortestPaths(scope, 'A', 'E', 6, 1)).toEqual([['A', 'B', 'D', 'E']]);
      expect(await analytics().shortestPaths(scope, 'A', 'F', 3, 10)).toEqual([]);
      expect(await analytics().shortestPaths(scope, 'A', 'H', 6, 10)).toEqual([]);
      expect(await analytics().shortestPaths(scope, 'A', 'NOBODY', 6, 10)).toEqual([]);
      expect(await analytics().shortestPaths(scope, 'G', 'G', 6, 10)).toEqual([['G']]);
    });

    it('walks k hops with a type filter', async () => {
      expect(await analytics().neighbourhood(scope, 'A', { hops: 2, limit: 10 })).toEqual([
        { id: 'B', entity_type: 'PERSON', distance: 1 },
        { id: 'C', entity_type: 'ORGANIZATION', distance: 1 },
        { id: 'D', entity_type: 'ORGANIZATION', distance: 2 },
        { id: 'G', entity_type: 'PERSON', distance: 2 },
      ]);
      expect((await analytics().neighbourhood(scope, 'A', { hops: 3, limit: 10, types: ['LOCATION'] })).map((n) => n.id)).toEqual(['E']);
      expect((await analytics().neighbourhood(scope, 'A', { hops: 5, limit: 2 })).map((n) => n.id)).toEqual(['B', 'C']);
      expect(await analytics().neighbourhood(scope, 'H', { hops: 3, limit: 10 })).toEqual([]);
    });

    it('ranks entities by degree, co-mentions and documents by shared entities', async () => {
      expect(await analytics().topByDegree(scope, 5)).toEqual([
        { id: 'C', score: 3 },
        { id: 'D', score: 3 },
        { id: 'A', score: 2 },
        { id: 'B', score: 2 },
        { id: 'E', score: 2 },
      ]);
      expect(await analytics().coMentioned(scope, 'A', 10)).toEqual([
        { id: 'B', shared_chunks: 2 },
        { id: 'C', shared_chunks: 1 },
        { id: 'D', shared_chunks: 1 },
      ]);
      expect(await analytics().coMentioned(scope, 'NOBODY', 10)).toEqual([]);
      expect(await analytics().documentsSharingEntities(scope, 10)).toEqual([
        { document_a: 'doc-1', document_b: 'doc-2', shared_entities: 1 },
        { document_a: 'doc-2', document_b: 'doc-3', shared_entities: 1 },
      ]);
    });

    it('sees nothing of another workspace', async () => {
      const other = ctx.scope();
      expect(await analytics().topByDegree(other, 5)).toEqual([]);
      expect(await analytics().shortestPaths(other, 'A', 'E', 6, 10)).toEqual([]);
      expect(await analytics().documentsSharingEntities(other, 10)).toEqual([]);
    });
  });
}
