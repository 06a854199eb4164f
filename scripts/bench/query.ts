/**
 * Query benchmark: `npx tsx scripts/bench/query.ts [--sizes 5000,10000] [--requests 300] [--warmup 30]
 * [--concurrency 1,2] [--modes hybrid] [--questions 64]`.
 * `--requests` are measured per mode after `--warmup` requests, one at a time, that let the JIT settle; a
 * throughput figure needs a few thousand of each (a run of 300 after 30 mostly measures warm-up). The corpus
 * has 64 questions, asked in turn; `--questions N` makes N, so that a long run keeps asking new ones.
 * For each corpus size: builds a deterministic synthetic knowledge base (query-corpus.ts: chunks of about 1200
 * tokens, 0.8 entities and about 1.5 relationships per chunk, a few very connected entities) and writes it
 * through the store ports in the record shapes ingestion writes, with real mock embeddings through the provider.
 * Boots the service in-process, then a SEPARATE load process on loopback fires `context_only` queries per mode
 * at a small concurrency and reports latencies.
 * Prints per size, concurrency and mode: p50/p95/p99 with the server's CPU time per query beside them (the serving
 * process's `process.cpuUsage()` over all its threads, divided by the run's queries), queries per second, the
 * in-process service time with its CPU per query, the time the event loop was busy per query, the time garbage
 * collection took per query and how many collections were full ones, the load process's own CPU per query (it shares
 * the cores: server and load CPU per query together bound the queries per second this machine can reach), the load
 * average, and how latency and CPU grew with size. CPU time is steadier than wall time when other work shares the
 * machine, not immune to it: at load average 9 to 17 on two cores the same code spent 1.6 to 1.8 times the CPU per
 * query it spent at load average 2 (docs/benchmarks.md, The service alone).
 * `--cpu-profile DIR` writes a CPU profile of the server's main thread for each measured run (the profiler adds its
 * own cost to the figures of that run).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createApp } from '../../src/app';
import { packByWeight } from '../../src/domain/pack';
import type { Scope } from '../../src/domain/types';
import { chunkItems, embedInto, entityItems, relationshipItems } from '../../src/ingest/embed/embed';
import { createLogger } from '../../src/logger';
import type { QueryMode } from '../../src/retrieval/recipes';
import { createRuntime, type Runtime } from '../../src/runtime';
import { buildCorpus, CHUNKS_PER_DOCUMENT, type Corpus, type CorpusPart, generateCorpus, questionsAbout } from './query-corpus';
import { loadAverage } from './host';
import { benchConfig, serve } from './service';
import { BENCH_MASTER_KEY } from './workspace';

const MODES = ['naive', 'local', 'global', 'hybrid', 'mix'] as const;

export interface LoadJob {
  url: string;
  workspace: string;
  queries: string[];
  modes: readonly string[];
  requests: number;
  warmup: number;
  concurrency: number;
  /** Sent as X-API-Key when set. */
  apiKey?: string;
  /** Index of the first question asked: each run begins where the one before it ended. */
  firstQuery?: number;
}

export interface ModeResult {
  mode: string;
  /** Median of the same queries answered in the server process without HTTP (service time). */
  inProcessP50?: number;
  /** Server process CPU time per query of that in-process pass (every thread). */
  inProcessCpuMs?: number;
  /** Server process CPU time per request under load (every thread): robust to other processes on the machine. */
  serverCpuMs?: number;
  /** Time the server's event loop was busy per request under load: what one thread has to do per query. */
  loopMs?: number;
  /** Time the server's garbage collections took per request under load (V8's own measure of each collection). */
  gcMs?: number;
  /** Full (mark-compact) collections of the server's heap during the run. */
  majorGcs?: number;
  /**
   * CPU time of the load process itself per request (sending, receiving and parsing the answers): it runs on the
   * same cores, so server and load CPU per query together bound the queries per second the machine can reach.
   */
  loadCpuMs: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  qps: number;
  sources: number;
  errors: number;
}

