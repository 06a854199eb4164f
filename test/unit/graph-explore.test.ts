import { exploreGraph, graphStats } from '../../src/graph/explore';
import { NotFoundError } from '../../src/domain/errors';
import { MemoryGraphStore } from '../../src/store/memory';
import { makeEntity, makeRelationship } from '../contract/fixtures';
import { ReferenceGraph, randomGraph } from '../contract/graph-reference';
import { scope } from './graph-fixtures';

describe('exploreGraph over the embedded graph store', () => {
  const graph = new MemoryGraphStore();
  const world = randomGraph(7, 300, 700);
  const reference = new ReferenceGraph(world);
  const edgeIds = (ids: string[]) => {
    const members = new Set(ids);
    return world.relationships
      .filter((r) => members.has(r.source) && members.has(r.target))
      .map((r) => r.id)
      .sort();
  };

  beforeAll(async () => {
    await graph.upsertEntities(scope, world.entities);
    await graph.upsertRelationships(scope, world.relationships);
  });

  it.each([
    ['N0000', 1, 1000],
    ['N0003', 2, 1000],
    ['N0003', 2, 25],
    ['N0150', 3, 60],
    ['N0010', 0, 10],
  ])('returns the reference BFS from %s (depth %i, max %i) with every edge among the nodes', async (start, depth, max) => {
    const view = await exploreGraph(graph, scope, { startNode: start, depth, maxNodes: max });
    const expected = reference.bfs(start, depth, max);
    expect(view.nodes.map((n) => n.id)).toEqual(expected.ids);
    expect(view.is_truncated).toBe(expected.truncated);
    expect(view.edges.map((e) => e.id).sort()).toEqual(edgeIds(expected.ids));
    expect(view.total_nodes).toBe(300);
    expect(view.total_edges).toBe(world.relationships.length);
  });

  it('reports whole-graph degrees on nodes, not degrees within the returned subgraph', async () => {
    const view = await exploreGraph(graph, scope, { startNode: 'N0003', depth: 1, maxNodes: 5 });
    for (const node of view.nodes) expect(node.degree).toBe(reference.degree.get(node.id));
  });

  it('normalises the start node: lower case and spaces find the entity id', async () => {
    await graph.upsertEntities(scope, [makeEntity('ADA_LOVELACE', { name: 'Ada Lovelace' })]);
    await graph.upsertRelationships(scope, [makeRelationship('ADA_LOVELACE', 'N0001')]);
    const view = await exploreGraph(graph, scope, { startNode: '  ada   lovelace ', depth: 1, maxNodes: 10 });
    expect(view.nodes[0]).toMatchObject({ id: 'ADA_LOVELACE', label: 'Ada Lovelace', node_type: 'PERSON', degree: 1 });
    expect(view.nodes.map((n) => n.id)).toEqual(['ADA_LOVELACE', 'N0001']);
    await graph.deleteEntities(scope, ['ADA_LOVELACE']);
  });

  it('throws a not-found error for an unknown start node', async () => {
    const error = await exploreGraph(graph, scope, { startNode: 'nobody here', depth: 2, maxNodes: 10 }).catch((e) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({
      kind: 'not_found',
      message: expect.stringContaining('NOBODY_HERE'),
    });
  });

  it('without a start node returns the most connected nodes, truncated when the graph is larger', async () => {
    const view = await exploreGraph(graph, scope, { depth: 2, maxNodes: 40 });
    expect(view.nodes.map((n) => n.id)).toEqual(reference.topByDegree(40));
    expect(view.edges.map((e) => e.id).sort()).toEqual(edgeIds(reference.topByDegree(40)));
    expect(view.is_truncated).toBe(true);
    const all = await exploreGraph(graph, scope, { depth: 2, maxNodes: 1000 });
    expect(all.nodes).toHaveLength(300);
    expect(all.edges).toHaveLength(world.relationships.length);
    expect(all.is_truncated).toBe(false);
  });

  it('computes stats: type counts, average degree 2E/N and density 2E/(N(N-1))', async () => {
    const stats = await graphStats(graph, scope);
    const n = 300;
    const e = world.relationships.length;
    expect(stats).toMatchObject({ total_nodes: n, node_count: n, total_edges: e });
    expect(stats.avg_degree).toBeCloseTo((2 * e) / n, 10);
    expect(stats.density).toBeCloseTo((2 * e) / (n * (n - 1)), 10);
    const byType: Record<string, number> = {};
    for (const entity of world.entities) byType[entity.entity_type] = (byType[entity.entity_type] ?? 0) + 1;
    expect(stats.node_types).toEqual(byType);
    expect(Object.values(stats.edge_types).reduce((a, b) => a + b, 0)).toBe(e);
  });

  it('gives zero ratios for an empty graph and for a single node', async () => {
    const empty = await graphStats(graph, { workspaceId: 'empty' });
    expect(empty).toEqual({ total_nodes: 0, node_count: 0, total_edges: 0, node_types: {}, edge_types: {}, avg_degree: 0, density: 0 });
    await graph.upsertEntities({ workspaceId: 'single' }, [makeEntity('ONE')]);
    expect(await graphStats(graph, { workspaceId: 'single' })).toMatchObject({ total_nodes: 1, avg_degree: 0, density: 0 });
  });
});
