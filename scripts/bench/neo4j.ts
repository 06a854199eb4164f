/**
 * Persistent-mode benchmark: `npx tsx scripts/bench/neo4j.ts [--parts ingest,query,entities] [--latency 200]
 * [--corpus generated|handbook] [--documents 220] [--warmup-documents 40] [--warm-passes 0] [--workers N] [--chunks 10000] [--requests 300]
 * [--concurrency 1] [--entities 20000] [--batch 1000] [--workspace ID] [--keep] [--statements] [--stream [--write-graph]]
 * [--questions 64] [--cpu-profile DIR] [--neo4j-profile DIR]`. `--questions N` asks N distinct questions in turn instead of the corpus's 64 (not
 * with `--stream`). `--cpu-profile` writes a CPU profile of the service's main thread for the timed ingest and
 * each measured query run. `--neo4j-profile` records the local Neo4j with the JDK's flight recorder during the
 * timed ingest and prints where its execution samples fall (./neo4j-profile.ts); a Neo4j the bench starts then also
 * logs the statements it plans, and the bench prints how many it planned during the timed ingest. `--stream` writes the query corpus as it is generated, for sizes that do not fit in memory at once; with
 * `--workspace`, `--write-graph` writes only its graph there (after a load that stopped once the documents and chunks
 * were written), from where each kind's vectors end. `--workspace` queries a workspace an earlier run loaded with the
 * same `--chunks`
 * (on NEO4J_URI; `--keep` keeps it and prints its id) instead of loading the corpus again, which takes minutes on a busy
 * machine.
 * Runs on NEO4J_URI when given, else starts its own Neo4j 5.26 with scripts/neo4j/neo4j.sh (full JIT) and stops
 * it at the end. Prints three tables:
 *   ingest    the corpus of scripts/bench/ingest.ts (`--corpus handbook`: the handbook's 24 sections of
 *             scripts/bench/side-by-side.ts, all of them the warm-up as well) through the HTTP API with the mock
 *             provider at a simulated latency: documents per minute, chunks per second, wall time against the LLM-bound floor; with
 *             `--statements`, the Cypher statements per document and the busiest of them; `--warm-passes N` first
 *             ingests the whole corpus N times into scratch workspaces, so the figures are those of a server that
 *             has run for a while (a fresh JVM spends most of Neo4j's CPU in its first passes compiling Neo4j);
 *   query     context_only queries (hybrid by default) over loopback HTTP from the separate load process of
 *             scripts/bench/query.ts, on its synthetic corpus written through the store ports: p50/p95/p99;
 *   entities  batched GraphStore.upsertEntities (one transaction per batch): entities per second.
 * Every part warms Neo4j up before it starts timing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createApp } from '../../src/app';
import type { Scope } from '../../src/domain/types';
import { createLogger } from '../../src/logger';
import { createRuntime, type Runtime } from '../../src/runtime';
import { benchEntityWrites } from './neo4j-entity-writes';
import { benchNeo4jIngest } from './neo4j-ingest';
import { benchWorkspace } from './workspace';
import { type BenchNeo4j, startBenchNeo4j } from './neo4j-server';
import { loadCorpus, loadGeneratedCorpus, type LoadedCorpus, type ModeResult, RunProfiler, spawnLoad } from './query';
import { buildCorpus as buildQueryCorpus, questionsAbout } from './query-corpus';
import { benchConfig, listen } from './service';

const ENTITY_TARGET_PER_SECOND = 5_000;

const { values } = parseArgs({
  options: {
    parts: { type: 'string', default: 'ingest,query,entities' },
    latency: { type: 'string', default: '200' },
    corpus: { type: 'string', default: 'generated' },
    documents: { type: 'string', default: '220' },
    'warmup-documents': { type: 'string', default: '40' },
    'warm-passes': { type: 'string', default: '0' },
    workers: { type: 'string' },
    chunks: { type: 'string', default: '10000' },
    modes: { type: 'string', default: 'hybrid' },
    requests: { type: 'string', default: '300' },
    // More than the embedded bench's 30: Neo4j's JVM is still compiling its read paths after a few dozen queries.
    warmup: { type: 'string', default: '200' },
    questions: { type: 'string', default: '64' },
    concurrency: { type: 'string', default: '1' },
    entities: { type: 'string', default: '20000' },
    batch: { type: 'string', default: '1000' },
    workspace: { type: 'string' },
    statements: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    stream: { type: 'boolean', default: false },
    'write-graph': { type: 'boolean', default: false },
    'cpu-profile': { type: 'string' },
    'neo4j-profile': { type: 'string' },
  },
});
const parts = new Set(values.parts.split(','));

function ingestCorpus(name: string): 'generated' | 'handbook' {
  if (name === 'generated' || name === 'handbook') return name;
  throw new Error(`unknown corpus '${name}': generated, handbook`);
}

/**
 * `--neo4j-profile DIR` records the local Neo4j (started here, or NEO4J_PID) with the JDK's flight recorder; one
 * started here also writes the statements it plans to DIR (its plan log).
 */
