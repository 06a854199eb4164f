/** Messages between the page and the layout worker. */
export type LayoutCommand =
  | {
      type: 'run';
      runId: number;
      /** x, y per node, in the order of the page's node list. */
      positions: Float32Array;
      /** Source and target node indexes per edge. */
      edges: Uint32Array;
      maxIterations: number;
    }
  /** The page drew the last positions: the worker may send the next ones. */
  | { type: 'ack'; runId: number }
  | { type: 'stop' };

export type LayoutReport =
  | { type: 'positions'; runId: number; positions: Float32Array; iterations: number; movement: number }
  | { type: 'settled'; runId: number; iterations: number; ms: number; converged: boolean };
