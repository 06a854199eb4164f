import { NotFoundError, UnavailableError } from '../../domain/errors';
import { normalizeEntityId } from '../../domain/ids';
import type { Scope } from '../../domain/types';
import type { Stores } from '../../store/ports';
import { betweennessScores, pageRankScores, topOf } from './centrality';

/** Entities loaded for PageRank, betweenness and bridges at most (the most connected are kept). */
export const ANALYTICS_MAX_NODES = 50_000;
/** Every analytics call answers within this long or fails with 503. */
export const ANALYTICS_TIMEOUT_MS = 30_000;

export const ANALYTICS_LIMITS = {
  maxHops: { default: 4, max: 8 },
  hops: { default: 2, max: 4 },
  paths: { default: 10, max: 100 },
  nodes: { default: 100, max: 1_000 },
  top: { default: 10, max: 500 },
} as const;

export type CentralityMetric = 'degree' | 'pagerank' | 'betweenness';

interface EntityRef {
  id: string;
  name: string;
  entity_type: string;
}

export interface AnalyticsService {
  shortestPaths(
    scope: Scope,
    q: { from: string; to: string; maxHops: number; limit: number },
  ): Promise<{ paths: EntityRef[][]; length: number | null }>;
  neighbourhood(
    scope: Scope,
    q: { entity: string; hops: number; types?: string[]; limit: number },
  ): Promise<{ entity: EntityRef; neighbours: Array<EntityRef & { distance: number }> }>;
  topEntities(
    scope: Scope,
    q: { metric: CentralityMetric; limit: number },
  ): Promise<{ metric: CentralityMetric; approximate: boolean; truncated: boolean; entities: Array<EntityRef & { score: number }> }>;
  coMentioned(
    scope: Scope,
    q: { entity: string; limit: number },
  ): Promise<{ entity: EntityRef; entities: Array<EntityRef & { shared_chunks: number }> }>;
  communityBridges(scope: Scope, q: { limit: number }): Promise<CommunityBridges>;
  sharedDocuments(
    scope: Scope,
    q: { limit: number },
  ): Promise<{ pairs: Array<{ document_a: string; document_b: string; shared_entities: number }> }>;
}

export interface CommunityBridges {
  /** Level-0 communities of the workspace (none: run the community rebuild first). */
  communities: number;
  pairs: Array<{ community_a: string; community_b: string; relationships: number; weight: number; examples: string[] }>;
  /** Entities with relationships into the most other communities. */
  entities: Array<EntityRef & { community_id: string; communities_reached: number }>;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

async function bounded<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new UnavailableError(`${what} did not finish within ${ANALYTICS_TIMEOUT_MS / 1000} s; narrow it down`, 'graph_storage')),
      ANALYTICS_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Graph analytics of one workspace (docs/api.md, Analytics): the store port answers, centralities run here. */
