/// <reference lib="webworker" />
/**
 * ForceAtlas2 in a web worker, so that the page stays responsive while a graph of thousands of nodes settles.
 * It runs iterations in slices of about one frame, posts the positions after each slice, and stops by itself
 * once nodes barely move any more (or after a bound on iterations).
 */
import { inferSettings } from 'graphology-layout-forceatlas2';
import defaults from 'graphology-layout-forceatlas2/defaults';
import iterate from 'graphology-layout-forceatlas2/iterate';
import type { LayoutCommand, LayoutReport } from './layout-protocol';

const PPN = 10;
const PPE = 3;
/** Mean movement per node per iteration, as a share of the layout's extent, below which the layout is settled. */
const SETTLED_MOVEMENT = 0.0008;
const SETTLED_SLICES = 4;
const SLICE_MS = 14;

/** The page's id of the run in progress; 0 when stopped. */
let current = 0;
/** Positions are sent one at a time: the next only once the page has drawn the previous (it acks), so a large
 * graph never queues more redraws than the page can make. Iterations go on meanwhile. */
let awaitingAck = false;

function post(report: LayoutReport, transfer: Transferable[] = []): void {
  (self as unknown as DedicatedWorkerGlobalScope).postMessage(report, transfer);
}

function run(command: Extract<LayoutCommand, { type: 'run' }>): void {
  current = command.runId;
  awaitingAck = false;
  const n = command.positions.length / 2;
  const m = command.edges.length / 2;
  const nodes = new Float32Array(n * PPN);
  for (let i = 0; i < n; i++) {
    nodes[i * PPN] = command.positions[2 * i];
    nodes[i * PPN + 1] = command.positions[2 * i + 1];
    nodes[i * PPN + 6] = 1; // mass: 1 + degree, below
    nodes[i * PPN + 7] = 1; // convergence
    nodes[i * PPN + 8] = 1; // size
  }
  const edges = new Float32Array(m * PPE);
  for (let e = 0; e < m; e++) {
    const s = command.edges[2 * e];
    const t = command.edges[2 * e + 1];
    edges[e * PPE] = s * PPN;
    edges[e * PPE + 1] = t * PPN;
    edges[e * PPE + 2] = 1;
    nodes[s * PPN + 6] += 1;
    nodes[t * PPN + 6] += 1;
  }
  const settings = { ...defaults, ...inferSettings(n), barnesHutOptimize: n > 800 };
  const started = performance.now();
  const previous = new Float32Array(2 * n);
  let iterations = 0;
  let calm = 0;

  const slice = () => {
    if (current !== command.runId) return;
    for (let i = 0; i < n; i++) {
      previous[2 * i] = nodes[i * PPN];
      previous[2 * i + 1] = nodes[i * PPN + 1];
    }
    const sliceStart = performance.now();
    let done = 0;
    do {
      iterate(settings, nodes, edges);
      done++;
    } while (performance.now() - sliceStart < SLICE_MS && iterations + done < command.maxIterations);
    iterations += done;
    const movement = meanMovement(nodes, previous, n) / done;
    calm = movement < SETTLED_MOVEMENT ? calm + 1 : 0;
    const settled = calm >= SETTLED_SLICES || iterations >= command.maxIterations || n === 0;
    if (!awaitingAck || settled) {
      const positions = new Float32Array(2 * n);
      for (let i = 0; i < n; i++) {
        positions[2 * i] = nodes[i * PPN];
        positions[2 * i + 1] = nodes[i * PPN + 1];
      }
      awaitingAck = true;
      post({ type: 'positions', runId: command.runId, positions, iterations, movement }, [positions.buffer]);
    }
    if (settled) {
      post({
        type: 'settled',
        runId: command.runId,
        iterations,
        ms: performance.now() - started,
        converged: calm >= SETTLED_SLICES || n === 0,
      });
      return;
    }
    setTimeout(slice, 0);
  };
  slice();
}

/** Mean distance moved since `previous`, relative to the larger side of the bounding box. */
function meanMovement(nodes: Float32Array, previous: Float32Array, n: number): number {
  if (n === 0) return 0;
  let minX = Infinity;
  let maxX = -Infinity;
  let minY = Infinity;
  let maxY = -Infinity;
  let moved = 0;
  for (let i = 0; i < n; i++) {
    const x = nodes[i * PPN];
    const y = nodes[i * PPN + 1];
    moved += Math.hypot(x - previous[2 * i], y - previous[2 * i + 1]);
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  const extent = Math.max(maxX - minX, maxY - minY, 1e-9);
  return moved / n / extent;
}

self.onmessage = (event: MessageEvent<LayoutCommand>) => {
  const command = event.data;
  if (command.type === 'run') run(command);
  else if (command.type === 'ack') {
    if (command.runId === current) awaitingAck = false;
  } else current = 0; // stop: the running slice sees that it is no longer current and ends
};