/** Records written, and texts embedded, this many chunks' worth at a time: a 100,000-chunk corpus loads in slices. */
const LOAD_SLICE = 5_000;

const slices = <T>(items: T[], size: number) =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

const embedOptions = (rt: Runtime) => ({ queues: rt.ingest.queues, concurrency: rt.config.ingest.embeddingConcurrency });

/** Documents, then their chunks with the chunks' vectors. */
async function writeDocuments(rt: Runtime, scope: Scope, part: CorpusPart): Promise<void> {
  const { stores } = rt;
  for (const doc of part.documents) await stores.documents.insert(scope, doc);
  for (const chunks of slices(part.chunks, LOAD_SLICE)) {
    await stores.chunks.upsertMany(scope, chunks);
    await embedInto(stores.vectors, scope, 'chunk', rt.providers.embedding(), chunkItems(chunks), embedOptions(rt));
  }
}

const SOURCES_PER_WRITE = 200_000;

/**
 * Records in slices of at most `size`, and of at most SOURCES_PER_WRITE source ids in all: one write is one
 * transaction, and the most named entities of a million-chunk corpus cite hundreds of thousands of chunks each (a
 * slice of 5,000 of them went past Neo4j's 2.1 GiB of transaction memory).
 */
function sourceSlices<T extends { source_chunk_ids: string[]; document_ids: string[] }>(items: T[], size: number): T[][] {
  return packByWeight(items, (item) => item.source_chunk_ids.length + item.document_ids.length, SOURCES_PER_WRITE, size);
}

/**
 * Entities, then relationships (they reference entities only), with their vectors. Slices go in a fixed order and
 * a slice's vectors are written after its records, so a write that stopped resumes where the vectors of each kind
 * end: the slices that the workspace's vector count already covers are skipped.
 */
async function writeGraph(rt: Runtime, scope: Scope, graph: Pick<Corpus, 'entities' | 'relationships'>): Promise<void> {
  const { stores } = rt;
  const embedder = rt.providers.embedding();
  const pending = async <T>(kind: 'entity' | 'relationship', parts: T[][]): Promise<T[][]> => {
    let covered = await stores.vectors.count(scope, kind);
    const skip = parts.findIndex((part) => (covered -= part.length) < 0);
    if (skip > 0) console.log(`  ${kind}: ${skip} slices written before, skipped`);
    return skip < 0 ? [] : parts.slice(skip);
  };
  for (const entities of await pending('entity', sourceSlices(graph.entities, LOAD_SLICE))) {
    await stores.graph.upsertEntities(scope, entities);
    await embedInto(stores.vectors, scope, 'entity', embedder, entityItems(entities), embedOptions(rt));
  }
  // About 1.5 relationships per chunk, hence the larger slices.
  for (const relationships of await pending('relationship', sourceSlices(graph.relationships, 2 * LOAD_SLICE))) {
    await stores.graph.upsertRelationships(scope, relationships);
    await embedInto(stores.vectors, scope, 'relationship', embedder, relationshipItems(relationships), embedOptions(rt));
  }
}

export async function loadCorpus(rt: Runtime, scope: Scope, corpus: Corpus): Promise<void> {
  await writeDocuments(rt, scope, corpus);
  await writeGraph(rt, scope, corpus);
}

/** What a corpus written as it was generated leaves behind: its sizes and its questions. */
export interface LoadedCorpus {
  chunkIds: string[];
  entities: number;
  relationships: number;
  queries: string[];
}

/** What of a generated corpus is written: all of it, its graph only (its documents written before), or nothing. */
export type CorpusWrites = 'all' | 'graph' | 'none';

/**
 * The corpus of `buildCorpus(chunkCount)` written through the store ports as it is generated, LOAD_SLICE chunks
 * at a time, so that only its graph is held at once; `progress` hears the chunks generated so far. `write` says
 * what is written: with 'none' it is only generated, for the questions of a corpus written earlier.
 */
