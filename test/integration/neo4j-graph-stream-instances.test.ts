import { type SseEvent, type SseReader, eventIdOf, openSseReader } from '../api/graph-sse';
import { type ServiceProcess, createWorkspace, startService } from '../fixtures/service-process';

/**
 * Several instances on one Neo4j and one Redis: a graph stream subscriber on one instance receives the changes
 * ingested through another (a Redis stream per workspace carries them), and resumes on either instance with
 * Last-Event-ID, receiving what it missed exactly once.
 */
jest.setTimeout(150_000);

const run = Date.now().toString(36);
const FIRST = 'Grace Hopper worked with Howard Aiken at Harvard University. Howard Aiken built the Harvard Mark I.';
const SECOND = 'Katherine Johnson computed trajectories for NASA. Dorothy Vaughan led programmers at NASA Langley.';

const services: ServiceProcess[] = [];
const readers: SseReader[] = [];

afterAll(async () => {
  readers.forEach((r) => r.close());
  for (const service of services) await service.kill('SIGKILL');
});

async function stream(on: ServiceProcess, workspace: string, lastEventId?: string): Promise<SseReader> {
  const controller = new AbortController();
  const headers: Record<string, string> = { Accept: 'text/event-stream', ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}) };
  const res = await on.request('/api/v1/graph/stream', { headers, signal: controller.signal, workspace });
  expect(res.status).toBe(200);
  const reader = await openSseReader(res, controller);
  readers.push(reader);
  return reader;
}

async function ingest(on: ServiceProcess, workspace: string, content: string): Promise<string[]> {
  const res = await on.request('/api/v1/documents', { method: 'POST', json: { content }, workspace });
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };
  const entities = await on.request(`/api/v1/graph/entities?limit=1000`, { workspace });
  const all = ((await entities.json()) as { entities: Array<{ id: string; document_ids: string[] }> }).entities;
  return all.filter((e) => e.document_ids.includes(id)).map((e) => e.id);
}

/** Reads node_added events until every id has come; the events read on the way are returned. */
async function untilAdded(reader: SseReader, ids: string[]): Promise<SseEvent[]> {
  const seen = new Set<string>();
  return reader.until((e) => {
    if (e.type === 'node_added') seen.add((e.node as { id: string }).id);
    return ids.every((id) => seen.has(id));
  }, 30_000);
}

describe('persistent mode: the graph stream across instances (Redis)', () => {
  it('delivers changes ingested through one instance to a subscriber on the other, and resumes on either exactly once', async () => {
    const redisUrl = process.env.TEST_REDIS_URL;
    if (!redisUrl) throw new Error('TEST_REDIS_URL is unset: scripts/test.mjs starts Redis for the persistent pass');
    const env = { REDIS_URL: redisUrl, SERVICE_GRAPH_STREAM_HEARTBEAT_MS: '60000' };
    const one = await startService(`stream-1-${run}`, null, env);
    services.push(one);
    const workspace = await createWorkspace(one.url);
    const two = await startService(`stream-2-${run}`, workspace, env);
    services.push(two);

    const onTwo = await stream(two, workspace);
    await onTwo.until((e) => e.type === 'done');
    const first = await ingest(one, workspace, FIRST);
    expect(first.length).toBeGreaterThan(0);
    const seenOnTwo = await untilAdded(onTwo, first);
    const last = seenOnTwo.at(-1)!;
    onTwo.close();

    // While the subscriber is away, the other instance ingests; it comes back on the first instance.
    const second = await ingest(two, workspace, SECOND);
    const witness = await stream(one, workspace, eventIdOf(last));
    expect(await witness.next()).toMatchObject({ type: 'resumed', last_event_id: eventIdOf(last) });
    const missed = await untilAdded(witness, second);
    const ids = missed.map(eventIdOf);
    expect(new Set(ids).size).toBe(ids.length);
    expect(
      missed
        .filter((e) => e.type === 'node_added')
        .map((e) => (e.node as { id: string }).id)
        .sort(),
    ).toEqual([...second].sort());
    // Nothing of before the disconnection comes again.
    expect(missed.some((e) => e.type === 'node_added' && first.includes((e.node as { id: string }).id))).toBe(false);
    const before = new Set(seenOnTwo.map(eventIdOf));
    expect(ids.filter((id) => before.has(id))).toEqual([]);
  });
});
