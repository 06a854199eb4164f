import type { EntityRecord, RelationshipRecord } from '../../src/domain/types';
import { makeEntity, makeRelationship } from '../contract/fixtures';
import { type TestApp, startTestApp } from '../helpers/app';
import { type SseEvent, type SseReader, eventIdOf, eventually, openSseReader } from './graph-sse';

/**
 * The graph stream's scope and position: a subscriber follows a subgraph (start node and depth, entity types, a set
 * of ids) and receives only changes that touch it; every event has an id; Last-Event-ID resumes exactly after it
 * within the replay window; slow subscribers are dropped with a final event.
 */

/** Two components that share nothing: chains A0-A1-A2-A3 and B0-B1-B2-B3, plus loose nodes. */
const CHAINS = ['A', 'B'].flatMap((c) => [0, 1, 2, 3].map((i) => makeEntity(`${c}${i}`, { entity_type: i % 2 ? 'LOCATION' : 'PERSON' })));
const LOOSE = [makeEntity('A_FAR', { entity_type: 'PERSON' }), makeEntity('B_FAR', { entity_type: 'PERSON' })];
const LINKS = ['A', 'B'].flatMap((c) => [0, 1, 2].map((i) => makeRelationship(`${c}${i}`, `${c}${i + 1}`)));

const isDone = (e: SseEvent) => e.type === 'done';
/** Entity ids an event is about. */
const touched = (e: SseEvent): string[] => {
  if (e.node) return [(e.node as { id: string }).id];
  if (e.edge) return [(e.edge as { source: string }).source, (e.edge as { target: string }).target];
  if (e.type === 'node_removed') return [e.id as string];
  if (e.type === 'edge_removed') return [e.source as string, e.target as string];
  return [];
};

