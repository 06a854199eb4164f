import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError, apiUrl, describeError, getJson } from '../api/client';
import type { EntityItem, GraphView, SavedViewSettings } from '../api/types';
import { navigate } from '../shell/router';
import { ErrorNote, Spinner } from '../ui/feedback';
import { Link } from '../ui/Link';
import { type ExplorerHandle, GraphCanvas } from './GraphCanvas';
import { Legend } from './Legend';
import { type LayoutProgress, LayoutRunner } from './layout';
import { type ExplorerGraph, createGraph, putEdge, putNode, typeCounts } from './model';
import { NodePanel } from './NodePanel';
import { type EdgeEnd, EdgePanel } from './EdgePanel';
import { HighlightNote, readHighlight } from './highlight';
import { SearchBox } from './SearchBox';
import { type LayoutKind, circular, radial, radialCentre } from './arrange';
import { GraphTools } from './GraphTools';
import { type PathEntity, PathPanel } from './PathPanel';
import { drawPath, exportView } from './tools';
import { type GraphQuery, streamGraph } from './stream';
import { useFullscreen } from './fullscreen';

const SIZES = [100, 500, 1000, 2000, 5000, 10000];
const FRESH_MS = 8000;

type Status = 'loading' | 'live' | 'closed' | 'failed';

/** When the current view was asked for, arrived, was first drawn and settled (epoch ms; the benchmark reads them). */
export interface LoadTimings {
  requestedAt: number;
  /** The stream's first event (the server has built the view). */
  metadataAt: number | null;
  snapshotAt: number | null;
  /** Time spent adding the snapshot's nodes and edges to the graph. */
  insertMs: number;
  firstRenderAt: number | null;
  settledAt: number | null;
  nodes: number;
  edges: number;
}

declare global {
  interface Window {
    kgragGraphLoad?: LoadTimings;
  }
}

