import { UndirectedGraph } from 'graphology';
import betweenness from 'graphology-metrics/centrality/betweenness';
import pagerank from 'graphology-metrics/centrality/pagerank';
import { betweennessScores } from '../../src/graph/analytics/centrality';
import { startTestApp, type TestApp } from '../helpers/app';
import { analyticsFixture } from '../contract/analytics.contract';
import { plantClusters } from '../contract/communities.contract';
import { makeEntity, makeRelationship, seededRandom } from '../contract/fixtures';

/**
 * Analytics over HTTP on the fixture of the analytics contract (A-B, A-C, B-D, C-D, D-E, E-F, C-G, H alone): the
 * same answers in both storage modes (this suite runs in each).
 */

let app: TestApp;
const get = async <T>(path: string, status = 200): Promise<T> => {
  const res = await app.request(path);
  expect(res.status).toBe(status);
  return (await res.json()) as T;
};
const ids = (list: Array<{ id: string }>) => list.map((e) => e.id);

beforeAll(async () => {
  app = await startTestApp();
  await analyticsFixture(app.rt.stores, { workspaceId: app.workspace });
});
afterAll(async () => {
  await app.close();
});

describe('graph analytics endpoints', () => {
  it('finds every shortest path between two entities, by id or name', async () => {
    const body = await get<{ paths: Array<Array<{ id: string }>>; length: number }>('/api/v1/graph/analytics/shortest-paths?from=a&to=E');
    expect(body.length).toBe(3);
    expect(body.paths.map(ids)).toEqual([
      ['A', 'B', 'D', 'E'],
      ['A', 'C', 'D', 'E'],
    ]);
    expect(await get('/api/v1/graph/analytics/shortest-paths?from=A&to=F&max_hops=3')).toEqual({ paths: [], length: null });
    await get('/api/v1/graph/analytics/shortest-paths?from=A&to=NOBODY', 404);
    await get('/api/v1/graph/analytics/shortest-paths?from=A&to=E&max_hops=99', 422);
    await get('/api/v1/graph/analytics/shortest-paths?from=A', 422);
  });

  it('walks k hops with a type filter', async () => {
    const all = await get<{ neighbours: Array<{ id: string; distance: number; name: string }> }>(
      '/api/v1/graph/analytics/neighbourhood?entity=A&hops=2',
    );
    expect(all.neighbours.map((n) => [n.id, n.distance])).toEqual([
      ['B', 1],
      ['C', 1],
      ['D', 2],
      ['G', 2],
    ]);
    expect(all.neighbours[0].name).toBe('B');
    const orgs = await get<{ neighbours: Array<{ id: string }> }>(
      '/api/v1/graph/analytics/neighbourhood?entity=A&hops=3&types=organization,location',
    );
    expect(ids(orgs.neighbours)).toEqual(['C', 'D', 'E']);
    await get('/api/v1/graph/analytics/neighbourhood?entity=A&hops=9', 422);
  });

  it('ranks entities by degree, PageRank and betweenness (checked against graphology)', async () => {
    const degree = await get<{ entities: Array<{ id: string; score: number }> }>(
      '/api/v1/graph/analytics/top-entities?metric=degree&limit=3',
    );
    expect(degree.entities.map((e) => [e.id, e.score])).toEqual([
      ['C', 3],
      ['D', 3],
      ['A', 2],
    ]);

    const reference = new UndirectedGraph();
    for (const id of 'ABCDEFGH') reference.addNode(id);
    const edges = ['AB', 'AC', 'BD', 'CD', 'DE', 'EF', 'CG'];
    edges.forEach(([a, b], i) => reference.addEdge(a, b, { weight: i + 1 }));
    const expectTop = (got: Array<{ id: string; score: number }>, scores: Record<string, number>) => {
      const want = Object.entries(scores)
        .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
        .slice(0, got.length);
      expect(ids(got)).toEqual(want.map(([id]) => id));
      got.forEach((e, i) => expect(e.score).toBeCloseTo(want[i][1], 5));
    };

    const pr = await get<{ entities: Array<{ id: string; score: number }>; approximate: boolean }>(
      '/api/v1/graph/analytics/top-entities?metric=pagerank&limit=8',
    );
    expect(pr.approximate).toBe(false);
    expectTop(pr.entities, pagerank(reference, { getEdgeWeight: 'weight', alpha: 0.85, maxIterations: 1000, tolerance: 1e-8 }));

    const bc = await get<{ entities: Array<{ id: string; score: number }>; approximate: boolean }>(
      '/api/v1/graph/analytics/top-entities?metric=betweenness&limit=8',
    );
    expect(bc.approximate).toBe(false);
    expect(bc.entities[0].id).toBe('D');
    expectTop(bc.entities, betweenness(reference, { normalized: true, getEdgeWeight: null }));
    await get('/api/v1/graph/analytics/top-entities?metric=closeness', 422);
  });

  it('lists co-mentioned entities and documents sharing entities', async () => {
    const co = await get<{ entity: { id: string }; entities: Array<{ id: string; shared_chunks: number }> }>(
      '/api/v1/graph/analytics/co-mentioned?entity=A',
    );
    expect(co.entities.map((e) => [e.id, e.shared_chunks])).toEqual([
      ['B', 2],
      ['C', 1],
      ['D', 1],
    ]);
    expect(await get('/api/v1/graph/analytics/shared-documents?limit=5')).toEqual({
      pairs: [
        { document_a: 'doc-1', document_b: 'doc-2', shared_entities: 1 },
        { document_a: 'doc-2', document_b: 'doc-3', shared_entities: 1 },
      ],
    });
  });

  it('finds the bridges between communities once they are built', async () => {
    const workspace = await app.createWorkspace();
    const scope = { workspaceId: workspace };
    const ask = (path: string) => app.request(path, { workspace });
    expect(await (await ask('/api/v1/graph/analytics/community-bridges')).json()).toEqual({ communities: 0, pairs: [], entities: [] });
    await plantClusters(app.rt.stores, scope, 4, 10);
    // One entity linked into every other group: the strongest bridge.
    await app.rt.stores.graph.upsertEntities(scope, [makeEntity('C0_N0')]);
    await app.rt.stores.graph.upsertRelationships(scope, [
      makeRelationship('C0_N0', 'C1_N1'),
      makeRelationship('C0_N0', 'C2_N2'),
      makeRelationship('C0_N0', 'C3_N3'),
    ]);
    expect((await app.request('/api/v1/graph/communities/rebuild?wait=true', { method: 'POST', workspace })).status).toBe(200);
    const bridges = (await (await ask('/api/v1/graph/analytics/community-bridges?limit=3')).json()) as {
      communities: number;
      pairs: Array<{ relationships: number }>;
      entities: Array<{ id: string; communities_reached: number }>;
    };
    expect(bridges.communities).toBe(4);
    expect(bridges.pairs.length).toBeGreaterThan(0);
    expect(bridges.pairs[0].relationships).toBeGreaterThanOrEqual(bridges.pairs[bridges.pairs.length - 1].relationships);
    expect(bridges.entities[0]).toMatchObject({ id: 'C0_N0', communities_reached: 3 });
  });
});

