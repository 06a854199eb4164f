import { randomGraph } from '../contract/graph-reference';
import { makeChunk, makeDocument, makeEntity, makeRelationship } from '../contract/fixtures';
import { type TestApp, startTestApp } from '../helpers/app';

interface Node {
  id: string;
  degree: number;
  node_type: string;
  label: string;
}
interface Edge {
  id: string;
  source: string;
  target: string;
}
interface GraphBody {
  nodes: Node[];
  edges: Edge[];
  total_nodes: number;
  total_edges: number;
  is_truncated: boolean;
}
interface EntityItem {
  id: string;
  entity_type: string;
  degree: number;
  name: string;
}
interface RelationshipItem {
  id: string;
  source: string;
  target: string;
  relation_type: string;
}

/** The whole graph as the list endpoints show it, page by page. */
async function listAll(app: TestApp): Promise<{ entities: EntityItem[]; relationships: RelationshipItem[] }> {
  const entities: EntityItem[] = [];
  const relationships: RelationshipItem[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = (await (await app.request(`/api/v1/graph/entities?limit=100&offset=${offset}`)).json()) as {
      entities: EntityItem[];
      total: number;
    };
    entities.push(...page.entities);
    if (offset + 100 >= page.total) break;
  }
  for (let offset = 0; ; offset += 100) {
    const page = (await (await app.request(`/api/v1/graph/relationships?limit=100&offset=${offset}`)).json()) as {
      relationships: RelationshipItem[];
      total: number;
    };
    relationships.push(...page.relationships);
    if (offset + 100 >= page.total) break;
  }
  return { entities, relationships };
}

/** Brute force: levels of a plain BFS, each ordered by whole-graph degree (desc) then id, cut at maxNodes. */
function bruteForceBfs(all: { entities: EntityItem[]; relationships: RelationshipItem[] }, start: string, depth: number, max: number) {
  const neighbors = new Map(all.entities.map((e) => [e.id, new Set<string>()]));
  for (const r of all.relationships) {
    neighbors.get(r.source)!.add(r.target);
    neighbors.get(r.target)!.add(r.source);
  }
  const degree = new Map(all.entities.map((e) => [e.id, e.degree]));
  const seen = new Set([start]);
  const reached = [start];
  let level = [start];
  for (let d = 1; d <= depth; d++) {
    const next = new Set<string>();
    for (const node of level) for (const n of neighbors.get(node)!) if (!seen.has(n)) next.add(n);
    next.forEach((n) => seen.add(n));
    level = [...next].sort((a, b) => degree.get(b)! - degree.get(a)! || (a < b ? -1 : 1));
    reached.push(...level);
  }
  const ids = reached.slice(0, max);
  const members = new Set(ids);
  const edges = all.relationships.filter((r) => members.has(r.source) && members.has(r.target)).map((r) => r.id);
  return { ids, edges: edges.sort(), truncated: reached.length > max };
}