export async function loadGeneratedCorpus(
  rt: Runtime,
  scope: Scope,
  chunkCount: number,
  { write = 'all', progress }: { write?: CorpusWrites; progress?: (chunks: number) => void } = {},
): Promise<LoadedCorpus> {
  const parts = generateCorpus(chunkCount, LOAD_SLICE / CHUNKS_PER_DOCUMENT);
  const chunkIds: string[] = [];
  for (;;) {
    const next = parts.next();
    if (next.done) {
      if (write !== 'none') await writeGraph(rt, scope, next.value);
      const { entities, relationships, queries } = next.value;
      return { chunkIds, entities: entities.length, relationships: relationships.length, queries };
    }
    if (write === 'all') await writeDocuments(rt, scope, next.value);
    for (const chunk of next.value.chunks) chunkIds.push(chunk.id);
    progress?.(chunkIds.length);
  }
}

/**
 * One POST on a kept-alive connection, answered with its status and body. Plain `node:http`: the load process
 * shares the machine's cores with the service, and `fetch` (undici, web streams) spent about 2.8 ms of CPU per
 * 60 KB answer where this spends a fraction of it.
 */
function post(agent: Agent, url: URL, headers: Record<string, string>, body: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs in the load process: fires the requests and prints one JSON line of results. */
async function runLoad(job: LoadJob): Promise<void> {
  const results: ModeResult[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: job.concurrency });
  const url = new URL(`${job.url}/api/v1/query`);
  const headers = {
    'Content-Type': 'application/json',
    'X-Workspace-ID': job.workspace,
    ...(job.apiKey ? { 'X-API-Key': job.apiKey } : {}),
  };
  let q = job.firstQuery ?? 0;
  const fire = async (mode: string) => {
    const started = performance.now();
    const res = await post(agent, url, headers, JSON.stringify({ query: job.queries[q++ % job.queries.length], mode, context_only: true }));
    const body = JSON.parse(res.body.toString()) as { sources?: unknown[] };
    return { ms: performance.now() - started, ok: res.status === 200, sources: body.sources?.length ?? 0 };
  };
  for (const mode of job.modes) {
    for (let i = 0; i < job.warmup; i++) await fire(mode);
    await tellServer({ phase: 'start', mode });
    const latencies: number[] = [];
    let sources = 0;
    let errors = 0;
    let next = 0;
    const started = performance.now();
    const cpuMark = process.cpuUsage();
    const worker = async () => {
      while (next++ < job.requests) {
        const r = await fire(mode);
        latencies.push(r.ms);
        sources += r.sources;
        if (!r.ok) errors++;
      }
    };
    await Promise.all(Array.from({ length: job.concurrency }, worker));
    const elapsed = performance.now() - started;
    const loadCpu = process.cpuUsage(cpuMark);
    await tellServer({ phase: 'end', mode });
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)];
    results.push({
      mode,
      p50: pct(50),
      p95: pct(95),
      p99: pct(99),
      mean: latencies.reduce((s, x) => s + x, 0) / latencies.length,
      qps: (latencies.length / elapsed) * 1000,
      sources: sources / latencies.length,
      errors,
      loadCpuMs: (loadCpu.user + loadCpu.system) / 1000 / latencies.length,
    });
  }
  agent.destroy();
  process.stdout.write(`${JSON.stringify(results)}\n`);
}

interface PhaseMessage {
  phase: 'start' | 'end';
  mode: string;
}

/** Lets the server process take a CPU reading at the edges of each measured run, and waits for it. */
function tellServer(message: PhaseMessage): Promise<void> {
  return new Promise((resolve) => {
    process.once('message', () => resolve());
    process.send?.(message);
  });
}

/** Profiles the server's main thread during each measured run when a directory is given (`--cpu-profile DIR`). */
export class RunProfiler {
  private session: Session | null = null;

  constructor(private readonly dir: string | null) {}

  async start(): Promise<void> {
    if (!this.dir) return;
    this.session = new Session();
    this.session.connect();
    await this.session.post('Profiler.enable');
    await this.session.post('Profiler.start');
  }

