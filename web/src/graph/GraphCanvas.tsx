import { useEffect, useRef } from 'react';
import Sigma from 'sigma';
import type { EdgeDisplayData, NodeDisplayData } from 'sigma/types';
import { FrameMeter } from './frames';
import { type LabelBox, LabelPlacer, ringOrBox } from './labels';
import type { LayoutProgress } from './layout';
import type { EdgeAttributes, ExplorerGraph, NodeAttributes } from './model';

export interface CanvasView {
  hiddenTypes: Set<string>;
  selected: string | null;
  /** A selected relationship: drawn strong with its two entities, the rest dimmed. */
  selectedEdge: string | null;
  /** Node sizes shrink on large graphs so that hubs do not cover their neighbourhoods. */
  sizeScale: number;
  /** Entities shown for an answer or a document: drawn strong, with the relationships among them. */
  highlighted?: Set<string>;
  /** A shortest path on show: its entities and relationships drawn strong, the rest dimmed. */
  path: { nodes: Set<string>; edges: Set<string> } | null;
}

/** What the explorer offers to scripts (the browser tests and the benchmark): the live objects and a frame meter. */
export interface ExplorerHandle {
  graph: ExplorerGraph;
  sigma: Sigma<NodeAttributes, EdgeAttributes>;
  frames: FrameMeter;
  layout: () => LayoutProgress;
  /** Page coordinates of a node's centre, for clicking it. */
  nodePagePosition: (id: string) => { x: number; y: number } | null;
  focusNode: (id: string) => void;
  /** Zooms in (factor > 1) or out around the centre of the view. */
  zoom: (factor: number) => void;
  /** Frames the nodes whose type is not hidden. */
  fit: (hiddenTypes: Set<string>) => void;
  /** The whole view framed, unzoomed. */
  resetCamera: (animate: boolean) => void;
  /** The camera's zoom ratio (1: the whole view; smaller: zoomed in). */
  cameraRatio: () => number;
  /** The boxes of the node labels drawn by the last render, in viewport pixels. */
  labelBoxes: () => LabelBox[];
}

declare global {
  interface Window {
    kgragExplorer?: ExplorerHandle;
  }
}

const DIM_NODE = '#e3e6ec';
const DIM_EDGE = '#eef0f4';
const SELECTED_EDGE = '#3259d6';

interface Props {
  graph: ExplorerGraph;
  view: CanvasView;
  layout: () => LayoutProgress;
  onSelect: (id: string | null) => void;
  onSelectEdge: (id: string) => void;
  onReady?: (handle: ExplorerHandle) => void;
}

