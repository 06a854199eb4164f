import { UndirectedGraph } from 'graphology';
import betweenness from 'graphology-metrics/centrality/betweenness';
import pagerank from 'graphology-metrics/centrality/pagerank';
import { adjacencyOf } from '../../src/graph/analytics/adjacency';
import { betweennessScores, pageRankScores } from '../../src/graph/analytics/centrality';
import type { GraphSnapshot } from '../../src/store/ports';
import { seededRandom } from '../contract/fixtures';

/** A random graph with isolated nodes, self-loops, parallel relationships and varied weights. */
function randomSnapshot(nodes: number, edges: number, seed: number): GraphSnapshot {
  const random = seededRandom(seed);
  const ids = Array.from({ length: nodes }, (_, i) => `N${String(i).padStart(4, '0')}`);
  const list: GraphSnapshot['edges'] = [];
  for (let k = 0; k < edges; k++) {
    const a = ids[Math.floor(random() ** 2 * (nodes - 5))];
    const b = ids[Math.floor(random() * (nodes - 5))];
    list.push({ id: `E${String(k).padStart(5, '0')}`, source: a, target: b, weight: k % 7 === 0 ? 0 : 1 + Math.floor(random() * 4) });
  }
  return { nodes: ids.map((id) => ({ id, entity_type: 'CONCEPT' })), edges: list, truncated: false };
}

/** The graph graphology would build: first relationship of a pair kept, self-loops left out. */
function reference(snapshot: GraphSnapshot): UndirectedGraph {
  const graph = new UndirectedGraph();
  for (const n of snapshot.nodes) graph.addNode(n.id);
  for (const e of snapshot.edges) {
    if (e.source === e.target || graph.hasEdge(e.source, e.target)) continue;
    graph.addEdge(e.source, e.target, { weight: e.weight > 0 ? e.weight : 1 });
  }
  return graph;
}

describe('centralities over compact adjacency', () => {
  const snapshot = randomSnapshot(400, 1_200, 7);

  it('lists each pair once, in both directions, with the first relationship weight or the summed weights', () => {
    const tiny: GraphSnapshot = {
      nodes: ['A', 'B', 'C'].map((id) => ({ id, entity_type: 'X' })),
      edges: [
        { id: '1', source: 'A', target: 'B', weight: 2 },
        { id: '2', source: 'B', target: 'A', weight: 3 },
        { id: '3', source: 'C', target: 'C', weight: 1 },
        { id: '4', source: 'B', target: 'Z', weight: 1 },
      ],
      truncated: false,
    };
    const first = adjacencyOf(tiny, 'first');
    expect([...first.starts]).toEqual([0, 1, 2, 2]);
    expect([...first.neighbours]).toEqual([1, 0]);
    expect([...first.weights]).toEqual([2, 2]);
    expect([...adjacencyOf(tiny, 'sum').weights]).toEqual([5, 5]);
  });

  it('gives the PageRank of graphology-metrics (weighted, dangling nodes included) to 1e-9', () => {
    const want = pagerank(reference(snapshot), { getEdgeWeight: 'weight', alpha: 0.85, maxIterations: 1000, tolerance: 1e-8 });
    const got = pageRankScores(snapshot);
    expect(got.size).toBe(400);
    for (const [id, score] of got) expect(Math.abs(score - want[id])).toBeLessThan(1e-9);
  });

  it('gives the exact normalised betweenness of graphology-metrics up to 1,000 entities', () => {
    const want = betweenness(reference(snapshot), { normalized: true, getEdgeWeight: null });
    const got = betweennessScores(snapshot);
    expect(got.approximate).toBe(false);
    for (const [id, score] of got.scores) expect(Math.abs(score - want[id])).toBeLessThan(1e-9);
  });

  it('estimates betweenness from 256 sources above 1,000 entities, close to the exact value for the hubs', () => {
    const large = randomSnapshot(1_500, 4_000, 11);
    const got = betweennessScores(large);
    expect(got.approximate).toBe(true);
    const want = betweenness(reference(large), { normalized: true, getEdgeWeight: null });
    const hubs = Object.entries(want)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5);
    for (const [id, score] of hubs) expect(Math.abs((got.scores.get(id) as number) - score) / score).toBeLessThan(0.25);
  });
});