  async stop(name: string): Promise<void> {
    if (!this.session || !this.dir) return;
    const { profile } = await this.session.post('Profiler.stop');
    this.session.disconnect();
    this.session = null;
    const file = path.join(this.dir, `${name}.cpuprofile`);
    mkdirSync(this.dir, { recursive: true });
    writeFileSync(file, JSON.stringify(profile));
    console.log(`profile of the server's main thread: ${file}`);
  }
}

/** The garbage collections of this process from `start` to `stop`: their time in all and how many were full. */
class GcWatch {
  private ms = 0;
  private major = 0;
  private readonly observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      this.ms += entry.duration;
      const { detail } = entry as PerformanceEntry & { detail?: { kind?: number } };
      if (detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) this.major++;
    }
  });

  start(): void {
    this.ms = 0;
    this.major = 0;
    this.observer.observe({ entryTypes: ['gc'] });
  }

  stop(): { ms: number; major: number } {
    for (const entry of this.observer.takeRecords()) this.ms += entry.duration;
    this.observer.disconnect();
    return { ms: this.ms, major: this.major };
  }
}

/** Per mode of a load run, what the server process spent per request: CPU, event loop and garbage collection. */
export interface ServerCost {
  cpuMs: Map<string, number>;
  loopMs: Map<string, number>;
  gcMs: Map<string, number>;
  majorGcs: Map<string, number>;
}

export function spawnLoad(job: LoadJob, profiler = new RunProfiler(null)): Promise<{ results: ModeResult[] } & ServerCost> {
  return new Promise((resolve, reject) => {
    // The job goes over the IPC channel: thousands of questions do not fit on a command line.
    const child = spawn(process.execPath, [...process.execArgv, __filename, '--load'], {
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    });
    child.send(job);
    const cost: ServerCost = { cpuMs: new Map(), loopMs: new Map(), gcMs: new Map(), majorGcs: new Map() };
    const gc = new GcWatch();
    let mark = process.cpuUsage();
    let loopMark = performance.eventLoopUtilization();
    child.on('message', async (m: PhaseMessage) => {
      if (m.phase === 'start') {
        await profiler.start();
        gc.start();
        mark = process.cpuUsage();
        loopMark = performance.eventLoopUtilization();
      } else {
        const used = process.cpuUsage(mark);
        cost.cpuMs.set(m.mode, (used.user + used.system) / 1000 / job.requests);
        cost.loopMs.set(m.mode, performance.eventLoopUtilization(loopMark).active / job.requests);
        const collected = gc.stop();
        cost.gcMs.set(m.mode, collected.ms / job.requests);
        cost.majorGcs.set(m.mode, collected.major);
        await profiler.stop(`query-${m.mode}-c${job.concurrency}`);
      }
      child.send('ok');
    });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`load process exited with ${code}`));
      resolve({ results: JSON.parse(out.trim().split('\n').pop() as string) as ModeResult[], ...cost });
    });
  });
}

/**
 * Median time of each mode's queries called directly on the query service, one at a time, and the process's CPU
 * time per query over them (after the warm-up).
 */
async function serviceTimes(rt: Runtime, scope: Scope, modes: readonly string[], queries: string[], warmup: number, count: number) {
  const medians = new Map<string, number>();
  const cpuMs = new Map<string, number>();
  for (const mode of modes) {
    const times: number[] = [];
    let mark = process.cpuUsage();
    for (let i = 0; i < warmup + count; i++) {
      if (i === warmup) mark = process.cpuUsage();
      const started = performance.now();
      await rt.query.answer(scope, { query: queries[i % queries.length], mode: mode as QueryMode, context_only: true });
      if (i >= warmup) times.push(performance.now() - started);
    }
    const used = process.cpuUsage(mark);
    cpuMs.set(mode, (used.user + used.system) / 1000 / count);
    times.sort((a, b) => a - b);
    medians.set(mode, times[Math.floor(times.length / 2)]);
  }
  return { medians, cpuMs };
}

