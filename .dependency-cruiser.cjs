/**
 * The layer rules of src/ (docs/architecture.md): every module lives in a layer, a module imports from its own layer
 * or lower ones, never from a higher one, and nothing forms an import circle. `npm run lint:deps` (part of
 * `npm run lint`) fails on any violation.
 */
const { LAYERS, PEERS } = require('./scripts/lint/layers.cjs');

const escape = (name) => name.replace(/\./g, '\\.');
const dir = (names) => `^src/(${names.map(escape).join('|')})($|/)`;

const upward = LAYERS.slice(0, -1).map((names, i) => ({
  name: `layer-${i}-upward`,
  comment: `${names.join(', ')} may not import from a higher layer`,
  severity: 'error',
  from: { path: dir(names) },
  to: { path: dir(LAYERS.slice(i + 1).flat()) },
}));

/** Peers of one layer that must not know each other. */
const peers = (names) =>
  names.map((name) => ({
    name: `no-peer-import-${name}`,
    comment: `${name} does not import its peers (${names.join(', ')})`,
    severity: 'error',
    from: { path: dir([name]) },
    to: { path: dir(names.filter((n) => n !== name)) },
  }));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'import circles make modules that cannot be understood or loaded alone',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...upward,
    ...PEERS.flatMap(peers),
    {
      name: 'store-without-llm',
      comment: 'stores know nothing of providers or prompts',
      severity: 'error',
      from: { path: dir(['store']) },
      to: { path: dir(['llm', 'prompts']) },
    },
    {
      name: 'llm-without-store',
      comment: 'providers know nothing of stores',
      severity: 'error',
      from: { path: dir(['llm']), pathNot: '^src/llm/cache/' },
      to: { path: dir(['store']) },
    },
    {
      name: 'llm-cache-through-ports',
      comment: 'the LLM response cache writes through the key-value port it is given, never an adapter',
      severity: 'error',
      from: { path: '^src/llm/cache/' },
      to: { path: dir(['store']), dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-route-folder-import',
      comment: 'a route folder does not import another; what several share lives in routes/shared/ (or http/)',
      severity: 'error',
      from: { path: '^src/routes/([^/]+)/' },
      to: { path: '^src/routes/[^/]+/', pathNot: ['^src/routes/$1/', '^src/routes/shared/'] },
    },
    {
      name: 'services-yield-events',
      comment:
        'services, the graph and retrieval stream by yielding events (docs/architecture.md, Streams): the wire (the pump, ' +
        'SSE and NDJSON framing, the response body, compat error shapes) belongs to http/ and the routes',
      severity: 'error',
      from: { path: '^src/(services|graph|retrieval)/' },
      to: { path: '^src/http/(sse[^/]*|stream|compat-[^/]*)\\.ts$' },
    },
    {
      name: 'merge-through-its-entry',
      comment: 'outside src/ingest/merge/, the merge subsystem is reached through its entry, src/ingest/merge/index.ts',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/ingest/merge/' },
      to: { path: '^src/ingest/merge/', pathNot: '^src/ingest/merge/index\\.ts$' },
    },
    {
      name: 'routes-without-adapters',
      comment: 'routes call services; they never reach stores or providers except through their port types',
      severity: 'error',
      from: { path: dir(['routes']) },
      to: { path: '^src/(store|llm)/', dependencyTypesNot: ['type-only'] },
    },
  ],
  required: [
    {
      // A module outside every layer would escape the rules above: this rule asks it for an import that cannot
      // exist, so each such module is reported whatever it imports.
      name: 'in-a-layer',
      comment: 'every top-level entry of src/ has a layer in scripts/lint/layers.cjs',
      severity: 'error',
      module: { path: '^src/', pathNot: dir(LAYERS.flat()) },
      to: { path: '^$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|node_modules)/' },
  },
};