describe('graph exploration API', () => {
  let app: TestApp;
  const world = randomGraph(23, 150, 320);

  beforeAll(async () => {
    app = await startTestApp();
    const scope = { workspaceId: app.workspace };
    await app.rt.stores.graph.upsertEntities(scope, world.entities);
    await app.rt.stores.graph.upsertRelationships(scope, world.relationships);
  });
  afterAll(() => app.close());

  it('matches a brute-force BFS computed from the entity and relationship lists', async () => {
    const all = await listAll(app);
    expect(all.entities).toHaveLength(150);
    expect(all.relationships).toHaveLength(world.relationships.length);
    for (const [start, depth, max] of [
      ['N0002', 1, 1000],
      ['N0002', 2, 1000],
      ['N0040', 2, 30],
      ['N0120', 3, 75],
      ['N0005', 0, 100],
    ] as Array<[string, number, number]>) {
      const res = await app.request(`/api/v1/graph?start_node=${start}&depth=${depth}&max_nodes=${max}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as GraphBody;
      const expected = bruteForceBfs(all, start, depth, max);
      expect(body.nodes.map((n) => n.id)).toEqual(expected.ids);
      expect(body.edges.map((e) => e.id).sort()).toEqual(expected.edges);
      expect(body.is_truncated).toBe(expected.truncated);
      expect(body.total_nodes).toBe(150);
      expect(body.total_edges).toBe(world.relationships.length);
    }
  });

  it('truncates at max_nodes, nearest first, and says so', async () => {
    const body = (await (await app.request('/api/v1/graph?start_node=N0001&depth=5&max_nodes=7')).json()) as GraphBody;
    expect(body.nodes).toHaveLength(7);
    expect(body.nodes[0].id).toBe('N0001');
    expect(body.is_truncated).toBe(true);
  });

  it('without start_node returns the most connected nodes with whole-graph degrees', async () => {
    const all = await listAll(app);
    const body = (await (await app.request('/api/v1/graph?max_nodes=10')).json()) as GraphBody;
    const expected = [...all.entities].sort((a, b) => b.degree - a.degree || (a.id < b.id ? -1 : 1)).slice(0, 10);
    expect(body.nodes.map((n) => [n.id, n.degree])).toEqual(expected.map((e) => [e.id, e.degree]));
    expect(body.is_truncated).toBe(true);
    const whole = (await (await app.request('/api/v1/graph?max_nodes=1000')).json()) as GraphBody;
    expect(whole).toMatchObject({ is_truncated: false, total_nodes: 150 });
    expect(whole.nodes).toHaveLength(150);
    expect(whole.edges).toHaveLength(world.relationships.length);
  });

  it('accepts start_node in any case and spacing', async () => {
    const body = (await (await app.request('/api/v1/graph?start_node=%20n0002%20&depth=0')).json()) as GraphBody;
    expect(body.nodes.map((n) => n.id)).toEqual(['N0002']);
    expect(body.nodes[0]).toMatchObject({ label: 'N0002', node_type: expect.any(String), properties: { source_count: 1 } });
  });

  it.each([
    ['depth=6', 'depth'],
    ['depth=-1', 'depth'],
    ['max_nodes=1001', 'max_nodes'],
    ['max_nodes=0', 'max_nodes'],
    ['depth=two', 'depth'],
  ])('refuses %s with a 422 validation problem naming the field', async (query, field) => {
    const res = await app.request(`/api/v1/graph?${query}`);
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(((await res.json()) as { errors: Array<{ field: string }> }).errors[0].field).toBe(field);
  });

  it('answers 404 problem details for an unknown start node and for an entity of another workspace', async () => {
    const res = await app.request('/api/v1/graph?start_node=nobody');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({
      status: 404,
      type: expect.stringMatching(/\/not-found$/),
      detail: expect.stringContaining('NOBODY'),
    });
    const elsewhere = await app.request('/api/v1/graph?start_node=N0002', { workspace: `${app.workspace}-other` });
    expect(elsewhere.status).toBe(404);
    expect((await app.request('/api/v1/graph/entities/N0002', { workspace: `${app.workspace}-other` })).status).toBe(404);
  });

  it('computes stats consistent with the lists: type counts, 2E/N and 2E/(N(N-1))', async () => {
    const all = await listAll(app);
    const stats = (await (await app.request('/api/v1/graph/stats')).json()) as Record<string, unknown>;
    const n = all.entities.length;
    const e = all.relationships.length;
    const nodeTypes: Record<string, number> = {};
    for (const x of all.entities) nodeTypes[x.entity_type] = (nodeTypes[x.entity_type] ?? 0) + 1;
    const edgeTypes: Record<string, number> = {};
    for (const r of all.relationships) edgeTypes[r.relation_type] = (edgeTypes[r.relation_type] ?? 0) + 1;
    expect(stats).toMatchObject({ total_nodes: n, node_count: n, total_edges: e, node_types: nodeTypes, edge_types: edgeTypes });
    expect(stats.avg_degree).toBeCloseTo((2 * e) / n, 10);
    expect(stats.density).toBeCloseTo((2 * e) / (n * (n - 1)), 10);
    const sumOfDegrees = all.entities.reduce((s, x) => s + x.degree, 0);
    expect(sumOfDegrees).toBe(2 * e);
  });

  it('filters entities by type (any case) and by a name search, with total, limit and offset', async () => {
    const type = world.entities[0].entity_type;
    const expected = world.entities.filter((e) => e.entity_type === type).length;
    const page = (await (await app.request(`/api/v1/graph/entities?type=${type.toLowerCase()}&limit=5&offset=2`)).json()) as {
      entities: EntityItem[];
      total: number;
      limit: number;
      offset: number;
    };
    expect(page).toMatchObject({ total: expected, limit: 5, offset: 2 });
    expect(page.entities.every((e) => e.entity_type === type)).toBe(true);
    const search = (await (await app.request('/api/v1/graph/entities?search=n001')).json()) as { entities: EntityItem[]; total: number };
    expect(search.entities.map((e) => e.id)).toEqual([
      'N0010',
      'N0011',
      'N0012',
      'N0013',
      'N0014',
      'N0015',
      'N0016',
      'N0017',
      'N0018',
      'N0019',
    ]);
    expect((await app.request('/api/v1/graph/entities?limit=1001')).status).toBe(422);
  });

  it('pages by page and page_size, up to the last page a list can be asked for', async () => {
    const second = (await (await app.request('/api/v1/graph/relationships?page=2&page_size=3')).json()) as {
      limit: number;
      offset: number;
    };
    expect(second).toMatchObject({ limit: 3, offset: 3 });
    const last = (await (await app.request('/api/v1/graph/relationships?page=1000000&limit=1000')).json()) as { offset: number };
    expect(last.offset).toBe(999_999_000);
    // Further, the offset would leave the integers a JSON client reads exactly: refused, naming the field.
    const beyond = await app.request('/api/v1/graph/relationships?page=143380157568819&limit=896');
    expect(beyond.status).toBe(422);
    expect(await beyond.json()).toMatchObject({ errors: [expect.objectContaining({ field: 'page' })] });
  });

  it('filters relationships by type', async () => {
    const body = (await (await app.request('/api/v1/graph/relationships?type=works_with&limit=1000')).json()) as {
      relationships: RelationshipItem[];
      total: number;
    };
    expect(body.total).toBe(world.relationships.filter((r) => r.relation_type === 'WORKS_WITH').length);
    expect(body.relationships.every((r) => r.relation_type === 'WORKS_WITH')).toBe(true);
  });

  it('shows an entity with its relationships and its source chunks with line ranges and a snippet', async () => {
    const scope = { workspaceId: app.workspace };
    await app.rt.stores.documents.insert(scope, makeDocument({ id: 'doc-1', content: 'Intro.\nN0002 works here. Other text.' }));
    await app.rt.stores.chunks.upsertMany(scope, [
      makeChunk('doc-1', 0, { content: 'Intro.\nN0002 works here. Other text.', char_start: 0, char_end: 36, start_line: 1, end_line: 2 }),
    ]);
    const res = await app.request('/api/v1/graph/entities/n0002');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: string; degree: number; relationships: RelationshipItem[]; source_chunks: unknown[] };
    const touching = world.relationships.filter((r) => r.source === 'N0002' || r.target === 'N0002');
    expect(body.id).toBe('N0002');
    expect(body.degree).toBe(touching.length);
    expect(body.relationships.map((r) => r.id).sort()).toEqual(touching.map((r) => r.id).sort());
    expect(body.source_chunks).toEqual([
      { chunk_id: 'doc-1-chunk-0', document_id: 'doc-1', start_line: 1, end_line: 2, snippet: 'N0002 works here.' },
    ]);
  });
});

describe('documents of a graph record in responses', () => {
  let app: TestApp;
  const documents = Array.from({ length: 25 }, (_, i) => `doc-${String(i).padStart(2, '0')}`);
  const sources = { source_chunk_ids: documents.map((d) => `${d}-chunk-0`), document_ids: documents };
  const firstTwenty = documents.slice(0, 20);

  beforeAll(async () => {
    app = await startTestApp();
    const scope = { workspaceId: app.workspace };
    await app.rt.stores.graph.upsertEntities(scope, [makeEntity('SHARED', sources), makeEntity('SINGLE')]);
    await app.rt.stores.graph.upsertRelationships(scope, [makeRelationship('SHARED', 'SINGLE', sources)]);
  });
  afterAll(() => app.close());

  it('names the first 20 documents of a record and counts all of them in /graph, the lists and the entity detail', async () => {
    const graph = (await (await app.request('/api/v1/graph?start_node=SHARED')).json()) as {
      nodes: Array<{ id: string; properties: { document_ids: string[]; document_count: number } }>;
      edges: Array<{ properties: { document_ids: string[]; document_count: number } }>;
    };
    const node = (id: string) => graph.nodes.find((n) => n.id === id)!.properties;
    expect(node('SHARED')).toMatchObject({ document_ids: firstTwenty, document_count: 25 });
    expect(node('SINGLE')).toMatchObject({ document_ids: ['doc-1'], document_count: 1 });
    expect(graph.edges[0].properties).toMatchObject({ document_ids: firstTwenty, document_count: 25 });

    const entities = (await (await app.request('/api/v1/graph/entities?search=shared')).json()) as { entities: unknown[] };
    expect(entities.entities).toEqual([expect.objectContaining({ id: 'SHARED', document_ids: firstTwenty, document_count: 25 })]);
    const relationships = (await (await app.request('/api/v1/graph/relationships?source=SHARED')).json()) as { relationships: unknown[] };
    expect(relationships.relationships).toEqual([expect.objectContaining({ document_ids: firstTwenty, document_count: 25 })]);
    const detail = (await (await app.request('/api/v1/graph/entities/SHARED')).json()) as { relationships: unknown[] };
    expect(detail).toMatchObject({ document_ids: firstTwenty, document_count: 25 });
    expect(detail.relationships).toEqual([expect.objectContaining({ document_ids: firstTwenty, document_count: 25 })]);
  });
});
