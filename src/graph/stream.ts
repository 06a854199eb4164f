import { InvalidInputError } from '../domain/errors';
import { normalizeEntityId } from '../domain/ids';
import { nextTurn } from '../domain/turns';
import type { Scope } from '../domain/types';
import type { EventSource } from '../domain/stream';
import type { GraphStore } from '../store/ports';
import type { GraphDeps } from './deps';
import { type Follow, type GraphChange, type GraphChangeEntry, topicOf } from './events';
import { type GraphQuery, type GraphView, exploreGraph } from './explore';
import { toGraphEdge, toGraphNode } from './present';
import { resumePoint, snapshotId } from './stream-ids';
import { type ResolvedBatch, type StreamScope, SubgraphView, type ViewDecision, isScoped } from './stream-view';

export interface GraphStreamQuery extends GraphQuery {
  /** Nodes or edges per snapshot event. */
  batchSize: number;
  /** Follow only entities of these types. */
  types?: string[];
  /** Follow exactly these entities (and the edges among them). */
  ids?: string[];
}

export interface GraphStreamSettings {
  /** Bytes a subscriber may leave unread before it is dropped with a final `dropped` event. */
  maxBufferedBytes: number;
  /** Change batches waiting to be sent to one subscriber before it is dropped. */
  maxQueuedBatches: number;
}

type Event = Record<string, unknown>;

/** One event of the graph stream, with its id (what the client sends back as Last-Event-ID to resume). */
export interface GraphStreamEvent {
  id: string;
  event: Event;
}

/** The graph stream of one subscriber: its events, and the heartbeat that a silence gets. */
export interface GraphFeed {
  events: EventSource<GraphStreamEvent>;
  /** A heartbeat carrying the stream's position, from which a quiet subscriber can resume. */
  heartbeat(): GraphStreamEvent;
  /** The stream's position: the id a client resumes from after the last complete change batch. */
  position(): string;
}

const MAX_FOLLOWED_IDS = 1_000;

/** The snapshot as events: metadata, node batches, edge batches, done. Equal to what /graph returns. */
export function snapshotEvents(view: GraphView, batchSize: number): Event[] {
  const events: Event[] = [
    {
      type: 'metadata',
      total_nodes: view.total_nodes,
      total_edges: view.total_edges,
      snapshot_nodes: view.nodes.length,
      snapshot_edges: view.edges.length,
      is_truncated: view.is_truncated,
      batch_size: batchSize,
    },
  ];
  for (let i = 0; i < view.nodes.length; i += batchSize) {
    events.push({ type: 'nodes', nodes: view.nodes.slice(i, i + batchSize) });
  }
  for (let i = 0; i < view.edges.length; i += batchSize) {
    events.push({ type: 'edges', edges: view.edges.slice(i, i + batchSize) });
  }
  // `done: true` is how EdgeQuake's SDK recognises the end of the snapshot.
  events.push({ type: 'done', snapshot: true, done: true });
  return events;
}

const RESOLVED_KEPT = 64;

/**
 * The change batches read for the subscribers of one graph service (createGraphService), shared by all of them:
 * each batch is read from the store once. The last RESOLVED_KEPT are kept.
 */
export class BatchResolutions {
  private readonly resolutions = new Map<string, Promise<ResolvedBatch>>();

  resolve(graph: GraphStore, entry: GraphChangeEntry): Promise<ResolvedBatch> {
    const { resolutions } = this;
    const key = `${topicOf(entry.batch.scope)}|${entry.id}`;
    let resolved = resolutions.get(key);
    if (!resolved) {
      resolved = readBatch(graph, entry.batch.scope, entry.batch.changes);
      resolutions.set(key, resolved);
      resolved.catch(() => resolutions.delete(key));
      if (resolutions.size > RESOLVED_KEPT) resolutions.delete(resolutions.keys().next().value as string);
    }
    return resolved;
  }
}

