import { randomGraph } from '../contract/graph-reference';
import { type TestApp, startTestApp } from '../helpers/app';
import { type SseEvent, type SseReader, eventIdOf, eventually, openSseReader } from './graph-sse';

const STORY = [
  'Ada Lovelace worked with Charles Babbage in London.',
  'Charles Babbage designed the Analytical Engine at Cambridge University.',
  'Ada Lovelace wrote notes about the Analytical Engine.',
].join('\n');

describe('graph stream API', () => {
  let app: TestApp;
  let idle = 0;
  const world = randomGraph(5, 60, 120);
  const open: SseReader[] = [];

  async function stream(query: string, workspace?: string): Promise<SseReader> {
    const controller = new AbortController();
    const res = await app.request(`/api/v1/graph/stream${query}`, {
      headers: { Accept: 'text/event-stream' },
      signal: controller.signal,
      workspace,
    });
    const reader = await openSseReader(res, controller);
    open.push(reader);
    return reader;
  }

  const isDone = (e: SseEvent) => e.type === 'done';

  beforeAll(async () => {
    app = await startTestApp();
    // Subscriptions of the service's own (the community refresh); streams come on top of these.
    idle = app.rt.events.listenerCount();
    const scope = { workspaceId: app.workspace };
    await app.rt.stores.graph.upsertEntities(scope, world.entities);
    await app.rt.stores.graph.upsertRelationships(scope, world.relationships);
  });
  afterEach(() => open.splice(0).forEach((r) => r.close()));
  afterAll(() => app.close());

  it.each([
    ['?max_nodes=30&batch_size=7', '?max_nodes=30'],
    ['?start_node=n0003&depth=2&max_nodes=25&batch_size=4', '?start_node=n0003&depth=2&max_nodes=25'],
    ['?start_node=N0010&depth=1', '?start_node=N0010&depth=1'],
  ])('sends a snapshot equal to /graph for the same parameters (%s)', async (streamQuery, graphQuery) => {
    const graph = (await (await app.request(`/api/v1/graph${graphQuery}`)).json()) as {
      nodes: unknown[];
      edges: unknown[];
      total_nodes: number;
      total_edges: number;
    };
    const reader = await stream(streamQuery);
    expect(reader.status).toBe(200);
    expect(reader.contentType).toContain('text/event-stream');
    const events = await reader.until(isDone);
    const [metadata] = events;
    const batchSize = Number(new URLSearchParams(streamQuery).get('batch_size') ?? 100);
    expect(metadata).toMatchObject({
      type: 'metadata',
      total_nodes: graph.total_nodes,
      total_edges: graph.total_edges,
      snapshot_nodes: graph.nodes.length,
      snapshot_edges: graph.edges.length,
      batch_size: batchSize,
    });
    const nodeBatches = events.filter((e) => e.type === 'nodes').map((e) => e.nodes as unknown[]);
    const edgeBatches = events.filter((e) => e.type === 'edges').map((e) => e.edges as unknown[]);
    expect(nodeBatches.flat()).toEqual(graph.nodes);
    expect(edgeBatches.flat()).toEqual(graph.edges);
    expect([...nodeBatches, ...edgeBatches].every((b) => b.length > 0 && b.length <= batchSize)).toBe(true);
    expect(events.map((e) => e.type)).toEqual(['metadata', ...nodeBatches.map(() => 'nodes'), ...edgeBatches.map(() => 'edges'), 'done']);
    expect(events.at(-1)).toEqual({ type: 'done', snapshot: true, done: true });
  });

  it('refuses an unknown start node with 404 problem details instead of opening a stream', async () => {
    const res = await app.request('/api/v1/graph/stream?start_node=nobody');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect((await app.request('/api/v1/graph/stream?depth=9')).status).toBe(422);
  });

  it('accepts a snapshot larger than one /graph answer (max_nodes up to 10000) and refuses more with 422', async () => {
    const workspace = await app.createWorkspace();
    const large = randomGraph(9, 1500, 2500);
    await app.rt.stores.graph.upsertEntities({ workspaceId: workspace }, large.entities);
    await app.rt.stores.graph.upsertRelationships({ workspaceId: workspace }, large.relationships);
    expect((await app.request('/api/v1/graph?max_nodes=5000', { workspace })).status).toBe(422);
    const reader = await stream('?max_nodes=5000&batch_size=1000', workspace);
    const events = await reader.until(isDone);
    expect(events[0]).toMatchObject({
      type: 'metadata',
      snapshot_nodes: 1500,
      snapshot_edges: large.relationships.length,
      is_truncated: false,
    });
    expect(events.filter((e) => e.type === 'nodes').flatMap((e) => e.nodes as unknown[])).toHaveLength(1500);
    const res = await app.request('/api/v1/graph/stream?max_nodes=10001');
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Array<{ field: string }> }).errors.map((e) => e.field)).toContain('max_nodes');
  });

  it('streams analyst edits of its own workspace only, with the current records', async () => {
    const reader = await stream('?max_nodes=5');
    await reader.until(isDone);
    const other = await app.workspaceNamed('elsewhere');
    await app.rt.stores.graph.upsertEntities({ workspaceId: other }, world.entities.slice(0, 3));
    expect(
      (await app.request('/api/v1/graph/entities/N0001', { method: 'PATCH', json: { description: 'elsewhere' }, workspace: other })).status,
    ).toBe(200);
    const res = await app.request('/api/v1/graph/entities/N0001', { method: 'PATCH', json: { description: 'Edited here' } });
    expect(res.status).toBe(200);
    const event = await reader.next();
    expect(event).toMatchObject({ type: 'node_updated', cause: 'edit', node: { id: 'N0001', description: 'Edited here' } });
  });

  it('streams a merge as node and edge events', async () => {
    const reader = await stream('?max_nodes=5');
    await reader.until(isDone);
    const res = await app.request('/api/v1/graph/entities/merge', { method: 'POST', json: { source_ids: ['N0059'], target_id: 'N0058' } });
    expect(res.status).toBe(200);
    const touching = world.relationships.filter((r) => r.source === 'N0059' || r.target === 'N0059');
    const events = await reader.until((e) => e.type === 'node_removed');
    expect(events[0]).toMatchObject({ type: 'node_updated', cause: 'merge', node: { id: 'N0058' } });
    expect(
      events
        .filter((e) => e.type === 'edge_removed')
        .map((e) => e.id)
        .sort(),
    ).toEqual(touching.map((r) => r.id).sort());
    expect(events.at(-1)).toEqual({ type: 'node_removed', id: 'N0059', cause: 'merge' });
  });

  it('sends heartbeat events carrying the stream position during silence at the configured interval', async () => {
    const previous = app.rt.graph.settings.streamKeepAliveMs;
    app.rt.graph.settings.streamKeepAliveMs = 100;
    try {
      const reader = await stream('?max_nodes=1');
      const done = (await reader.until(isDone)).at(-1) as SseEvent;
      const heartbeat = await reader.next();
      expect(heartbeat).toEqual({ type: 'heartbeat', at: expect.any(String) });
      expect(eventIdOf(heartbeat)).toBe(eventIdOf(done));
    } finally {
      app.rt.graph.settings.streamKeepAliveMs = previous;
    }
  });

  it('unsubscribes from graph changes when the client disconnects: the listener count returns to where it was', async () => {
    await eventually(() => app.rt.events.listenerCount() === idle);
    const first = await stream('?max_nodes=3');
    const second = await stream('?max_nodes=3');
    await first.until(isDone);
    await second.until(isDone);
    expect(app.rt.events.listenerCount()).toBe(idle + 2);
    first.close();
    second.close();
    await eventually(() => app.rt.events.listenerCount() === idle);
    expect(app.rt.events.listenerCount()).toBe(idle);
  });

  it('streams node_added while a document is ingested and node_removed when it is deleted', async () => {
    const workspace = `${app.workspace}-ingest`;
    const reader = await stream('', workspace);
    expect(await reader.until(isDone)).toHaveLength(2);
    const created = await app.request('/api/v1/documents', { method: 'POST', json: { content: STORY, title: 'Story' }, workspace });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const entities = (await (await app.request('/api/v1/graph/entities?limit=1000', { workspace })).json()) as {
      entities: Array<{ id: string }>;
    };
    expect(entities.entities.length).toBeGreaterThan(0);
    const expected = entities.entities.map((e) => e.id).sort();
    const added = new Set<string>();
    await reader.until((e) => {
      if (e.type === 'node_added') added.add((e.node as { id: string }).id);
      return expected.every((x) => added.has(x));
    });
    expect([...added].sort()).toEqual(expected);

    expect((await app.request(`/api/v1/documents/${id}`, { method: 'DELETE', workspace })).status).toBe(204);
    const removed = new Set<string>();
    await reader.until((e) => {
      if (e.type === 'node_removed') removed.add(e.id as string);
      return expected.every((x) => removed.has(x));
    });
    expect([...removed].sort()).toEqual(expected);
  });
});