/** The graph explorer: the workspace graph from the live stream, drawn with WebGL and laid out in a worker. */
export function GraphPage() {
  const graph = useMemo(createGraph, []);
  // `/graph?start=ID` opens the neighbourhood of an entity (links from answers and lists) and selects it.
  const [initialStart] = useState(() => new URLSearchParams(location.search).get('start') ?? '');
  // `/graph?highlight=A,B&from=…` loads those entities with the relationships among them, highlighted.
  const [highlight] = useState(readHighlight);
  const [query, setQuery] = useState<GraphQuery>({ startNode: initialStart, depth: 2, maxNodes: 1000, ids: highlight?.ids });
  const [form, setForm] = useState(query);
  const [totals, setTotals] = useState<{ total_nodes: number; total_edges: number; is_truncated: boolean } | null>(null);
  const [status, setStatus] = useState<Status>('loading');
  const [error, setError] = useState<unknown>(null);
  const [, setVersion] = useState(0);
  const [hidden, setHidden] = useState<Set<string>>(new Set());
  const [selected, setSelected] = useState<string | null>(null);
  const [selectedEdge, setSelectedEdge] = useState<string | null>(null);
  const [expanding, setExpanding] = useState(false);
  const [layout, setLayout] = useState<LayoutProgress>({ running: false, iterations: 0, settledMs: null, converged: false });
  const [reconnects, setReconnects] = useState(0);
  const runner = useRef<LayoutRunner | null>(null);
  const explorer = useRef<ExplorerHandle | null>(null);
  const pageRef = useRef<HTMLDivElement | null>(null);
  const resized = useCallback(() => {
    explorer.current?.sigma.resize();
    explorer.current?.sigma.refresh();
  }, []);
  const fullscreen = useFullscreen(pageRef, resized);
  const layoutRef = useRef(layout);
  layoutRef.current = layout;
  const pendingSelect = useRef<string | null>(initialStart || null);
  const relayoutTimer = useRef<number | undefined>(undefined);
  const [arrangement, setArrangement] = useState<LayoutKind>('force');
  const arrangementRef = useRef(arrangement);
  const [pathOpen, setPathOpen] = useState(false);
  const [path, setPath] = useState<{ nodes: Set<string>; edges: Set<string> } | null>(null);
  /** The camera of a saved view being opened, applied once the graph of its query has arrived and is laid out. */
  const pendingCamera = useRef<{ query: GraphQuery; camera: NonNullable<SavedViewSettings['camera']> } | null>(null);
  const queryRef = useRef(query);
  queryRef.current = query;
  const selectedRef = useRef(selected);
  selectedRef.current = selected;

  // Redraw counters at most once a frame however many events arrive.
  const frame = useRef(0);
  const bump = useCallback(() => {
    if (frame.current) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      setVersion((v) => v + 1);
    });
  }, []);

  const onLayout = useCallback((progress: LayoutProgress) => {
    setLayout(progress);
    const load = window.kgragGraphLoad;
    if (load && progress.settledMs !== null && load.settledAt === null && load.snapshotAt !== null) load.settledAt = Date.now();
    const pending = pendingCamera.current;
    if (pending && progress.settledMs !== null && pending.query === queryRef.current && load?.snapshotAt != null) {
      pendingCamera.current = null;
      explorer.current?.sigma.getCamera().setState(pending.camera);
    }
  }, []);

  /**
   * Lays the graph out the chosen way: ForceAtlas2 in the worker, or a placement computed at once (framed, unless the
   * graph only changed under a view the user may have moved).
   */
  const relayout = useCallback(
    (maxIterations?: number, frame = true) => {
      const kind = arrangementRef.current;
      if (kind === 'force') {
        if (frame) explorer.current?.resetCamera(false);
        runner.current?.run(maxIterations);
        return;
      }
      runner.current?.stop();
      if (kind === 'circular') circular(graph);
      else {
        const centre = radialCentre(graph, [queryRef.current.startNode, selectedRef.current]);
        if (centre) radial(graph, centre);
      }
      if (frame) explorer.current?.resetCamera(false);
      else explorer.current?.sigma.refresh();
      onLayout({ running: false, iterations: 0, settledMs: 0, converged: true });
    },
    [graph, onLayout],
  );

  useEffect(() => {
    const created = new LayoutRunner(graph, onLayout);
    runner.current = created;
    return () => {
      created.dispose();
      runner.current = null;
    };
  }, [graph, onLayout]);

  /** Re-runs the layout shortly after a burst of changes, for a short while. */
  const relayoutSoon = useCallback(() => {
    window.clearTimeout(relayoutTimer.current);
    relayoutTimer.current = window.setTimeout(() => relayout(400, false), 500);
  }, [relayout]);

  useEffect(() => {
    const controller = new AbortController();
    graph.clear();
    // A new view starts unselected and framed whole: a selection or zoom kept from the old one would show the new
    // subgraph as a dimmed dot.
    setSelected(null);
    setSelectedEdge(null);
    setPath(null);
    explorer.current?.resetCamera(false);
    setTotals(null);
    setStatus('loading');
    setError(null);
    const load: LoadTimings = {
      requestedAt: Date.now(),
      metadataAt: null,
      insertMs: 0,
      snapshotAt: null,
      firstRenderAt: null,
      settledAt: null,
      nodes: 0,
      edges: 0,
    };
    window.kgragGraphLoad = load;
    let live = false;
    streamGraph(
      query,
      {
        metadata: (meta) => {
          load.metadataAt = Date.now();
          setTotals(meta);
        },
        nodes: (nodes) => {
          const t0 = performance.now();
          const radius = Math.sqrt(nodes.length + graph.order) * 8;
          for (const node of nodes) {
            putNode(graph, node);
            const angle = Math.random() * 2 * Math.PI;
            const r = radius * Math.sqrt(Math.random());
            graph.mergeNodeAttributes(node.id, { x: r * Math.cos(angle), y: r * Math.sin(angle) });
          }
          load.insertMs += performance.now() - t0;
        },
        edges: (edges) => {
          const t0 = performance.now();
          for (const edge of edges) putEdge(graph, edge);
          load.insertMs += performance.now() - t0;
        },
        snapshotDone: () => {
          live = true;
          load.snapshotAt = Date.now();
          load.nodes = graph.order;
          load.edges = graph.size;
          setStatus('live');
          bump();
          const sigma = explorer.current?.sigma;
          if (sigma) sigma.once('afterRender', () => (load.firstRenderAt = Date.now()));
          else requestAnimationFrame(() => (load.firstRenderAt = Date.now()));
          explorer.current?.resetCamera(false);
          relayout();
          if (pendingSelect.current && graph.hasNode(pendingSelect.current)) setSelected(pendingSelect.current);
          pendingSelect.current = null;
        },
        nodeChanged: (node, added) => {
          putNode(graph, node, { freshMs: FRESH_MS });
          setTotals((t) => (t && added ? { ...t, total_nodes: t.total_nodes + 1 } : t));
          bump();
          relayoutSoon();
        },
        nodeRemoved: (id) => {
          if (graph.hasNode(id)) graph.dropNode(id);
          setTotals((t) => (t ? { ...t, total_nodes: Math.max(0, t.total_nodes - 1) } : t));
          setSelected((s) => (s === id ? null : s));
          bump();
        },
        edgeChanged: (edge) => {
          // A node that arrived alone moves next to the first node it connects to.
          const source = graph.hasNode(edge.source) ? graph.getNodeAttributes(edge.source) : null;
          const target = graph.hasNode(edge.target) ? graph.getNodeAttributes(edge.target) : null;
          if (putEdge(graph, edge) && source && target) {
            if (graph.degree(edge.target) === 1 && target.freshUntil > Date.now())
              graph.mergeNodeAttributes(edge.target, { x: source.x + Math.random() - 0.5, y: source.y + Math.random() - 0.5 });
            else if (graph.degree(edge.source) === 1 && source.freshUntil > Date.now())
              graph.mergeNodeAttributes(edge.source, { x: target.x + Math.random() - 0.5, y: target.y + Math.random() - 0.5 });
          }
          bump();
          relayoutSoon();
        },
        edgeRemoved: (id) => {
          if (graph.hasEdge(id)) graph.dropEdge(id);
          setSelectedEdge((s) => (s === id ? null : s));
          bump();
        },
        failed: (message) => {
          setError(new Error(message));
          setStatus('failed');
        },
      },
      controller.signal,
    )
      .then(() => !controller.signal.aborted && setStatus(live ? 'closed' : 'failed'))
      .catch((err: unknown) => {
        if (controller.signal.aborted) return;
        setError(err);
        setStatus('failed');
      });
    return () => {
      controller.abort();
      runner.current?.stop();
      window.clearTimeout(relayoutTimer.current);
    };
  }, [graph, query, reconnects, bump, relayoutSoon, relayout]);

  const expand = useCallback(
    async (id: string) => {
      setExpanding(true);
      try {
        const view = await getJson<GraphView>(apiUrl('/api/v1/graph', {}, { start_node: id, depth: 1, max_nodes: 200 }));
        for (const node of view.nodes) putNode(graph, node, { near: id, freshMs: graph.hasNode(node.id) ? 0 : FRESH_MS });
        for (const edge of view.edges) putEdge(graph, edge);
        bump();
        relayout(400, false);
      } catch (err) {
        setError(err);
      } finally {
        setExpanding(false);
      }
    },
    [graph, bump, relayout],
  );

  const select = useCallback(
    (id: string | null) => {
      setSelected(id);
      setSelectedEdge(null);
      if (id && graph.hasNode(id)) explorer.current?.focusNode(id);
    },
    [graph],
  );

  const closePanel = useCallback(() => setSelected(null), []);
  const closeEdgePanel = useCallback(() => setSelectedEdge(null), []);
  const selectEdge = useCallback(
    (id: string) => {
      if (!graph.hasEdge(id)) return false;
      setSelected(null);
      setSelectedEdge(id);
      return true;
    },
    [graph],
  );

  const pick = (entity: EntityItem) => {
    if (graph.hasNode(entity.id)) {
      select(entity.id);
      return;
    }
    // Not drawn yet: load its neighbourhood, then select it.
    pendingSelect.current = entity.id;
    const next = { ...form, startNode: entity.id };
    setForm(next);
    setQuery(next);
  };

  // Small graphs show every label; large ones only those of nodes drawn big enough, and draw no edges or labels
  // while the view moves, which keeps panning fluid at thousands of nodes.
  const large = graph.order > 2000;
  const labelThreshold = graph.order <= 300 ? 0 : 9;
  useEffect(() => {
    const sigma = explorer.current?.sigma;
    if (!sigma) return;
    if (sigma.getSetting('labelRenderedSizeThreshold') !== labelThreshold) sigma.setSetting('labelRenderedSizeThreshold', labelThreshold);
    if (sigma.getSetting('hideEdgesOnMove') !== large) {
      sigma.setSetting('hideEdgesOnMove', large);
      sigma.setSetting('hideLabelsOnMove', large);
    }
    // Edges are picked by the mouse on graphs small enough for it; on large ones from an entity's relationships.
    if (sigma.getSetting('enableEdgeEvents') === large) sigma.setSetting('enableEdgeEvents', !large);
  });

  const types = typeCounts(graph);
  const sizeScale = graph.order > 2000 ? 0.55 : graph.order > 500 ? 0.75 : 1;
  const highlighted = useMemo(() => (highlight ? new Set(highlight.ids) : undefined), [highlight]);
  const view = useMemo(
    () => ({ hiddenTypes: hidden, selected, selectedEdge, sizeScale, highlighted, path }),
    [hidden, selected, selectedEdge, sizeScale, highlighted, path],
  );
  const getLayout = useCallback(() => layoutRef.current, []);
  const onReady = useCallback((handle: ExplorerHandle) => (explorer.current = handle), []);

  const chooseLayout = (kind: LayoutKind) => {
    arrangementRef.current = kind;
    setArrangement(kind);
    relayout();
  };
  const currentView = (): SavedViewSettings => {
    const camera = explorer.current?.sigma.getCamera().getState();
    return {
      start_node: query.startNode,
      depth: query.depth,
      max_nodes: query.maxNodes,
      hidden_types: [...hidden],
      layout: arrangement,
      camera: camera ? { x: camera.x, y: camera.y, ratio: camera.ratio, angle: camera.angle } : null,
    };
  };
  const openView = (saved: SavedViewSettings) => {
    arrangementRef.current = saved.layout;
    setArrangement(saved.layout);
    setHidden(new Set(saved.hidden_types));
    const next = { startNode: saved.start_node, depth: saved.depth, maxNodes: saved.max_nodes };
    pendingCamera.current = saved.camera ? { query: next, camera: saved.camera } : null;
    setForm(next);
    setQuery(next);
  };
  const showPath = async (entities: PathEntity[] | null) => {
    if (!entities) {
      setPath(null);
      return;
    }
    const drawn = await drawPath(graph, entities);
    bump();
    setPath(drawn);
  };

  return (
    <div className="graph-page" ref={pageRef}>
      <div className="toolbar">
        <SearchBox onPick={pick} />
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            setQuery({ ...form });
          }}
        >
          <label>
            Start
            <input
              value={form.startNode}
              placeholder="most connected"
              onChange={(e) => setForm({ ...form, startNode: e.target.value })}
              aria-label="Start node"
              size={16}
            />
          </label>
          <label>
            Depth
            <input
              type="number"
              min={0}
              max={5}
              value={form.depth}
              onChange={(e) => setForm({ ...form, depth: Number(e.target.value) })}
              aria-label="Depth"
              disabled={!form.startNode.trim()}
            />
          </label>
          <label>
            Max nodes
            <select value={form.maxNodes} onChange={(e) => setForm({ ...form, maxNodes: Number(e.target.value) })} aria-label="Max nodes">
              {SIZES.map((n) => (
                <option key={n} value={n}>
                  {n.toLocaleString()}
                </option>
              ))}
            </select>
          </label>
          <button type="submit">Load</button>
        </form>
        <span className="grow" />
        <span className="counts" data-testid="graph-counts">
          <strong data-testid="graph-node-count">{graph.order.toLocaleString()}</strong> nodes ·{' '}
          <strong data-testid="graph-edge-count">{graph.size.toLocaleString()}</strong> edges
          {totals && (
            <span className="muted">
              {' '}
              of {totals.total_nodes.toLocaleString()} · {totals.total_edges.toLocaleString()} in the workspace
            </span>
          )}
        </span>
        <span className={`live ${status}`} data-testid="graph-status">
          {status === 'loading' && <Spinner label="Loading graph…" />}
          {status === 'live' && '● live'}
          {status === 'closed' && (
            <>
              updates stopped{' '}
              <button className="link" onClick={() => setReconnects((n) => n + 1)}>
                reconnect
              </button>
            </>
          )}
          {status === 'failed' && (
            <button className="link" onClick={() => setReconnects((n) => n + 1)}>
              retry
            </button>
          )}
        </span>
        <span className="muted small layout-status" data-testid="layout-status">
          {layout.running ? (
            <>
              layout… {layout.iterations} it.{' '}
              <button className="link small" onClick={() => runner.current?.stop()}>
                stop
              </button>
            </>
          ) : layout.settledMs !== null ? (
            <>
              <span title={layout.converged ? 'nodes stopped moving' : 'iteration limit reached'}>
                layout done in {(layout.settledMs / 1000).toFixed(1)} s
              </span>{' '}
              <button className="link small" onClick={() => runner.current?.run()}>
                re-run
              </button>
            </>
          ) : null}
        </span>
      </div>
      <GraphTools
        layout={arrangement}
        onLayout={chooseLayout}
        pathOpen={pathOpen}
        onPath={() => {
          if (pathOpen) setPath(null);
          setPathOpen(!pathOpen);
        }}
        onExport={async (kind) => {
          const sigma = explorer.current?.sigma;
          const stage = document.querySelector('.graph-stage');
          if (sigma) await exportView(kind, graph, sigma, hidden, stage ? getComputedStyle(stage).backgroundColor : '#fff');
        }}
        currentView={currentView}
        onOpenView={openView}
      />
      {graph.order > 0 && <ErrorNote error={error} onDismiss={() => setError(null)} />}
      {highlight && (
        // The address without the highlight opens the page anew on the whole graph.
        <HighlightNote highlight={highlight} onClear={() => navigate('/graph', { replace: true })} />
      )}
      <div className="graph-stage">
        <GraphCanvas graph={graph} view={view} layout={getLayout} onSelect={select} onSelectEdge={selectEdge} onReady={onReady} />
        {status !== 'loading' && graph.order === 0 && (
          <div className="graph-empty empty" data-testid="graph-empty" data-reason={emptyReason(status, error, query)}>
            <EmptyGraph reason={emptyReason(status, error, query)} start={query.startNode} error={error} />
          </div>
        )}
        <div className="graph-controls" role="group" aria-label="View">
          <button onClick={() => explorer.current?.zoom(1.5)} aria-label="Zoom in" title="Zoom in">
            +
          </button>
          <button onClick={() => explorer.current?.zoom(1 / 1.5)} aria-label="Zoom out" title="Zoom out">
            −
          </button>
          <button onClick={() => explorer.current?.fit(hidden)} title="Frame the nodes shown">
            Fit
          </button>
          <button
            onClick={() => {
              setSelected(null);
              setSelectedEdge(null);
              setHidden(new Set());
              explorer.current?.resetCamera(true);
            }}
            title="Clear the selection and the type filters, and show the whole view"
          >
            Reset
          </button>
          {fullscreen.supported && (
            <button onClick={fullscreen.toggle} aria-pressed={fullscreen.active} title="Show the graph page on the whole screen">
              {fullscreen.active ? 'Exit full screen' : 'Full screen'}
            </button>
          )}
        </div>
        <Legend
          types={types}
          hidden={hidden}
          onToggle={(type) =>
            setHidden((h) => {
              const next = new Set(h);
              if (next.has(type)) next.delete(type);
              else next.add(type);
              return next;
            })
          }
          onOnly={(type) => setHidden(type ? new Set(types.map((t) => t.type).filter((t) => t !== type)) : new Set())}
        />
        {pathOpen && (
          <PathPanel
            from={selected && graph.hasNode(selected) ? graph.getNodeAttribute(selected, 'label') : ''}
            onPath={showPath}
            onSelect={select}
            onClose={() => setPathOpen(false)}
          />
        )}
        {selected && !pathOpen && (
          <NodePanel
            id={selected}
            label={graph.hasNode(selected) ? graph.getNodeAttribute(selected, 'label') : undefined}
            onSelect={select}
            onExpand={(id) => void expand(id)}
            onClose={closePanel}
            onSelectEdge={selectEdge}
            expanding={expanding}
          />
        )}
        {selectedEdge && !pathOpen && graph.hasEdge(selectedEdge) && (
          <EdgePanel
            key={selectedEdge}
            edge={graph.getEdgeAttributes(selectedEdge)}
            source={edgeEnd(graph, graph.source(selectedEdge))}
            target={edgeEnd(graph, graph.target(selectedEdge))}
            onSelect={select}
            onClose={closeEdgePanel}
          />
        )}
      </div>
    </div>
  );
}