async function readBatch(graph: GraphStore, scope: Scope, changes: GraphChange[]): Promise<ResolvedBatch> {
  const nodeIds = new Set<string>();
  const edgeIds: string[] = [];
  for (const change of changes) {
    if (change.kind === 'node_added' || change.kind === 'node_updated') nodeIds.add(change.id);
    if (change.kind === 'edge_added' || change.kind === 'edge_updated') {
      edgeIds.push(change.id);
      nodeIds.add(change.source).add(change.target);
    }
  }
  const ids = [...nodeIds];
  const [entities, degrees, relationships] = await Promise.all([
    graph.getEntities(scope, ids),
    graph.degrees(scope, ids),
    graph.getRelationships(scope, edgeIds),
  ]);
  return {
    nodes: new Map(entities.map((e) => [e.id, toGraphNode(e, degrees.get(e.id) ?? 0)])),
    edges: new Map(relationships.map((r) => [r.id, toGraphEdge(r)])),
  };
}

/** The event a kept change becomes, with its record as it is now; null when the record is gone by now. */
function liveEvent(decision: ViewDecision, resolved: ResolvedBatch): Event | null {
  const node = (id: string) => resolved.nodes.get(id) ?? null;
  if (decision.kind === 'join') {
    const joined = node(decision.nodeId);
    return joined ? { type: 'node_added', node: joined } : null;
  }
  const change = decision.change;
  switch (change.kind) {
    case 'node_added':
    case 'node_updated': {
      // A record gone by now was removed later; its own node_removed event follows.
      const current = node(change.id);
      return current ? { type: change.kind, node: current } : null;
    }
    case 'node_removed':
      return { type: 'node_removed', id: change.id };
    case 'edge_added':
    case 'edge_updated': {
      const edge = resolved.edges.get(change.id);
      return edge ? { type: change.kind, edge } : null;
    }
    case 'edge_removed':
      return { type: 'edge_removed', id: change.id, source: change.source, target: change.target };
  }
}

function streamScopeOf(query: GraphStreamQuery): StreamScope {
  return {
    startId: query.startNode === undefined ? undefined : normalizeEntityId(query.startNode) || undefined,
    depth: query.depth,
    types: query.types?.length ? new Set(query.types.map((t) => t.trim().toUpperCase())) : undefined,
    ids: query.ids?.length ? new Set(query.ids.map(normalizeEntityId)) : undefined,
  };
}

/** The snapshot of the followed part: a breadth-first view from the start node, the listed ids, or the hubs. */
async function readSnapshot(graph: GraphStore, scope: Scope, query: GraphStreamQuery, stream: StreamScope): Promise<GraphView> {
  if (!stream.ids || stream.startId) return exploreGraph(graph, scope, query);
  const ids = [...stream.ids].slice(0, query.maxNodes);
  const [entities, degrees, relationships, totals] = await Promise.all([
    graph.getEntities(scope, ids),
    graph.degrees(scope, ids),
    graph.relationshipsAmong(scope, ids),
    graph.stats(scope),
  ]);
  return {
    nodes: entities.map((e) => toGraphNode(e, degrees.get(e.id) ?? 0)),
    edges: relationships.map(toGraphEdge),
    total_nodes: totals.total_nodes,
    total_edges: totals.total_edges,
    is_truncated: stream.ids.size > ids.length,
  };
}

/**
 * Streams the followed part of a workspace graph: a snapshot, then the changes that touch it, every event with an
 * id. A client that reconnects with Last-Event-ID (the sink's `lastEventId`) gets the changes it missed, once each,
 * while they are in the replay window; past it, a `reset` event and a new snapshot. Heartbeats carry the stream's
 * position, so a quiet subscriber can resume too. A subscriber that does not keep up is dropped with a final
 * `dropped` event. Everything up to the snapshot happens before the first event, so a bad start node or a
 * malformed last event id fails before the stream opens (an ordinary 404 or 422).
 */
