/**
 * Breadth-first walks shared by the analytics adapters: each adapter only says how to read one level (the
 * unseen neighbours of a frontier, with the node they were reached from), so both storage modes walk the
 * graph the same way and give the same answers.
 */

export interface LevelStep {
  /** A node reached from `parent` (one row per parent that reaches it). */
  id: string;
  parent: string;
  entity_type: string;
}

export type ReadLevel = (frontier: string[], seen: ReadonlySet<string>) => Promise<LevelStep[]>;

/** At most this many nodes are visited by one walk, whatever the arguments. */
export const MAX_VISITED = 50_000;

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function comparePaths(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compare(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/** Every shortest path from `from` to `to` of at most maxHops edges, sorted, at most `limit`. */
export async function allShortestPaths(
  readLevel: ReadLevel,
  from: string,
  to: string,
  maxHops: number,
  limit: number,
): Promise<string[][]> {
  if (from === to) return [[from]];
  const parents = new Map<string, string[]>([[from, []]]);
  const seen = new Set([from]);
  let frontier = [from];
  for (let hop = 1; hop <= maxHops && frontier.length > 0 && seen.size < MAX_VISITED; hop++) {
    const steps = await readLevel(frontier, seen);
    const next = new Set<string>();
    for (const step of steps) {
      if (seen.has(step.id)) continue;
      next.add(step.id);
      const list = parents.get(step.id) ?? [];
      if (!list.includes(step.parent)) list.push(step.parent);
      parents.set(step.id, list);
    }
    for (const id of next) seen.add(id);
    if (next.has(to)) return enumeratePaths(parents, from, to, limit);
    frontier = [...next].sort(compare);
  }
  return [];
}

/** Paths are built backwards from `to`; a cap on partial paths keeps a dense graph from exploding. */
function enumeratePaths(parents: Map<string, string[]>, from: string, to: string, limit: number): string[][] {
  const cap = Math.max(limit, 1) * 100;
  let partial: string[][] = [[to]];
  const done: string[][] = [];
  while (partial.length > 0) {
    const next: string[][] = [];
    for (const path of partial) {
      const head = path[0];
      if (head === from) {
        done.push(path);
        continue;
      }
      for (const parent of [...(parents.get(head) ?? [])].sort(compare)) {
        if (next.length < cap) next.push([parent, ...path]);
      }
    }
    partial = next;
  }
  return done.sort(comparePaths).slice(0, limit);
}

/** Nodes within `hops` of the start (start excluded) with their distance and type. */
export async function withinHops(
  readLevel: ReadLevel,
  start: string,
  hops: number,
): Promise<Array<{ id: string; entity_type: string; distance: number }>> {
  const seen = new Set([start]);
  const found: Array<{ id: string; entity_type: string; distance: number }> = [];
  let frontier = [start];
  for (let hop = 1; hop <= hops && frontier.length > 0 && seen.size < MAX_VISITED; hop++) {
    const steps = await readLevel(frontier, seen);
    const next: string[] = [];
    for (const step of steps) {
      if (seen.has(step.id)) continue;
      seen.add(step.id);
      next.push(step.id);
      found.push({ id: step.id, entity_type: step.entity_type, distance: hop });
    }
    frontier = next.sort(compare);
  }
  return found.sort((a, b) => a.distance - b.distance || compare(a.id, b.id));
}