function neo4jProfileOf(pid: number | null, planLog: string | undefined): { dir: string; pid: number; planLog?: string } | undefined {
  const dir = values['neo4j-profile'];
  if (!dir) return undefined;
  if (pid === null) throw new Error('--neo4j-profile needs a local Neo4j: one started by the bench, or NEO4J_PID');
  return { dir, pid, ...(planLog ? { planLog } : {}) };
}

/** The plan log of a Neo4j the bench starts under `--neo4j-profile DIR`. */
function planLogPath(): string | undefined {
  const dir = values['neo4j-profile'];
  if (!dir || process.env.NEO4J_URI) return undefined;
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, `neo4j-plans-${new Date().toISOString().replace(/[:.]/g, '-')}.log`);
}

function printRows(title: string, rows: Array<[string, string]>): void {
  const width = Math.max(...rows.map(([k]) => k.length));
  console.log(`\n${title}\n${'-'.repeat(width + 24)}`);
  for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);
}

/** A markdown table; the first `textColumns` columns are left-aligned, the numbers right-aligned. */
function printTable(title: string, header: string[], rows: string[][], textColumns = 1): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i < textColumns ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  console.log(`\n${title}\n`);
  console.log(line(header));
  console.log(`|${widths.map((w, i) => (i < textColumns ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

/** The query corpus loaded through the store ports, then context_only queries from the load process. */
async function benchQuery(rt: Runtime, scope: Scope, neo4j: BenchNeo4j): Promise<string[]> {
  const started = performance.now();
  const corpus = await queryCorpus(rt, scope, Number(values.chunks), () => (performance.now() - started) / 1000);
  const loadSeconds = (performance.now() - started) / 1000;
  console.log(
    `\nquery corpus: ${corpus.chunkIds.length} chunks, ${corpus.entities} entities, ${corpus.relationships} relationships ` +
      (values.workspace ? `(loaded earlier in workspace ${values.workspace})` : `(written and embedded in ${loadSeconds.toFixed(1)} s)`),
  );
  const { app } = createApp(rt);
  const server = await listen(app);
  const { url } = server;
  const rows: string[][] = [];
  try {
    for (const concurrency of values.concurrency.split(',').map(Number)) {
      const job = {
        url,
        workspace: scope.workspaceId,
        queries: corpus.queries,
        modes: values.modes.split(','),
        requests: Number(values.requests),
        warmup: Number(values.warmup),
        concurrency,
      };
      const before = neo4j.cpuSeconds();
      const { results, cpuMs } = await spawnLoad(job, new RunProfiler(values['cpu-profile'] ?? null));
      const after = neo4j.cpuSeconds();
      // Neo4j's CPU over the whole load run, warm-up included, per request.
      const neo4jMs =
        before === null || after === null ? NaN : ((after - before) * 1000) / ((job.requests + job.warmup) * job.modes.length);
      for (const r of results as ModeResult[]) {
        const f = (n: number | undefined) => (n ?? NaN).toFixed(1);
        rows.push([
          r.mode,
          String(corpus.chunkIds.length),
          String(concurrency),
          f(r.p50),
          f(r.p95),
          f(r.p99),
          f(r.qps),
          f(r.sources),
          String(r.errors),
          f(cpuMs.get(r.mode)),
          f(neo4jMs),
        ]);
      }
    }
  } finally {
    await server.close();
  }
  printTable(
    `context_only queries on Neo4j over loopback HTTP, ${values.requests} per mode after ${values.warmup} warm-up, separate load process`,
    ['mode', 'chunks', 'conc', 'p50 ms', 'p95 ms', 'p99 ms', 'qps', 'sources', 'errors', 'Node CPU ms/query', 'Neo4j CPU ms/query'],
    rows,
  );
  return corpus.chunkIds;
}

/**
 * The query corpus, written unless `--workspace` names one written earlier: built whole, or with `--stream`
 * written as it is generated (a million chunks do not fit in memory at once), with its progress printed.
 */
async function queryCorpus(rt: Runtime, scope: Scope, size: number, seconds: () => number): Promise<LoadedCorpus> {
  const write = !values.workspace;
  if (values.stream) {
    if (Number(values.questions) !== 64) throw new Error('--questions needs the corpus in memory: not with --stream');
    const writes = values['write-graph'] ? 'graph' : write ? 'all' : 'none';
    const progress = (chunks: number) => {
      if (chunks % 50_000 === 0)
        console.log(`  ${chunks} chunks ${writes === 'all' ? 'written' : 'generated'} in ${seconds().toFixed(0)} s`);
    };
    return loadGeneratedCorpus(rt, scope, size, { write: writes, progress });
  }
  const corpus = buildQueryCorpus(size);
  if (write) await loadCorpus(rt, scope, corpus);
  const { entities, relationships } = corpus;
  const queries = questionsAbout(corpus, Number(values.questions));
  return { chunkIds: corpus.chunks.map((c) => c.id), entities: entities.length, relationships: relationships.length, queries };
}

/** Without the query part, the entity writes still get a workspace of chunks to link to. */
async function writeChunks(rt: Runtime, scope: Scope): Promise<string[]> {
  const { chunks } = buildQueryCorpus(Number(values.chunks));
  await rt.stores.chunks.upsertMany(scope, chunks);
  return chunks.map((c) => c.id);
}

async function main(): Promise<void> {
  // As `node dist/main.js` runs: stack traces without source maps (tsx turns them on, and the Neo4j driver captures
  // a stack trace for every statement it runs).
  process.setSourceMapsEnabled(false);
  const planLog = planLogPath();
  const neo4j = startBenchNeo4j({ planLog });
  const stopOnSignal = () => {
    neo4j.stop();
    process.exit(130);
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  const stamp = Date.now().toString(36);
  const cpu = os.cpus();
  console.log(`Neo4j ${neo4j.uri} from ${neo4j.origin}`);
  console.log(
    `machine: ${cpu.length} cores (${cpu[0]?.model ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GB, Node ${process.version}`,
  );
  try {
    if (parts.has('ingest')) {
      const rows = await benchNeo4jIngest(neo4j.uri, {
        corpus: ingestCorpus(values.corpus),
        documents: Number(values.documents),
        latencyMs: Number(values.latency),
        warmup: Number(values['warmup-documents']),
        warmPasses: Number(values['warm-passes']),
        workers: values.workers,
        serverCpuSeconds: () => neo4j.cpuSeconds(),
        workspace: `bench-ingest-${stamp}`,
        statements: values.statements,
        profileDir: values['cpu-profile'],
        neo4jProfile: neo4jProfileOf(neo4j.pid, planLog),
      });
      printRows('ingest benchmark (Neo4j stores, mock provider)', rows);
    }
    if (!parts.has('query') && !parts.has('entities')) return;
    const config = benchConfig({
      inherit: true,
      fixed: { NEO4J_URI: neo4j.uri, RUST_LOG: 'error', SERVICE_AUTH_ENABLED: 'false' },
    });
    const rt = await createRuntime(config, createLogger('error'));
    const scope = values.workspace ? { workspaceId: values.workspace } : await benchWorkspace(rt, `bench-query-${stamp}`);
    // Named before the load: a load of hours that stops once its chunks are written goes on with --write-graph.
    if (values.keep && !values.workspace) console.log(`writing into workspace ${scope.workspaceId} (kept)`);
    try {
      const chunkIds = parts.has('query') ? await benchQuery(rt, scope, neo4j) : await writeChunks(rt, scope);
      if (parts.has('entities')) {
        const { warmupRows, passes } = await benchEntityWrites(rt.stores, scope, {
          entities: Number(values.entities),
          batch: Number(values.batch),
          chunkIds,
          serverCpuSeconds: () => neo4j.cpuSeconds(),
        });
        printTable(
          `batched entity writes through GraphStore.upsertEntities (one transaction per batch; two source chunks each, so MENTIONS ` +
            `are written too), after ${warmupRows} warm-up rows`,
          ['pass', 'entities', 'batch', 'seconds', 'entities/s', `target >= ${ENTITY_TARGET_PER_SECOND}/s`, 'Node CPU s', 'Neo4j CPU s'],
          passes.map((p) => [
            p.pass,
            String(p.entities),
            String(p.batch),
            p.seconds.toFixed(2),
            p.perSecond.toFixed(0),
            p.perSecond >= ENTITY_TARGET_PER_SECOND ? 'met' : 'MISSED',
            p.nodeCpuSeconds.toFixed(2),
            p.neo4jCpuSeconds === null ? '-' : p.neo4jCpuSeconds.toFixed(2),
          ]),
        );
      }
      if (values.keep) console.log(`\nworkspace ${scope.workspaceId} kept: --workspace ${scope.workspaceId} queries it again`);
      else if (process.env.NEO4J_URI && !values.workspace) await rt.stores.dropWorkspace(scope);
    } finally {
      await rt.close();
    }
  } finally {
    neo4j.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