export function graphFeed(
  deps: GraphDeps,
  scope: Scope,
  query: GraphStreamQuery,
  settings: GraphStreamSettings,
  resolutions: BatchResolutions,
): GraphFeed {
  // The stream's position: the id a heartbeat (or `resumed`, `dropped`) carries, from which a client can resume.
  let cursor = '';
  const heartbeat = (): GraphStreamEvent => ({ id: cursor, event: { type: 'heartbeat', at: new Date().toISOString() } });

  async function* events({ signal, buffered, lastEventId }: Parameters<EventSource<GraphStreamEvent>>[0]) {
    let resume = lastEventId === undefined ? null : resumePoint(lastEventId);
    if (resume === undefined) {
      throw InvalidInputError.field('last_event_id', 'not an event id of this stream (as sent in `id:`, e.g. 1732550000000-0.3)');
    }
    // Why a client that asked to resume gets a new snapshot instead (a `reset` event first), when it does.
    let reset: string | null = null;
    if (lastEventId !== undefined && resume === null) reset = 'the last event id is inside a snapshot; a new snapshot follows';
    if (resume && !(await deps.events.issued(scope, resume.within?.id ?? resume.after))) {
      reset = 'the last event id was not issued by this feed (another deployment, or before a restart); a new snapshot follows';
      resume = null;
    }
    if (query.ids?.length && query.startNode !== undefined) {
      throw InvalidInputError.field('ids', 'follow either a start node (start_node, depth) or a set of ids, not both');
    }
    if ((query.ids?.length ?? 0) > MAX_FOLLOWED_IDS) throw InvalidInputError.field('ids', `at most ${MAX_FOLLOWED_IDS} ids`);
    const scoped = streamScopeOf(query);
    const view = isScoped(scoped) ? new SubgraphView(scoped) : null;
    const queue: Array<{ entry: GraphChangeEntry; replay: boolean }> = [];
    let following = false;
    let wake: (() => void) | null = null;
    const listener = (entry: GraphChangeEntry) => {
      queue.push({ entry, replay: !following });
      wake?.();
    };

    let follow: Follow = await deps.events.follow(scope, resume?.after ?? null, listener);
    following = true;
    const resumed = resume !== null && !follow.gap;
    const stop = () => wake?.();
    signal.addEventListener('abort', stop, { once: true });
    try {
      if (resume && follow.gap) {
        // Too old to replay: start again from now with a snapshot.
        reset = 'the last event id is older than the replay window; a new snapshot follows';
        follow.close();
        queue.length = 0;
        following = false;
        follow = await deps.events.follow(scope, null, listener);
        following = true;
      }
      const snapshot = await readSnapshot(deps.stores.graph, scope, query, scoped);
      cursor = resumed ? (lastEventId as string).trim() : follow.from;

      const seeded = view ? view.seed(snapshot) : snapshot;
      if (resumed) {
        yield { id: cursor, event: { type: 'resumed', last_event_id: lastEventId, replayed_from: resume?.after } };
      } else {
        if (reset) yield { id: cursor, event: { type: 'reset', reason: reset } };
        const batches = snapshotEvents(seeded, query.batchSize);
        for (const [i, event] of batches.entries()) yield { id: i === batches.length - 1 ? cursor : snapshotId(cursor), event };
      }

      const dropped = (reason: string): GraphStreamEvent => ({ id: cursor, event: { type: 'dropped', reason, last_event_id: cursor } });
      // One batch at a time, in feed order, each resolved against the store when its turn comes.
      while (!signal.aborted) {
        if (!queue.length) {
          await new Promise<void>((resolve) => (wake = resolve));
          wake = null;
          continue;
        }
        if (queue.length > settings.maxQueuedBatches) {
          yield dropped(`more than ${settings.maxQueuedBatches} change batches waited`);
          return;
        }
        const { entry, replay } = queue.shift() as { entry: GraphChangeEntry; replay: boolean };
        const skipThrough = resumed && resume?.within?.id === entry.id ? resume.within.index : -1;
        const resolved = await resolutions.resolve(deps.stores.graph, entry);
        if (view) view.replaying = replay && resumed;
        const decisions = view
          ? view.decide(entry.batch.changes, resolved)
          : entry.batch.changes.map((change, index) => ({ index, decision: { kind: 'keep', change } as ViewDecision }));
        for (const { index, decision } of decisions) {
          if (index <= skipThrough || signal.aborted) continue;
          const event = liveEvent(decision, resolved);
          if (event) yield { id: `${entry.id}.${index}`, event: { ...event, cause: entry.batch.cause } };
        }
        cursor = entry.id;
        if (buffered() > settings.maxBufferedBytes) {
          yield dropped(`more than ${settings.maxBufferedBytes} bytes were left unread`);
          return;
        }
        // One batch per turn of the loop: a backlog is written out between requests, not in one long stretch.
        await nextTurn();
      }
    } finally {
      signal.removeEventListener('abort', stop);
      follow.close();
    }
  }

  return { events, heartbeat, position: () => cursor };
}
