import type { ExplorerGraph } from './model';

/** How the nodes are placed: ForceAtlas2 in a worker, or one of the placements computed at once below. */
export type LayoutKind = 'force' | 'circular' | 'radial';

export const LAYOUTS: Array<{ kind: LayoutKind; label: string }> = [
  { kind: 'force', label: 'Force-directed' },
  { kind: 'circular', label: 'Circular' },
  { kind: 'radial', label: 'Radial from start' },
];

/** Nodes on one circle, grouped by type, the most connected first within a type. */
export function circular(graph: ExplorerGraph): void {
  const nodes = graph.nodes().sort((a, b) => {
    const x = graph.getNodeAttributes(a);
    const y = graph.getNodeAttributes(b);
    return x.entityType.localeCompare(y.entityType) || y.degree - x.degree || a.localeCompare(b);
  });
  const radius = Math.max(10, nodes.length * 3);
  nodes.forEach((node, i) => {
    const angle = (2 * Math.PI * i) / nodes.length - Math.PI / 2;
    graph.mergeNodeAttributes(node, { x: radius * Math.cos(angle), y: radius * Math.sin(angle) });
  });
}

/**
 * The centre node in the middle, every other node on the ring of its distance (in relationships) from it; nodes it
 * does not reach go on an outer ring. Within a ring, a node sits near the parent it was reached from.
 */
export function radial(graph: ExplorerGraph, centre: string): void {
  if (!graph.hasNode(centre)) return;
  const depth = new Map<string, number>([[centre, 0]]);
  const children = new Map<string, string[]>();
  const queue = [centre];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i];
    const next = graph
      .neighbors(node)
      .filter((n) => !depth.has(n))
      .sort();
    for (const n of next) depth.set(n, depth.get(node)! + 1);
    children.set(node, next);
    queue.push(...next);
  }
  // Each subtree gets a share of the circle proportional to its leaves.
  const leaves = new Map<string, number>();
  for (let i = queue.length - 1; i >= 0; i--) {
    const kids = children.get(queue[i]) ?? [];
    leaves.set(queue[i], kids.length === 0 ? 1 : kids.reduce((sum, k) => sum + leaves.get(k)!, 0));
  }
  const ring = 40;
  const place = (node: string, from: number, to: number) => {
    const r = depth.get(node)! * ring;
    const angle = (from + to) / 2;
    graph.mergeNodeAttributes(node, { x: r * Math.cos(angle), y: r * Math.sin(angle) });
    let start = from;
    for (const kid of children.get(node) ?? []) {
      const share = ((to - from) * leaves.get(kid)!) / leaves.get(node)!;
      place(kid, start, start + share);
      start += share;
    }
  };
  place(centre, 0, 2 * Math.PI);
  const outside = graph.filterNodes((n) => !depth.has(n));
  const outer = (Math.max(0, ...depth.values()) + 1) * ring;
  outside.forEach((node, i) => {
    const angle = (2 * Math.PI * i) / outside.length;
    graph.mergeNodeAttributes(node, { x: outer * Math.cos(angle), y: outer * Math.sin(angle) });
  });
}

/** The node a radial layout centres on: the start node when drawn, else the selection, else the most connected. */
export function radialCentre(graph: ExplorerGraph, candidates: Array<string | null>): string | null {
  for (const id of candidates) {
    if (!id) continue;
    if (graph.hasNode(id)) return id;
    const named = graph.findNode((_node, a) => a.label.toLowerCase() === id.trim().toLowerCase());
    if (named) return named;
  }
  let best: string | null = null;
  graph.forEachNode((node, a) => {
    if (best === null || a.degree > graph.getNodeAttribute(best, 'degree')) best = node;
  });
  return best;
}
