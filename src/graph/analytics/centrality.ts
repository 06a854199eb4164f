import type { GraphSnapshot } from '../../store/ports';
import { adjacencyOf } from './adjacency';

/** Graphs above this many entities get betweenness from a sample of source nodes (Brandes with pivots). */
export const EXACT_BETWEENNESS_MAX_NODES = 1_000;
export const BETWEENNESS_PIVOTS = 256;
const PAGERANK_MAX_ITERATIONS = 1_000;
const PAGERANK_TOLERANCE = 1e-8;

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function round(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}

/**
 * Weighted PageRank (damping 0.85, dangling mass spread evenly), the power iteration of graphology-metrics run
 * over compact adjacency: it stops when the summed change is below n * 1e-8, or after 1,000 iterations.
 */
export function pageRankScores(snapshot: GraphSnapshot): Map<string, number> {
  const { ids, starts, neighbours, weights } = adjacencyOf(snapshot, 'first');
  const n = ids.length;
  if (n === 0) return new Map();
  const alpha = 0.85;
  const share = new Float64Array(neighbours.length); // an edge's part of its node's weighted degree
  const dangling: number[] = [];
  for (let i = 0; i < n; i++) {
    let degree = 0;
    for (let j = starts[i]; j < starts[i + 1]; j++) degree += weights[j];
    if (degree === 0) dangling.push(i);
    for (let j = starts[i]; j < starts[i + 1]; j++) share[j] = weights[j] / degree;
  }
  let x = new Float64Array(n).fill(1 / n);
  let next = new Float64Array(n);
  for (let iteration = 0; iteration < PAGERANK_MAX_ITERATIONS; iteration++) {
    next.fill(0);
    let dangleSum = 0;
    for (const i of dangling) dangleSum += x[i];
    const base = (alpha * dangleSum + 1 - alpha) / n;
    for (let i = 0; i < n; i++) {
      const flow = alpha * x[i];
      for (let j = starts[i]; j < starts[i + 1]; j++) next[neighbours[j]] += flow * share[j];
      next[i] += base;
    }
    let error = 0;
    for (let i = 0; i < n; i++) error += Math.abs(next[i] - x[i]);
    [x, next] = [next, x];
    if (error < n * PAGERANK_TOLERANCE) break;
  }
  const scores = new Map<string, number>();
  for (let i = 0; i < n; i++) scores.set(ids[i], round(x[i]));
  return scores;
}

/**
 * Betweenness (unweighted shortest paths, Brandes), normalised by (n-1)(n-2)/2. Above EXACT_BETWEENNESS_MAX_NODES
 * the sums come from BETWEENNESS_PIVOTS evenly spaced source nodes (in id order) and are scaled up: an estimate.
 * The shortest-path steps (v before w) of one search are kept in one flat list in the order they were found; read
 * backwards, every step out of w comes before the steps into w, so dependencies accumulate without lists per node.
 */
export function betweennessScores(snapshot: GraphSnapshot): { scores: Map<string, number>; approximate: boolean } {
  const { ids, starts, neighbours } = adjacencyOf(snapshot, 'first');
  const n = ids.length;
  const approximate = n > EXACT_BETWEENNESS_MAX_NODES;
  const sources = approximate
    ? Array.from({ length: BETWEENNESS_PIVOTS }, (_, k) => Math.floor((k * n) / BETWEENNESS_PIVOTS))
    : ids.map((_, i) => i);
  const centrality = new Float64Array(n);
  const sigma = new Float64Array(n);
  const distance = new Int32Array(n).fill(-1);
  const delta = new Float64Array(n);
  const order = new Int32Array(n); // nodes in the order the search reached them
  const stepFrom = new Int32Array(neighbours.length);
  const stepTo = new Int32Array(neighbours.length);
  for (const s of sources) {
    sigma[s] = 1;
    distance[s] = 0;
    let head = 0;
    let visited = 0;
    let steps = 0;
    order[visited++] = s;
    while (head < visited) {
      const v = order[head++];
      const next = distance[v] + 1;
      for (let j = starts[v]; j < starts[v + 1]; j++) {
        const w = neighbours[j];
        if (distance[w] < 0) {
          distance[w] = next;
          order[visited++] = w;
        }
        if (distance[w] === next) {
          sigma[w] += sigma[v];
          stepFrom[steps] = v;
          stepTo[steps++] = w;
        }
      }
    }
    for (let k = steps - 1; k >= 0; k--) {
      const v = stepFrom[k];
      const w = stepTo[k];
      delta[v] += (sigma[v] / sigma[w]) * (1 + delta[w]);
    }
    // Reset only what this search touched.
    for (let k = 0; k < visited; k++) {
      const v = order[k];
      if (v !== s) centrality[v] += delta[v];
      sigma[v] = 0;
      distance[v] = -1;
      delta[v] = 0;
    }
  }
  // Each pair is counted from both ends in an undirected graph; sampling scales the sums back up.
  const scale = (approximate ? n / sources.length : 1) / 2;
  const norm = n > 2 ? ((n - 1) * (n - 2)) / 2 : 1;
  const scores = new Map<string, number>();
  for (let i = 0; i < n; i++) scores.set(ids[i], round((centrality[i] * scale) / norm));
  return { scores, approximate };
}

/** The `limit` best of a score map, highest first, ties by id. */
export function topOf(scores: Map<string, number>, limit: number): Array<{ id: string; score: number }> {
  return [...scores]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || compare(a.id, b.id))
    .slice(0, Math.max(0, limit));
}
