import { UndirectedGraph } from 'graphology';
import pagerank from 'graphology-metrics/centrality/pagerank';
import type { GraphSnapshot } from '../../store/ports';

/** Graphs above this many entities get betweenness from a sample of source nodes (Brandes with pivots). */
export const EXACT_BETWEENNESS_MAX_NODES = 1_000;
export const BETWEENNESS_PIVOTS = 256;

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function round(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}

/** Weighted PageRank (damping 0.85) over the snapshot, built in id order so both storage modes agree. */
export function pageRankScores(snapshot: GraphSnapshot): Map<string, number> {
  const graph = new UndirectedGraph();
  for (const n of snapshot.nodes) graph.addNode(n.id);
  for (const e of snapshot.edges) {
    if (e.source === e.target || graph.hasEdge(e.source, e.target)) continue;
    graph.addEdge(e.source, e.target, { weight: e.weight > 0 ? e.weight : 1 });
  }
  if (graph.order === 0) return new Map();
  const scores = pagerank(graph, { getEdgeWeight: 'weight', alpha: 0.85, maxIterations: 1_000, tolerance: 1e-8 });
  return new Map(Object.entries(scores).map(([id, s]) => [id, round(s)]));
}

/**
 * Betweenness (unweighted shortest paths, Brandes), normalised by (n-1)(n-2)/2. Above EXACT_BETWEENNESS_MAX_NODES
 * the sums come from BETWEENNESS_PIVOTS evenly spaced source nodes (in id order) and are scaled up: an estimate.
 */
export function betweennessScores(snapshot: GraphSnapshot): { scores: Map<string, number>; approximate: boolean } {
  const ids = snapshot.nodes.map((n) => n.id);
  const index = new Map(ids.map((id, i) => [id, i]));
  const adjacency: number[][] = ids.map(() => []);
  const seenPairs = new Set<string>();
  for (const e of snapshot.edges) {
    const a = index.get(e.source);
    const b = index.get(e.target);
    if (a === undefined || b === undefined || a === b) continue;
    const key = a < b ? `${a}/${b}` : `${b}/${a}`;
    if (seenPairs.has(key)) continue;
    seenPairs.add(key);
    adjacency[a].push(b);
    adjacency[b].push(a);
  }
  const n = ids.length;
  const approximate = n > EXACT_BETWEENNESS_MAX_NODES;
  const sources = approximate
    ? Array.from({ length: BETWEENNESS_PIVOTS }, (_, k) => Math.floor((k * n) / BETWEENNESS_PIVOTS))
    : ids.map((_, i) => i);
  const centrality = new Float64Array(n);
  const sigma = new Float64Array(n);
  const distance = new Int32Array(n);
  const delta = new Float64Array(n);
  const order = new Int32Array(n);
  const queue = new Int32Array(n);
  const predecessors: number[][] = ids.map(() => []);
  for (const s of sources) {
    sigma.fill(0);
    distance.fill(-1);
    delta.fill(0);
    for (const p of predecessors) p.length = 0;
    sigma[s] = 1;
    distance[s] = 0;
    let head = 0;
    let tail = 0;
    let visited = 0;
    queue[tail++] = s;
    while (head < tail) {
      const v = queue[head++];
      order[visited++] = v;
      for (const w of adjacency[v]) {
        if (distance[w] < 0) {
          distance[w] = distance[v] + 1;
          queue[tail++] = w;
        }
        if (distance[w] === distance[v] + 1) {
          sigma[w] += sigma[v];
          predecessors[w].push(v);
        }
      }
    }
    for (let i = visited - 1; i >= 0; i--) {
      const w = order[i];
      for (const v of predecessors[w]) delta[v] += (sigma[v] / sigma[w]) * (1 + delta[w]);
      if (w !== s) centrality[w] += delta[w];
    }
  }
  // Each pair is counted from both ends in an undirected graph; sampling scales the sums back up.
  const scale = (approximate ? n / sources.length : 1) / 2;
  const norm = n > 2 ? ((n - 1) * (n - 2)) / 2 : 1;
  const scores = new Map<string, number>();
  ids.forEach((id, i) => scores.set(id, round((centrality[i] * scale) / norm)));
  return { scores, approximate };
}

/** The `limit` best of a score map, highest first, ties by id. */
export function topOf(scores: Map<string, number>, limit: number): Array<{ id: string; score: number }> {
  return [...scores]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || compare(a.id, b.id))
    .slice(0, Math.max(0, limit));
}
