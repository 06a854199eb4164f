import type Graph from 'graphology';
import type { LayoutCommand, LayoutReport } from './layout-protocol';

export interface LayoutProgress {
  running: boolean;
  iterations: number;
  /** Time from start to settled, when settled. */
  settledMs: number | null;
  converged: boolean;
}

/** Drives the ForceAtlas2 worker for one graphology graph and writes the positions it posts into the graph. */
export class LayoutRunner {
  private readonly worker = new Worker(new URL('./layout.worker.ts', import.meta.url), { type: 'module' });
  private index = new Map<string, number>();
  private runId = 0;
  private started = 0;
  progress: LayoutProgress = { running: false, iterations: 0, settledMs: null, converged: false };

  constructor(
    private readonly graph: Graph,
    private readonly onProgress: (progress: LayoutProgress) => void,
  ) {
    this.worker.onmessage = (event: MessageEvent<LayoutReport>) => this.receive(event.data);
  }

  /** (Re)starts the layout from the nodes' current positions. */
  run(maxIterations = 1500): void {
    const keys = this.graph.nodes();
    this.index = new Map(keys.map((key, i) => [key, i]));
    const positions = new Float32Array(keys.length * 2);
    keys.forEach((key, i) => {
      positions[2 * i] = this.graph.getNodeAttribute(key, 'x') as number;
      positions[2 * i + 1] = this.graph.getNodeAttribute(key, 'y') as number;
    });
    const edges = new Uint32Array(this.graph.size * 2);
    let e = 0;
    this.graph.forEachEdge((_edge, _attributes, source, target) => {
      edges[e++] = this.index.get(source)!;
      edges[e++] = this.index.get(target)!;
    });
    this.runId++;
    this.started = performance.now();
    this.progress = { running: true, iterations: 0, settledMs: null, converged: false };
    this.onProgress(this.progress);
    const command: LayoutCommand = { type: 'run', runId: this.runId, positions, edges, maxIterations };
    this.worker.postMessage(command, [positions.buffer, edges.buffer]);
  }

  stop(): void {
    this.runId++;
    this.worker.postMessage({ type: 'stop' } satisfies LayoutCommand);
    if (this.progress.running) {
      this.progress = { ...this.progress, running: false };
      this.onProgress(this.progress);
    }
  }

  dispose(): void {
    this.worker.terminate();
  }

  private receive(report: LayoutReport): void {
    if (report.runId !== this.runId) return;
    if (report.type === 'positions') {
      const { positions } = report;
      this.graph.updateEachNodeAttributes(
        (key, attributes) => {
          const i = this.index.get(key);
          if (i !== undefined) {
            attributes.x = positions[2 * i];
            attributes.y = positions[2 * i + 1];
          }
          return attributes;
        },
        { attributes: ['x', 'y'] },
      );
      this.progress = { ...this.progress, iterations: report.iterations };
      // Acknowledged once the frame that draws these positions has run: the worker sends no more until then.
      const runId = report.runId;
      requestAnimationFrame(() => this.worker.postMessage({ type: 'ack', runId } satisfies LayoutCommand));
    } else {
      this.progress = {
        running: false,
        iterations: report.iterations,
        settledMs: performance.now() - this.started,
        converged: report.converged,
      };
    }
    this.onProgress(this.progress);
  }
}