describe('betweenness on large graphs', () => {
  it('samples source nodes above the exact size and stays close to the exact ranking', () => {
    const random = seededRandom(3);
    const n = 1_200;
    const nodes = Array.from({ length: n }, (_, i) => ({ id: `N${String(i).padStart(5, '0')}`, entity_type: 'X' }));
    const edges = [];
    for (let i = 1; i < n; i++) {
      const j = Math.floor(random() * i);
      edges.push({ id: `e${i}`, source: nodes[j].id, target: nodes[i].id, weight: 1 });
    }
    const approx = betweennessScores({ nodes, edges, truncated: false });
    expect(approx.approximate).toBe(true);
    expect(betweennessScores({ nodes: nodes.slice(0, 100), edges: edges.slice(0, 99), truncated: false }).approximate).toBe(false);
    // The tree's hubs: the sampled estimate puts the exact top node among its top five.
    const graph = new UndirectedGraph();
    for (const node of nodes) graph.addNode(node.id);
    for (const e of edges) graph.addEdge(e.source, e.target);
    const truth = betweenness(graph, { normalized: true });
    const best = Object.entries(truth).sort((a, b) => b[1] - a[1])[0][0];
    const top5 = [...approx.scores]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([id]) => id);
    expect(top5).toContain(best);
  });
});