type EmptyReason = 'unreachable' | 'unknown-start' | 'failed' | 'empty';

/** Why nothing is drawn: the service out of reach, a start node that names no entity, another failure, or no data. */
function emptyReason(status: Status, error: unknown, query: GraphQuery): EmptyReason {
  if (error instanceof ApiError && error.status === 404 && query.startNode.trim()) return 'unknown-start';
  if (error instanceof TypeError) return 'unreachable';
  if (status === 'failed' || error) return 'failed';
  return 'empty';
}

function EmptyGraph({ reason, start, error }: { reason: EmptyReason; start: string; error: unknown }) {
  if (reason === 'unknown-start')
    return (
      <>
        <strong>No entity matches “{start.trim()}”.</strong>
        <div>Search for it by name above, or clear Start to see the most connected entities.</div>
      </>
    );
  if (reason === 'unreachable')
    return (
      <>
        <strong>The service could not be reached.</strong>
        <div>Check that it is running, then retry.</div>
      </>
    );
  if (reason === 'failed')
    return (
      <>
        <strong>The graph could not be loaded.</strong>
        <div>{error ? describeError(error) : 'The stream ended before the graph arrived.'}</div>
      </>
    );
  return (
    <>
      <strong>The graph is empty.</strong>
      <div>
        Add a document on the <Link href="/documents">Documents</Link> page: its entities appear here as it is processed.
      </div>
    </>
  );
}

function edgeEnd(graph: ExplorerGraph, id: string): EdgeEnd {
  return { id, name: graph.getNodeAttribute(id, 'label') || id };
}
