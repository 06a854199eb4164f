import type { EntityRecord, RelationshipRecord } from '../../src/domain/types';
import { makeEntity, makeRelationship, seededRandom } from './fixtures';

export interface RandomGraph {
  entities: EntityRecord[];
  relationships: RelationshipRecord[];
}

const ENTITY_TYPES = ['PERSON', 'ORGANIZATION', 'LOCATION', 'CONCEPT'];
const RELATION_TYPES = ['WORKS_WITH', 'LOCATED_IN', 'RELATED_TO'];

/** A random simple undirected graph: a few hubs, many sparse nodes, some isolated ones. */
export function randomGraph(seed: number, nodes: number, edges: number): RandomGraph {
  const random = seededRandom(seed);
  const ids = Array.from({ length: nodes }, (_, i) => `N${String(i).padStart(4, '0')}`);
  const entities = ids.map((id) => makeEntity(id, { entity_type: ENTITY_TYPES[Math.floor(random() * ENTITY_TYPES.length)] }));
  const pick = () => ids[Math.floor(random() ** 2 * ids.length)]; // skewed: low ids become hubs
  const relationships = new Map<string, RelationshipRecord>();
  for (let attempts = 0; relationships.size < edges && attempts < edges * 20; attempts++) {
    const [a, b] = [pick(), pick()];
    if (a === b) continue;
    const r = makeRelationship(a, b, { relation_type: RELATION_TYPES[Math.floor(random() * RELATION_TYPES.length)] });
    relationships.set(r.id, r);
  }
  return { entities, relationships: [...relationships.values()] };
}

/** Plain adjacency, the reference the stores are checked against. */
export class ReferenceGraph {
  readonly neighbors = new Map<string, Set<string>>();
  readonly degree = new Map<string, number>();

  constructor(graph: RandomGraph) {
    for (const e of graph.entities) {
      this.neighbors.set(e.id, new Set());
      this.degree.set(e.id, 0);
    }
    for (const r of graph.relationships) {
      this.neighbors.get(r.source)!.add(r.target);
      this.neighbors.get(r.target)!.add(r.source);
      this.degree.set(r.source, this.degree.get(r.source)! + 1);
      this.degree.set(r.target, this.degree.get(r.target)! + 1);
    }
  }

  /** Levels of a plain BFS, each ordered by degree (desc) then id, concatenated, then cut at maxNodes. */
  bfs(start: string, depth: number, maxNodes: number): { ids: string[]; truncated: boolean } {
    if (!this.neighbors.has(start)) return { ids: [], truncated: false };
    const seen = new Set([start]);
    const reached = [start];
    let level = [start];
    for (let d = 1; d <= depth; d++) {
      const next = new Set<string>();
      for (const node of level) for (const n of this.neighbors.get(node)!) if (!seen.has(n)) next.add(n);
      for (const n of next) seen.add(n);
      level = [...next].sort((a, b) => this.degree.get(b)! - this.degree.get(a)! || (a < b ? -1 : a > b ? 1 : 0));
      reached.push(...level);
    }
    return { ids: reached.slice(0, maxNodes), truncated: reached.length > maxNodes };
  }

  topByDegree(limit: number): string[] {
    return [...this.degree.keys()]
      .sort((a, b) => this.degree.get(b)! - this.degree.get(a)! || (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, limit);
  }
}