describe('graph stream scope, resume and slow subscribers', () => {
  let app: TestApp;
  const open: SseReader[] = [];

  async function stream(query: string, init: { workspace?: string; lastEventId?: string; on?: TestApp } = {}): Promise<SseReader> {
    const controller = new AbortController();
    const headers: Record<string, string> = { Accept: 'text/event-stream' };
    if (init.lastEventId) headers['Last-Event-ID'] = init.lastEventId;
    const res = await (init.on ?? app).request(`/api/v1/graph/stream${query}`, {
      headers,
      signal: controller.signal,
      workspace: init.workspace,
    });
    const reader = await openSseReader(res, controller);
    open.push(reader);
    return reader;
  }

  async function seed(workspace: string, on: TestApp = app): Promise<void> {
    await on.rt.stores.graph.upsertEntities({ workspaceId: workspace }, [...CHAINS, ...LOOSE]);
    await on.rt.stores.graph.upsertRelationships({ workspaceId: workspace }, LINKS);
  }

  async function edit(id: string, description: string, workspace?: string): Promise<void> {
    const res = await app.request(`/api/v1/graph/entities/${id}`, { method: 'PATCH', json: { description }, workspace });
    expect(res.status).toBe(200);
  }

  /** A change written to the store and published as the writers do. */
  async function link(workspace: string, relationship: RelationshipRecord, entities: EntityRecord[] = [], on: TestApp = app) {
    const scope = { workspaceId: workspace };
    if (entities.length) await on.rt.stores.graph.upsertEntities(scope, entities);
    await on.rt.stores.graph.upsertRelationships(scope, [relationship]);
    on.rt.events.publish({
      scope,
      cause: 'test',
      changes: [
        ...entities.map((e) => ({ kind: 'node_added' as const, id: e.id })),
        { kind: 'edge_added', id: relationship.id, source: relationship.source, target: relationship.target },
      ],
    });
    await on.rt.events.flushed();
  }

  beforeAll(async () => {
    app = await startTestApp();
    await seed(app.workspace);
  });
  afterEach(() => open.splice(0).forEach((r) => r.close()));
  afterAll(() => app.close());

  it('gives a subscriber of one subgraph none of the events of another', async () => {
    const a = await stream('?start_node=A0&depth=3');
    const b = await stream('?ids=B0,B1,B2,B3');
    const snapshotA = await a.until(isDone);
    const snapshotB = await b.until(isDone);
    const nodeIds = (events: SseEvent[]) => events.flatMap((e) => (e.nodes as Array<{ id: string }> | undefined)?.map((n) => n.id) ?? []);
    expect(nodeIds(snapshotA).sort()).toEqual(['A0', 'A1', 'A2', 'A3']);
    expect(nodeIds(snapshotB).sort()).toEqual(['B0', 'B1', 'B2', 'B3']);

    for (const id of ['A1', 'B1', 'A_FAR', 'B2', 'A3', 'B_FAR']) await edit(id, `edited ${id}`);
    await link(app.workspace, makeRelationship('A_FAR', 'B_FAR'));
    await edit('A2', 'last of A');
    await edit('B3', 'last of B');
    const eventsA = await a.until((e) => e.type === 'node_updated' && (e.node as { id: string }).id === 'A2');
    const eventsB = await b.until((e) => e.type === 'node_updated' && (e.node as { id: string }).id === 'B3');
    expect(eventsA.flatMap(touched)).toEqual(['A1', 'A3', 'A2']);
    expect(eventsB.flatMap(touched)).toEqual(['B1', 'B2', 'B3']);
    expect(eventsA.every((e) => e.cause === 'edit')).toBe(true);
  });

  it('grows a start-node subgraph by an edge that reaches a node within depth, and not beyond it', async () => {
    const workspace = await app.createWorkspace();
    await seed(workspace);
    const reader = await stream('?start_node=A0&depth=2', { workspace });
    expect((await reader.until(isDone)).filter((e) => e.type === 'nodes').flatMap((e) => e.nodes as unknown[])).toHaveLength(3);
    await link(workspace, makeRelationship('A2', 'A_FAR')); // A_FAR would be 3 hops away: outside
    await link(workspace, makeRelationship('A1', 'NEWCOMER'), [makeEntity('NEWCOMER', { entity_type: 'PERSON' })]);
    const events = await reader.until((e) => e.type === 'edge_added');
    expect(events.map((e) => [e.type, ...touched(e)])).toEqual([
      ['node_added', 'NEWCOMER'],
      ['edge_added', 'A1', 'NEWCOMER'],
    ]);
  });

  it('follows entity types only', async () => {
    const reader = await stream('?entity_types=location');
    const snapshot = await reader.until(isDone);
    const types = snapshot.flatMap((e) => (e.nodes as Array<{ node_type: string }> | undefined)?.map((n) => n.node_type) ?? []);
    expect(new Set(types)).toEqual(new Set(['LOCATION']));
    for (const id of ['A0', 'A1', 'B0', 'B3']) await edit(id, `typed ${id}`);
    const events = await reader.until((e) => touched(e).includes('B3'));
    expect(events.flatMap(touched)).toEqual(['A1', 'B3']);
  });

  it('puts an id on every event and, on reconnection with Last-Event-ID, delivers exactly the events after it', async () => {
    const workspace = await app.createWorkspace();
    await seed(workspace);
    const witness = await stream('', { workspace });
    const snapshot = await witness.until(isDone);
    expect(snapshot.every((e) => eventIdOf(e))).toBe(true);
    const merged = await app.request('/api/v1/graph/entities/merge', {
      method: 'POST',
      json: { source_ids: ['A3'], target_id: 'A2' },
      workspace,
    });
    expect(merged.status).toBe(200);
    for (const id of ['A0', 'B0', 'B1']) await edit(id, `after merge ${id}`, workspace);
    const all = await witness.until((e) => touched(e).includes('B1'));
    const ids = all.map(eventIdOf);
    expect(ids.every((id) => id && /^\d+-\d+\.\d+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    await app.rt.events.flushed();

    // Resuming from any event delivers the rest, once each, in order: from the done event, and from inside the merge.
    for (const [from, rest] of [
      [eventIdOf(snapshot.at(-1)!)!, all],
      [ids[0]!, all.slice(1)],
      [ids[2]!, all.slice(3)],
    ] as const) {
      const resumed = await stream('', { workspace, lastEventId: from });
      const first = await resumed.next();
      expect(first).toMatchObject({ type: 'resumed', last_event_id: from });
      const replay = rest.length ? await resumed.until((e) => eventIdOf(e) === ids.at(-1)) : [];
      expect(replay.map(eventIdOf)).toEqual(rest.map(eventIdOf));
      expect(replay).toEqual(rest);
      await edit('B2', `live after ${from}`, workspace);
      const live = await resumed.next();
      expect(live).toMatchObject({ type: 'node_updated', node: { id: 'B2' } });
      await witness.next((e) => touched(e).includes('B2'));
      resumed.close();
    }
  });

  it('sends a reset and a new snapshot when the last event id has left the replay window', async () => {
    const small = await startTestApp({ SERVICE_GRAPH_STREAM_REPLAY: '10' });
    try {
      await seed(small.workspace, small);
      const reader = await stream('', { on: small });
      const done = (await reader.until(isDone)).at(-1)!;
      reader.close();
      for (let i = 0; i < 15; i++) await link(small.workspace, makeRelationship('A0', `EXTRA_${i}`), [makeEntity(`EXTRA_${i}`)], small);
      const again = await stream('', { on: small, lastEventId: eventIdOf(done) });
      const events = await again.until(isDone);
      expect(events[0]).toMatchObject({ type: 'reset' });
      expect(events[1]).toMatchObject({ type: 'metadata', total_nodes: CHAINS.length + LOOSE.length + 15 });
      const malformed = await small.request('/api/v1/graph/stream', { headers: { 'Last-Event-ID': 'yesterday' } });
      expect(malformed.status).toBe(422);
      expect(((await malformed.json()) as { errors: Array<{ field: string }> }).errors[0].field).toBe('last_event_id');
    } finally {
      await small.close();
    }
  });

  it('sends a reset before the new snapshot when the last event id is inside a snapshot, or one this feed never issued', async () => {
    const workspace = await app.createWorkspace();
    await seed(workspace);
    const first = await stream('', { workspace });
    const snapshot = await first.until(isDone);
    first.close();
    await link(workspace, makeRelationship('A0', 'B0'));
    const inside = eventIdOf(snapshot[0])!;
    expect(inside).toMatch(/\.snapshot$/);
    // Another deployment's position, or one from before a restart: later than anything here, or within the
    // window's span without being one of its entries.
    const [ms] = eventIdOf(snapshot.at(-1)!)!.split('-');
    for (const from of [inside, `${Date.now() + 86_400_000}-0`, `${Date.now() + 86_400_000}-0.2`, `${Number(ms) + 1}-999999`]) {
      const again = await stream('', { workspace, lastEventId: from });
      const events = await again.until(isDone);
      expect({ from, first: events[0].type, second: events[1].type }).toEqual({ from, first: 'reset', second: 'metadata' });
      expect(events[1]).toMatchObject({ total_nodes: CHAINS.length + LOOSE.length });
      again.close();
    }
  });

  it('answers 503 problem details, not a stream, while the shared change feed (Redis) is down', async () => {
    const down = await startTestApp({ REDIS_URL: 'redis://127.0.0.1:1' });
    // Subscriptions of the service's own (the community refresh); a refused stream adds none.
    const idle = down.rt.events.listenerCount();
    try {
      const res = await down.request('/api/v1/graph/stream', { headers: { Accept: 'text/event-stream' } });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { detail: string }).detail).toContain('graph change feed');
      expect(down.rt.events.listenerCount()).toBe(idle);
    } finally {
      await down.close();
    }
  });

  it('refuses ids together with start_node with 422', async () => {
    const res = await app.request('/api/v1/graph/stream?start_node=A0&ids=B0');
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Array<{ field: string }> }).errors[0].field).toBe('ids');
  });

  it('drops a subscriber that does not read, with a final dropped event, instead of buffering without bound', async () => {
    const limited = await startTestApp({ SERVICE_GRAPH_STREAM_MAX_BUFFER_BYTES: '65536' });
    const idle = limited.rt.events.listenerCount();
    try {
      await seed(limited.workspace, limited);
      const controller = new AbortController();
      const res = await limited.request('/api/v1/graph/stream?ids=A0', {
        headers: { Accept: 'text/event-stream' },
        signal: controller.signal,
      });
      expect(res.status).toBe(200);
      await eventually(() => limited.rt.events.listenerCount() === idle + 1);
      const scope = { workspaceId: limited.workspace };
      const big = makeEntity('A0', { entity_type: 'PERSON', description: 'x'.repeat(30_000) });
      await limited.rt.stores.graph.upsertEntities(scope, [big]);
      let published = 0;
      // The client reads nothing: socket buffers fill, then the server's, until it drops the subscriber.
      while (limited.rt.events.listenerCount() > idle && published < 3000) {
        limited.rt.events.publish({ scope, cause: 'test', changes: [{ kind: 'node_updated', id: 'A0' }] });
        published += 1;
        if (published % 20 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await eventually(() => limited.rt.events.listenerCount() === idle);
      const reader = await openSseReader(res, controller);
      const events = await reader.until((e) => e.type === 'dropped', 15_000);
      const updates = events.filter((e) => e.type === 'node_updated').length;
      expect(updates).toBeGreaterThan(0);
      expect(updates).toBeLessThan(published);
      // Whichever bound the subscriber passed first: unread bytes, or batches waiting for a slower store.
      expect(events.at(-1)).toMatchObject({ type: 'dropped', reason: expect.stringMatching(/65536 bytes|1000 change batches/) });
      reader.close();
    } finally {
      await limited.close();
    }
  });
});
