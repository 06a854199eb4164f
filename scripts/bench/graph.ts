/**
 * Graph exploration benchmark: `npx tsx scripts/bench/graph.ts [nodes] [edges] [requests]`.
 * Builds a skewed random graph in the embedded stores (through the GraphStore port), boots the service
 * in-process and times /graph and /graph/stats over real HTTP. Prints p50/p95/p99 per case.
 */
import { performance } from 'node:perf_hooks';
import { BENCH_MASTER_KEY, benchWorkspace } from './workspace';
import { createApp } from '../../src/app';
import type { EntityRecord, RelationshipRecord, Scope } from '../../src/domain/types';
import { createLogger } from '../../src/logger';
import { createRuntime } from '../../src/runtime';
import { seeded } from './random';
import { benchConfig, serve } from './service';
import { skewedRelationships, syntheticEntityId, syntheticRelationship } from './synthetic';

const NODES = Number(process.argv[2] ?? 50_000);
const EDGES = Number(process.argv[3] ?? 150_000);
const REQUESTS = Number(process.argv[4] ?? 50);
const WARMUP = 10;
const TYPES = ['PERSON', 'ORGANIZATION', 'CONCEPT', 'LOCATION', 'EVENT', 'TECHNOLOGY'];
const RELATIONS = ['RELATED_TO', 'WORKS_WITH', 'LOCATED_IN', 'PART_OF'];

async function buildGraph(write: (entities: EntityRecord[], relationships: RelationshipRecord[]) => Promise<void>) {
  const random = seeded(42);
  const now = new Date().toISOString();
  const id = syntheticEntityId;
  const entities: EntityRecord[] = [];
  for (let i = 0; i < NODES; i++) {
    entities.push({
      id: id(i),
      name: `Entity ${i}`,
      entity_type: TYPES[i % TYPES.length],
      description: `Entity ${i} appears in the benchmark corpus.`,
      source_chunk_ids: [`doc-${i % 500}-chunk-${i % 7}`],
      document_ids: [`doc-${i % 500}`],
      created_at: now,
      updated_at: now,
    });
  }
  const relationships = skewedRelationships(NODES, EDGES, random, (a, b, made) =>
    syntheticRelationship(a, b, now, RELATIONS[made % RELATIONS.length]),
  );
  await write(entities, [...relationships.values()]);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function time(url: string, workspace: string): Promise<{ p50: number; p95: number; p99: number; bytes: number; nodes: number }> {
  const headers = { 'X-Workspace-ID': workspace, 'X-API-Key': BENCH_MASTER_KEY };
  let bytes = 0;
  let nodes = 0;
  for (let i = 0; i < WARMUP; i++) await (await fetch(url, { headers })).arrayBuffer();
  const samples: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers });
    const body = await res.text();
    samples.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status} ${body.slice(0, 200)}`);
    bytes = body.length;
    nodes = (JSON.parse(body) as { nodes?: unknown[] }).nodes?.length ?? 0;
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p95: percentile(samples, 95), p99: percentile(samples, 99), bytes, nodes };
}

async function main() {
  const config = benchConfig();
  const rt = await createRuntime(config, createLogger(config.logLevel));
  const scope: Scope = await benchWorkspace(rt, 'bench graph');
  const built = performance.now();
  await buildGraph(async (entities, relationships) => {
    for (let i = 0; i < entities.length; i += 5000) await rt.stores.graph.upsertEntities(scope, entities.slice(i, i + 5000));
    for (let i = 0; i < relationships.length; i += 5000) {
      await rt.stores.graph.upsertRelationships(scope, relationships.slice(i, i + 5000));
    }
  });
  const stats = await rt.stores.graph.stats(scope);
  console.log(`graph: ${stats.total_nodes} nodes, ${stats.total_edges} edges, built in ${Math.round(performance.now() - built)} ms`);

  const service = await serve(rt, createApp(rt).app, { start: false });
  const base = `${service.url}/api/v1`;
  const hub = 'ENTITY_000000';
  const leaf = `ENTITY_${String(NODES - 1).padStart(6, '0')}`;
  const cases: Array<[string, string]> = [
    ['/graph?max_nodes=1000 (top by degree)', '/graph?max_nodes=1000'],
    [`/graph?start_node=<hub>&depth=2&max_nodes=1000`, `/graph?start_node=${hub}&depth=2&max_nodes=1000`],
    [`/graph?start_node=<leaf>&depth=3&max_nodes=1000`, `/graph?start_node=${leaf}&depth=3&max_nodes=1000`],
    ['/graph (defaults: 100 nodes)', '/graph'],
    ['/graph/stats', '/graph/stats'],
  ];
  const rows: string[][] = [];
  for (const [label, path] of cases) {
    const r = await time(base + path, scope.workspaceId);
    rows.push([label, r.p50.toFixed(1), r.p95.toFixed(1), r.p99.toFixed(1), String(r.nodes), `${Math.round(r.bytes / 1024)} KiB`]);
  }
  const header = ['case', 'p50 ms', 'p95 ms', 'p99 ms', 'nodes', 'body'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(`\n${REQUESTS} requests per case after ${WARMUP} warm-up requests\n`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
  await service.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
