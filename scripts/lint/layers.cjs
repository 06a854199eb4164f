/**
 * The layers of src/, bottom to top (docs/architecture.md). A module imports from its own layer or lower ones,
 * never from a higher one. Every top-level entry of src/ is in exactly one layer. Read by .dependency-cruiser.cjs
 * (the import graph, circles included, and any module outside the layers) and by eslint.config.mjs (the same rule
 * at the import line, in the editor).
 */
const LAYERS = [
  ['domain'],
  ['config', 'logger.ts'],
  ['prompts', 'llm', 'store'],
  ['records'],
  ['graph'],
  ['lineage', 'ingest', 'retrieval'],
  ['services'],
  ['http'],
  ['routes'],
  ['mcp'],
  ['app.ts', 'runtime.ts', 'engine.ts', 'main.ts', 'mcp-stdio.ts', 'heap.ts', 'maintenance'],
];

/** Layer peers that never import each other. */
const PEERS = [['lineage', 'ingest', 'retrieval']];

/** Names of src/ entries above layer `index`. */
const above = (index) => LAYERS.slice(index + 1).flat();

module.exports = { LAYERS, PEERS, above };
