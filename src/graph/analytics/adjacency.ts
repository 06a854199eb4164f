import type { GraphSnapshot } from '../../store/ports';

/**
 * A snapshot as compact adjacency (CSR): node i's neighbours are `neighbours[starts[i] .. starts[i + 1])`, with
 * the weights of the same positions. Typed arrays and integer node indexes keep the centralities from
 * allocating per node or per visit, which is what made them slow on 50,000 entities.
 */
export interface Adjacency {
  /** Node ids in snapshot order; a node's index is its position here. */
  ids: string[];
  starts: Int32Array;
  neighbours: Int32Array;
  weights: Float64Array;
}

/** How relationships between the same two entities combine: the first (in snapshot order) or their sum. */
export type ParallelEdges = 'first' | 'sum';

/** A weight that is not a positive finite number counts as 1. */
export function edgeWeight(weight: number): number {
  return Number.isFinite(weight) && weight > 0 ? weight : 1;
}

/**
 * One undirected edge per pair of distinct snapshot nodes, in order of first appearance; self-loops and edges
 * to nodes outside the snapshot are left out.
 */
export function pairsOf(
  snapshot: GraphSnapshot,
  parallel: ParallelEdges,
): { index: Map<string, number>; a: Int32Array; b: Int32Array; weight: Float64Array } {
  const n = snapshot.nodes.length;
  const index = new Map<string, number>();
  snapshot.nodes.forEach((node, i) => index.set(node.id, i));
  const slot = new Map<number, number>(); // pair key (low * n + high) -> position in the arrays
  const a = new Int32Array(snapshot.edges.length);
  const b = new Int32Array(snapshot.edges.length);
  const weight = new Float64Array(snapshot.edges.length);
  let size = 0;
  for (const edge of snapshot.edges) {
    const x = index.get(edge.source);
    const y = index.get(edge.target);
    if (x === undefined || y === undefined || x === y) continue;
    const key = x < y ? x * n + y : y * n + x;
    const at = slot.get(key);
    if (at !== undefined) {
      if (parallel === 'sum') weight[at] += edgeWeight(edge.weight);
      continue;
    }
    slot.set(key, size);
    a[size] = x;
    b[size] = y;
    weight[size] = edgeWeight(edge.weight);
    size++;
  }
  return { index, a: a.subarray(0, size), b: b.subarray(0, size), weight: weight.subarray(0, size) };
}

/** Each node's neighbours in order of edge appearance, as graphology lists them for a graph built edge by edge. */
export function adjacencyOf(snapshot: GraphSnapshot, parallel: ParallelEdges): Adjacency {
  const { a, b, weight } = pairsOf(snapshot, parallel);
  const n = snapshot.nodes.length;
  const starts = new Int32Array(n + 1);
  for (let e = 0; e < a.length; e++) {
    starts[a[e] + 1]++;
    starts[b[e] + 1]++;
  }
  for (let i = 0; i < n; i++) starts[i + 1] += starts[i];
  const fill = starts.slice(0, n);
  const neighbours = new Int32Array(2 * a.length);
  const weights = new Float64Array(2 * a.length);
  for (let e = 0; e < a.length; e++) {
    neighbours[fill[a[e]]] = b[e];
    weights[fill[a[e]]++] = weight[e];
    neighbours[fill[b[e]]] = a[e];
    weights[fill[b[e]]++] = weight[e];
  }
  return { ids: snapshot.nodes.map((node) => node.id), starts, neighbours, weights };
}