export function createAnalyticsService(stores: Pick<Stores, 'analytics' | 'graph' | 'communities'>): AnalyticsService {
  const refs = async (scope: Scope, ids: string[]): Promise<Map<string, EntityRef>> => {
    const found = await stores.graph.getEntities(scope, [...new Set(ids)]);
    return new Map(found.map((e) => [e.id, { id: e.id, name: e.name, entity_type: e.entity_type }]));
  };
  /** An entity by id or name (any case and spacing); 404 when the workspace has none. */
  const resolve = async (scope: Scope, raw: string): Promise<EntityRef> => {
    for (const id of [raw, normalizeEntityId(raw)]) {
      const e = await stores.graph.getEntity(scope, id);
      if (e) return { id: e.id, name: e.name, entity_type: e.entity_type };
    }
    throw new NotFoundError(`entity '${raw}' not found`);
  };
  /** Each item with its entity's name and type (its id as name when the entity is gone). */
  const withRefs = async <T extends { id: string }>(scope: Scope, items: T[]) => {
    const found = await refs(
      scope,
      items.map((item) => item.id),
    );
    return items.map((item) => ({ ...(found.get(item.id) ?? { id: item.id, name: item.id, entity_type: '' }), ...item }));
  };

  return {
    async shortestPaths(scope, q) {
      const [from, to] = [await resolve(scope, q.from), await resolve(scope, q.to)];
      const paths = await bounded(stores.analytics.shortestPaths(scope, from.id, to.id, q.maxHops, q.limit), 'the path search');
      const found = await refs(scope, paths.flat());
      return { paths: paths.map((p) => p.map((id) => found.get(id) as EntityRef)), length: paths.length ? paths[0].length - 1 : null };
    },
    async neighbourhood(scope, q) {
      const entity = await resolve(scope, q.entity);
      const near = await bounded(
        stores.analytics.neighbourhood(scope, entity.id, { hops: q.hops, types: q.types, limit: q.limit }),
        'the neighbourhood',
      );
      return { entity, neighbours: await withRefs(scope, near) };
    },
    async topEntities(scope, q) {
      if (q.metric === 'degree') {
        const top = await bounded(stores.analytics.topByDegree(scope, q.limit), 'the degree ranking');
        return {
          metric: q.metric,
          approximate: false,
          truncated: false,
          entities: await withRefs(scope, top),
        };
      }
      const snapshot = await bounded(stores.analytics.snapshot(scope, ANALYTICS_MAX_NODES), 'loading the graph');
      const { scores, approximate } =
        q.metric === 'pagerank' ? { scores: pageRankScores(snapshot), approximate: false } : betweennessScores(snapshot);
      const top = topOf(scores, q.limit);
      return {
        metric: q.metric,
        approximate: approximate || snapshot.truncated,
        truncated: snapshot.truncated,
        entities: await withRefs(scope, top),
      };
    },
    async coMentioned(scope, q) {
      const entity = await resolve(scope, q.entity);
      const list = await bounded(stores.analytics.coMentioned(scope, entity.id, q.limit), 'the co-mention search');
      return {
        entity,
        entities: await withRefs(scope, list),
      };
    },
    async communityBridges(scope, q) {
      const communities = (await stores.communities.all(scope)).filter((c) => c.level === 0);
      if (communities.length === 0) return { communities: 0, pairs: [], entities: [] };
      const home = new Map<string, string>();
      for (const c of communities) for (const id of c.member_ids) home.set(id, c.id);
      const snapshot = await bounded(stores.analytics.snapshot(scope, ANALYTICS_MAX_NODES), 'loading the graph');
      const pairs = new Map<string, CommunityBridges['pairs'][number]>();
      const reached = new Map<string, Set<string>>();
      for (const e of snapshot.edges) {
        const a = home.get(e.source);
        const b = home.get(e.target);
        if (!a || !b || a === b) continue;
        const [x, y] = compare(a, b) < 0 ? [a, b] : [b, a];
        const key = `${x}\u0000${y}`;
        const pair = pairs.get(key) ?? { community_a: x, community_b: y, relationships: 0, weight: 0, examples: [] };
        pair.relationships++;
        pair.weight += e.weight;
        if (pair.examples.length < 5) pair.examples.push(e.id);
        pairs.set(key, pair);
        for (const [end, other] of [
          [e.source, b],
          [e.target, a],
        ]) {
          const set = reached.get(end) ?? new Set<string>();
          set.add(other);
          reached.set(end, set);
        }
      }
      const topPairs = [...pairs.values()]
        .map((p) => ({ ...p, weight: Math.round(p.weight * 1e6) / 1e6 }))
        .sort(
          (a, b) =>
            b.relationships - a.relationships ||
            b.weight - a.weight ||
            compare(a.community_a, b.community_a) ||
            compare(a.community_b, b.community_b),
        )
        .slice(0, q.limit);
      const topEntities = [...reached]
        .map(([id, set]) => ({ id, community_id: home.get(id) as string, communities_reached: set.size }))
        .sort((a, b) => b.communities_reached - a.communities_reached || compare(a.id, b.id))
        .slice(0, q.limit);
      return {
        communities: communities.length,
        pairs: topPairs,
        entities: await withRefs(scope, topEntities),
      };
    },
    async sharedDocuments(scope, q) {
      return { pairs: await bounded(stores.analytics.documentsSharingEntities(scope, q.limit), 'the document comparison') };
    },
  };
}
