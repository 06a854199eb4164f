import { createHash } from 'node:crypto';
import { UndirectedGraph } from 'graphology';
import louvain from 'graphology-communities-louvain';
import type { GraphSnapshot } from '../../store/ports';
import { pairsOf } from '../analytics/adjacency';

/** Graphs with at least this many entities also keep Louvain's finer partitions as levels 1, 2, ... */
export const HIERARCHY_MIN_NODES = 1_000;
/** A finer level is kept only when it has at least this many times the communities of the level above. */
const LEVEL_SPLIT_FACTOR = 1.5;
export const MAX_LEVELS = 3;
/** Communities smaller than this (isolated entities, single pairs) get no record and no report. */
export const MIN_COMMUNITY_SIZE = 3;

export interface DetectedCommunity {
  id: string;
  level: number;
  parent_id: string | null;
  /** Sorted. */
  member_ids: string[];
}

export interface Detection {
  communities: DetectedCommunity[];
  levels: number;
  modularity: number;
}

/** A seeded generator: the same graph gives the same communities, in both storage modes. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function communityId(level: number, members: readonly string[]): string {
  const hash = createHash('sha256').update(members.join('\u0000')).digest('hex').slice(0, 16);
  return `community-${level}-${hash}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Louvain (weighted by relationship weight, seeded) over the snapshot. Level 0 is the final partition; on large
 * graphs the finer partitions of earlier passes become levels 1, 2, ... (at most MAX_LEVELS in all), each
 * community pointing at the level-0 (or coarser) community that contains it.
 */
export function detectCommunities(snapshot: GraphSnapshot): Detection {
  // Louvain reads nodes and edges in insertion order only, so the graph is keyed by node index (integer keys are
  // far cheaper for graphology to attach than entity ids) and parallel relationships are summed beforehand.
  const graph = new UndirectedGraph();
  const nodes = snapshot.nodes.map((node) => node.id);
  for (let i = 0; i < nodes.length; i++) graph.addNode(i);
  const pairs = pairsOf(snapshot, 'sum');
  for (let e = 0; e < pairs.a.length; e++) graph.addEdgeWithKey(e, pairs.a[e], pairs.b[e], { weight: pairs.weight[e] });
  if (graph.size === 0) return { communities: [], levels: 0, modularity: 0 };

  const result = louvain.detailed(graph, { getEdgeWeight: 'weight', rng: seededRandom(42), resolution: 1 });
  // Partitions from coarsest to finest, each as node index -> community number.
  const partitions: ArrayLike<number>[] = [Int32Array.from(nodes, (_, i) => result.communities[i])];
  if (nodes.length >= HIERARCHY_MIN_NODES) {
    let coarserCount = result.count;
    for (let i = result.dendrogram.length - 2; i >= 0 && partitions.length < MAX_LEVELS; i--) {
      const level = result.dendrogram[i];
      const count = new Set(level).size;
      if (count >= nodes.length || count < coarserCount * LEVEL_SPLIT_FACTOR) continue;
      partitions.push(level);
      coarserCount = count;
    }
  }

  const communities: DetectedCommunity[] = [];
  let above: Int32Array | null = null; // node index -> index in `communities` of its community one level up
  partitions.forEach((partition, level) => {
    const groups = new Map<number, number[]>();
    for (let i = 0; i < nodes.length; i++) {
      const list = groups.get(partition[i]);
      if (list) list.push(i);
      else groups.set(partition[i], [i]);
    }
    const here = new Int32Array(nodes.length).fill(-1);
    const made: DetectedCommunity[] = [];
    for (const indexes of groups.values()) {
      if (indexes.length < MIN_COMMUNITY_SIZE) continue;
      const member_ids = indexes.map((i) => nodes[i]).sort(compare);
      const parent = above && above[indexes[0]] >= 0 ? communities[above[indexes[0]]].id : null;
      const community: DetectedCommunity = { id: communityId(level, member_ids), level, parent_id: parent, member_ids };
      for (const i of indexes) here[i] = communities.length + made.length;
      made.push(community);
    }
    // Stable order within a level: by first member.
    const order = made.map((c, i) => ({ c, i })).sort((a, b) => compare(a.c.member_ids[0], b.c.member_ids[0]));
    const remap = new Map(order.map(({ i }, k) => [communities.length + i, communities.length + k]));
    for (let i = 0; i < here.length; i++) if (here[i] >= 0) here[i] = remap.get(here[i]) as number;
    communities.push(...order.map(({ c }) => c));
    above = here;
  });
  return { communities, levels: partitions.length, modularity: result.modularity };
}