/** The WebGL drawing of the graph (sigma): colours by type, sizes by degree, selection and type filters as reducers. */
export function GraphCanvas({ graph, view, layout, onSelect, onSelectEdge, onReady }: Props) {
  const container = useRef<HTMLDivElement>(null);
  const sigmaRef = useRef<Sigma<NodeAttributes, EdgeAttributes> | null>(null);
  const viewRef = useRef(view);
  viewRef.current = view;
  const selectRef = useRef(onSelect);
  selectRef.current = onSelect;
  const selectEdgeRef = useRef(onSelectEdge);
  selectEdgeRef.current = onSelectEdge;

  useEffect(() => {
    const element = container.current!;
    // The selected node's neighbours, recomputed when the selection or the graph's edges change.
    let aroundKey = '';
    let around = new Set<string>();
    const neighbours = (selected: string) => {
      const key = `${selected}\u0000${graph.size}`;
      if (key !== aroundKey) {
        aroundKey = key;
        around = graph.hasNode(selected) ? new Set(graph.neighbors(selected)) : new Set();
      }
      return around;
    };
    const labels = new LabelPlacer();
    let hovered: string | null = null;
    const sigma = new Sigma<NodeAttributes, EdgeAttributes>(graph, element, {
      renderEdgeLabels: false,
      // The page may be left (or its panel laid out again) while the canvas is being sized: draw nothing then
      // rather than throw.
      allowInvalidContainer: true,
      defaultDrawNodeLabel: labels.collect,
      defaultDrawNodeHover: ringOrBox((node) => node === hovered || node === viewRef.current.selected),
      labelRenderedSizeThreshold: 9,
      labelDensity: 0.6,
      // Room at the edges for the labels of the outermost nodes.
      stagePadding: 60,
      // Edges can be clicked (the picking layer exists only if asked for here); the page turns the events off on
      // large graphs.
      enableEdgeEvents: true,
      defaultEdgeColor: '#c5cbd6',
      zIndex: true,
      nodeReducer: (node, data) => {
        const { hiddenTypes, selected, selectedEdge, sizeScale, path } = viewRef.current;
        const display: Partial<NodeDisplayData> = { ...data, size: data.size * sizeScale };
        if (hiddenTypes.has(data.entityType)) return { ...display, hidden: true };
        if (path) {
          if (path.nodes.has(node)) return { ...display, forceLabel: true, highlighted: node === selected, zIndex: 3 };
          return { ...display, color: DIM_NODE, label: '', zIndex: 0 };
        }
        if (selectedEdge && graph.hasEdge(selectedEdge)) {
          const ends = graph.extremities(selectedEdge);
          if (ends.includes(node)) return { ...display, highlighted: true, zIndex: 3 };
          return { ...display, color: DIM_NODE, label: '', zIndex: 0 };
        }
        // New and expanded nodes, and those an answer or document highlights, are ringed and keep their labels
        // (placed without overlap by the label placer).
        if (data.freshUntil > Date.now() || viewRef.current.highlighted?.has(node)) {
          display.highlighted = true;
          display.forceLabel = true;
          display.zIndex = 2;
        }
        if (selected) {
          if (node === selected) {
            display.highlighted = true;
            display.zIndex = 3;
          } else if (!neighbours(selected).has(node)) {
            display.color = DIM_NODE;
            display.label = '';
            display.zIndex = 0;
          } else {
            display.zIndex = 1;
          }
        }
        return display;
      },
      edgeReducer: (edge, data) => {
        const { hiddenTypes, selected, selectedEdge, path } = viewRef.current;
        const display: Partial<EdgeDisplayData> = { ...data };
        const [source, target] = graph.extremities(edge);
        if (
          hiddenTypes.has(graph.getNodeAttribute(source, 'entityType')) ||
          hiddenTypes.has(graph.getNodeAttribute(target, 'entityType'))
        ) {
          return { ...display, hidden: true };
        }
        if (path) {
          if (path.edges.has(edge)) return { ...display, color: SELECTED_EDGE, size: Math.max(3, data.size * 2), zIndex: 2 };
          display.color = DIM_EDGE;
        } else if (selectedEdge) {
          if (edge === selectedEdge) return { ...display, color: SELECTED_EDGE, size: Math.max(3, data.size * 2), zIndex: 2 };
          display.color = DIM_EDGE;
        } else if (selected) {
          if (source === selected || target === selected) {
            display.color = '#6b7a99';
            display.zIndex = 1;
          } else display.color = DIM_EDGE;
        } else if (viewRef.current.highlighted?.has(source) && viewRef.current.highlighted.has(target)) {
          return { ...display, color: SELECTED_EDGE, size: Math.max(2, data.size * 1.5), zIndex: 1 };
        }
        return display;
      },
    });
    sigma.on('clickNode', ({ node }) => selectRef.current(node));
    sigma.on('clickStage', () => selectRef.current(null));
    sigma.on('clickEdge', ({ edge }) => selectEdgeRef.current(edge));
    sigma.on('enterEdge', () => (element.style.cursor = 'pointer'));
    sigma.on('leaveEdge', () => (element.style.cursor = ''));
    sigma.on('enterNode', ({ node }) => {
      hovered = node;
      element.style.cursor = 'pointer';
    });
    sigma.on('leaveNode', () => {
      hovered = null;
      element.style.cursor = '';
    });
    sigma.on('afterRender', () => labels.flush());
    sigmaRef.current = sigma;

    const frames = new FrameMeter();
    frames.attach(sigma);
    /** The ratio the last zoom button press is animating to. */
    let zoomTarget: number | null = null;
    const handle: ExplorerHandle = {
      graph,
      sigma,
      frames,
      layout,
      nodePagePosition: (id) => {
        if (!graph.hasNode(id)) return null;
        const point = sigma.graphToViewport(graph.getNodeAttributes(id));
        const rect = element.getBoundingClientRect();
        return { x: rect.left + point.x, y: rect.top + point.y };
      },
      focusNode: (id) => {
        const data = sigma.getNodeDisplayData(id);
        if (!data) return;
        const camera = sigma.getCamera();
        // Zoom in on large graphs only; keep the node clear of the detail panel on the right.
        const ratio = graph.order > 150 ? Math.min(camera.ratio, 0.35) : Math.min(camera.ratio, 1);
        const panel = element.querySelector('.panel') ?? element.parentElement?.querySelector('.panel');
        const shift = panel ? (panel.getBoundingClientRect().width / 2 / Math.max(1, element.clientWidth)) * ratio : 0;
        void camera.animate({ x: data.x + shift, y: data.y, ratio }, { duration: 400 });
      },
      zoom: (factor) => {
        const camera = sigma.getCamera();
        // Clicks faster than the animation add up: each zooms from where the one before is going.
        const from = camera.isAnimated() && zoomTarget !== null ? zoomTarget : camera.ratio;
        zoomTarget = Math.min(4, Math.max(0.02, from / factor));
        void camera.animate({ ratio: zoomTarget }, { duration: 250 });
      },
      fit: (hiddenTypes) => {
        let minX = Infinity;
        let minY = Infinity;
        let maxX = -Infinity;
        let maxY = -Infinity;
        graph.forEachNode((node, attributes) => {
          if (hiddenTypes.has(attributes.entityType)) return;
          const data = sigma.getNodeDisplayData(node);
          if (!data) return;
          minX = Math.min(minX, data.x);
          maxX = Math.max(maxX, data.x);
          minY = Math.min(minY, data.y);
          maxY = Math.max(maxY, data.y);
        });
        if (minX > maxX) return;
        // Display coordinates are those of the framed graph, in which ratio 1 shows the whole view.
        const ratio = Math.min(1, Math.max(0.05, Math.max(maxX - minX, maxY - minY) * 1.15));
        void sigma.getCamera().animate({ x: (minX + maxX) / 2, y: (minY + maxY) / 2, ratio, angle: 0 }, { duration: 400 });
      },
      resetCamera: (animate) => {
        const camera = sigma.getCamera();
        if (animate) {
          void camera.animatedReset({ duration: 400 });
          return;
        }
        const home = { x: 0.5, y: 0.5, ratio: 1, angle: 0 };
        camera.setState(home);
        // An animation still running (a focus, a zoom) would carry on from its next frame and undo the reset: the
        // camera's next animation replaces it.
        if (camera.isAnimated()) void camera.animate(home, { duration: 1 });
      },
      cameraRatio: () => sigma.getCamera().ratio,
      labelBoxes: () => labels.boxes.map((box) => ({ ...box })),
    };
    window.kgragExplorer = handle;
    onReady?.(handle);

    // Live highlights fade: redraw while any node is still marked fresh.
    const fade = setInterval(() => {
      const now = Date.now();
      if (graph.someNode((_key, attributes) => attributes.freshUntil > now - 1500)) sigma.refresh({ skipIndexation: true });
    }, 1000);

    return () => {
      clearInterval(fade);
      if (window.kgragExplorer === handle) delete window.kgragExplorer;
      sigma.kill();
      sigmaRef.current = null;
    };
    // One renderer per graph object; the view is read through a ref.
  }, [graph, layout, onReady]);

  useEffect(() => {
    sigmaRef.current?.refresh({ skipIndexation: true });
  }, [view]);

  return <div ref={container} className="graph-canvas" data-testid="graph-canvas" />;
}
