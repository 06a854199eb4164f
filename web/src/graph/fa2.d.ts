/** The single-iteration step of graphology-layout-forceatlas2 (no typings of its own): moves NodeMatrix in place. */
declare module 'graphology-layout-forceatlas2/iterate' {
  import type { ForceAtlas2Settings } from 'graphology-layout-forceatlas2';
  export default function iterate(settings: Required<ForceAtlas2Settings>, nodes: Float32Array, edges: Float32Array): Record<string, never>;
}

declare module 'graphology-layout-forceatlas2/defaults' {
  import type { ForceAtlas2Settings } from 'graphology-layout-forceatlas2';
  const defaults: Required<ForceAtlas2Settings>;
  export default defaults;
}