/** A workspace created through the API, as a client would (the service refuses unknown workspace ids). */
async function createWorkspace(url: string, name: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/workspaces`, {
    method: 'POST',
    headers: { 'X-API-Key': BENCH_MASTER_KEY, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  if (res.status !== 201) throw new Error(`creating the bench workspace answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

interface SizeRun {
  size: number;
  entities: number;
  relationships: number;
  buildSeconds: number;
  loadSeconds: number;
  /** Resident set size of the service process once every run is over. */
  rssMb: number;
  /** One load run per concurrency level. */
  byConcurrency: Array<{ concurrency: number; results: ModeResult[] }>;
}

async function benchSize(
  size: number,
  args: { requests: number; concurrency: number[]; warmup: number; modes: string[]; questions: number; profileDir: string | null },
): Promise<SizeRun> {
  const config = benchConfig({ inherit: true, fixed: { RUST_LOG: 'error' } });
  const rt = await createRuntime(config, createLogger('error'));
  const service = await serve(rt, createApp(rt).app, { start: false });
  const { url } = service;
  try {
    const workspace = await createWorkspace(url, `query bench ${size}`);
    const scope = { workspaceId: workspace };
    const t = performance.now();
    let corpus: Corpus | null = buildCorpus(size);
    const buildSeconds = (performance.now() - t) / 1000;
    const { entities, relationships } = { entities: corpus.entities.length, relationships: corpus.relationships.length };
    const queries = questionsAbout(corpus, args.questions);
    await loadCorpus(rt, scope, corpus);
    // Only the stores keep the corpus from here on, so the RSS printed is the service's.
    corpus = null;
    const loadSeconds = (performance.now() - t) / 1000 - buildSeconds;
    // The in-process pass asks the corpus's own questions; the load runs go on from there, so with more
    // `--questions` than they ask, every question they send is new to the service (its keyword cache misses).
    const own = queries.slice(0, Math.min(queries.length, 64));
    const inProcess = await serviceTimes(rt, scope, args.modes, own, args.warmup, Math.min(args.requests, 200));
    const byConcurrency = [];
    let firstQuery = own.length;
    for (const concurrency of args.concurrency) {
      const job = {
        url,
        workspace,
        queries,
        modes: args.modes,
        requests: args.requests,
        warmup: args.warmup,
        concurrency,
        apiKey: BENCH_MASTER_KEY,
        firstQuery,
      };
      firstQuery += args.modes.length * (args.warmup + args.requests);
      const { results, ...cost } = await spawnLoad(job, new RunProfiler(args.profileDir));
      for (const r of results) {
        r.inProcessP50 = inProcess.medians.get(r.mode);
        r.inProcessCpuMs = inProcess.cpuMs.get(r.mode);
        r.serverCpuMs = cost.cpuMs.get(r.mode);
        r.loopMs = cost.loopMs.get(r.mode);
        r.gcMs = cost.gcMs.get(r.mode);
        r.majorGcs = cost.majorGcs.get(r.mode);
      }
      byConcurrency.push({ concurrency, results });
    }
    return {
      size,
      entities,
      relationships,
      buildSeconds,
      loadSeconds,
      rssMb: process.memoryUsage().rss / 2 ** 20,
      byConcurrency,
    };
  } finally {
    await service.close();
  }
}

/** The columns of the results table: a heading and the cell of a row (a number is printed with one decimal). */
const COLUMNS: Array<[string, (r: ModeResult) => number | string | undefined]> = [
  ['p50 ms', (r) => r.p50],
  ['p95 ms', (r) => r.p95],
  ['p99 ms', (r) => r.p99],
  ['server CPU ms/query', (r) => r.serverCpuMs],
  ['qps', (r) => r.qps],
  ['sources', (r) => r.sources],
  ['errors', (r) => String(r.errors)],
  ['service p50 ms', (r) => r.inProcessP50],
  ['service CPU ms/query', (r) => r.inProcessCpuMs],
  ['event loop ms/query', (r) => r.loopMs],
  ['GC ms/query', (r) => r.gcMs],
  ['full GCs', (r) => String(r.majorGcs ?? '')],
  ['load CPU ms/query', (r) => r.loadCpuMs],
];

function printTable(runs: SizeRun[]): void {
  const cell = (v: number | string | undefined, width: number) => (typeof v === 'string' ? v : (v ?? NaN).toFixed(1)).padStart(width);
  const widths = COLUMNS.map(([heading]) => Math.max(7, heading.length));
  console.log(`\n| chunks | conc | mode   | ${COLUMNS.map(([heading], i) => heading.padStart(widths[i])).join(' | ')} |`);
  console.log(`|-------:|-----:|:-------|${widths.map((w) => `${'-'.repeat(w + 1)}:`).join('|')}|`);
  for (const run of runs) {
    for (const { concurrency, results } of run.byConcurrency) {
      for (const r of results) {
        const cells = [String(run.size).padStart(6), String(concurrency).padStart(4), r.mode.padEnd(6)];
        cells.push(...COLUMNS.map(([, value], i) => cell(value(r), widths[i])));
        console.log(`| ${cells.join(' | ')} |`);
      }
    }
  }
}

/** How the median and the server CPU per query grew from the smallest to the largest corpus. */
function printGrowth(runs: SizeRun[]): void {
  const [small, large] = [runs[0], runs[runs.length - 1]];
  console.log(`\nGrowth from ${small.size} to ${large.size} chunks (corpus x${(large.size / small.size).toFixed(1)}):`);
  for (const [i, { concurrency, results }] of large.byConcurrency.entries()) {
    for (const r of results) {
      const before = small.byConcurrency[i].results.find((x) => x.mode === r.mode) as ModeResult;
      const [cpuBefore, cpuAfter] = [before.serverCpuMs ?? NaN, r.serverCpuMs ?? NaN];
      console.log(
        `  concurrency ${concurrency} ${r.mode.padEnd(6)} p50 x${(r.p50 / before.p50).toFixed(2)} (${before.p50.toFixed(1)} → ${r.p50.toFixed(1)} ms), ` +
          `server CPU per query x${(cpuAfter / cpuBefore).toFixed(2)} (${cpuBefore.toFixed(1)} → ${cpuAfter.toFixed(1)} ms)`,
      );
    }
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      load: { type: 'boolean', default: false },
      sizes: { type: 'string', default: '5000,10000' },
      requests: { type: 'string', default: '300' },
      concurrency: { type: 'string', default: '1,2' },
      warmup: { type: 'string', default: '30' },
      questions: { type: 'string', default: '64' },
      modes: { type: 'string', default: MODES.join(',') },
      'cpu-profile': { type: 'string' },
    },
  });
  if (values.load) return runLoad(await new Promise<LoadJob>((resolve) => process.once('message', resolve)));

  const sizes = values.sizes.split(',').map(Number);
  const args = {
    requests: Number(values.requests),
    concurrency: values.concurrency.split(',').map(Number),
    warmup: Number(values.warmup),
    questions: Number(values.questions),
    modes: values.modes.split(','),
    profileDir: values['cpu-profile'] ?? null,
  };
  console.log(
    `context_only queries, ${args.requests} per mode after ${args.warmup} warm-up, separate load process, ${args.questions} distinct questions, load average ${loadAverage()}\n`,
  );
  const runs: SizeRun[] = [];
  for (const size of sizes) {
    const run = await benchSize(size, args);
    runs.push(run);
    console.log(
      `${size} chunks, ${run.entities} entities, ${run.relationships} relationships (built in ${run.buildSeconds.toFixed(1)} s, written and embedded through the store ports in ${run.loadSeconds.toFixed(1)} s), RSS ${run.rssMb.toFixed(0)} MB after the runs, load average ${loadAverage()}`,
    );
  }
  printTable(runs);
  if (runs.length >= 2) printGrowth(runs);
  console.log(`\nload average ${loadAverage()} (1, 5 and 15 minutes)`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
