import { performance } from 'node:perf_hooks';
import { createApp } from '../../src/app';
import { createLogger } from '../../src/logger';
import { createRuntime } from '../../src/runtime';
import path from 'node:path';
import { handbookSections } from './corpus/handbook';
import { buildCorpus, countingProviders } from './ingest';
import { RunProfiler } from './query';
import { watchSlots } from './slot-timeline';
import neo4j from 'neo4j-driver';
import { planLogRows, profileRows, readPlanLog, recordNeo4j } from './neo4j-profile';
import { collectPlans, type PlanSummary, statementKey, timeStatements } from './neo4j-statements';
import { benchWorkspace } from './workspace';
import { benchConfig, serve, SYNCHRONOUS } from './service';

export interface IngestOptions {
  /** `generated`: the corpus of scripts/bench/ingest.ts cut into `documents`; `handbook`: the 24 handbook sections. */
  corpus: 'generated' | 'handbook';
  documents: number;
  latencyMs: number;
  /** Documents ingested into a scratch workspace first, so Neo4j has planned and compiled the write queries. */
  warmup: number;
  /**
   * Whole passes of the corpus ingested into scratch workspaces (each dropped after it) before the warm-up: a fresh
   * JVM goes on compiling Neo4j's own code for several passes, and a long-running server has done so already.
   */
  warmPasses: number;
  /** WORKER_THREADS (documents processed at once); else the environment's, else twice the LLM concurrency. */
  workers?: string;
  workspace: string;
  /** CPU seconds used so far by the Neo4j process, when it is local. */
  serverCpuSeconds: () => number | null;
  /** Time every statement of the timed ingest: the rows then end with the busiest statements, per document. */
  statements?: boolean;
  /** Where a CPU profile of the service's main thread during the timed ingest goes; none without it. */
  profileDir?: string;
  /**
   * Where a Java Flight Recorder recording of Neo4j during the timed ingest goes, with the process it records and
   * the plan log that process writes (when the bench started it).
   */
  neo4jProfile?: { dir: string; pid: number; planLog?: string };
}

/** The statements of the timed ingest that took the most time in all, per document. */
function statementRows(timer: ReturnType<typeof timeStatements>, documents: number): Array<[string, string]> {
  const timings = timer.timings();
  const calls = timings.reduce((n, t) => n + t.count, 0);
  const kb = (bytes: number) => `${(bytes / 1024 / documents).toFixed(1)} KB`;
  const total = (field: 'sent' | 'received') => timings.reduce((n, t) => n + t[field], 0);
  const rows: Array<[string, string]> = [
    ['statements per document (all)', (calls / documents).toFixed(1)],
    ['parameters sent / records received per document (as JSON)', `${kb(total('sent'))} / ${kb(total('received'))}`],
  ];
  for (const t of timings.slice(0, 30)) {
    rows.push([
      `  ${statementKey(t.text).slice(0, 90)}`,
      `${(t.count / documents).toFixed(2)} per document, ${(t.ms / t.count).toFixed(1)} ms each, ${(t.ms / documents).toFixed(1)} ms per document, ${kb(t.sent)} / ${kb(t.received)}`,
    ]);
  }
  return rows;
}

/**
 * Neo4j's wall time in the compile phase during the timed ingest, against executing. Wall time: a cached plan's
 * lookup that waited for the CPU or for another session's plan of the same statement counts too, so the statements
 * over 5 ms are many more than the plans made (which `--neo4j-profile` counts from Neo4j's plan log).
 */
function planRows(planned: PlanSummary, documents: number): Array<[string, string]> {
  const rows: Array<[string, string]> = [
    [
      'Neo4j compile phase / execution (db.stats)',
      `${(planned.compileMs / 1000).toFixed(1)} s / ${(planned.executeMs / 1000).toFixed(1)} s over ${planned.invocations} statements`,
    ],
    [
      '  statements over 5 ms in the compile phase (not all plans: waits count)',
      `${planned.plans} (${(planned.plans / documents).toFixed(2)} per document), ${(planned.planMs / 1000).toFixed(1)} s`,
    ],
  ];
  for (const t of planned.top) {
    rows.push([
      `  ${t.text.slice(0, 90)}`,
      `${t.invocations} run, ${t.plans} over 5 ms, ${(t.compileMs / 1000).toFixed(2)} s in the compile phase`,
    ]);
  }
  return rows;
}

type Document = { title: string; content: string };

/**
 * Queues every document over HTTP (async processing; one request after another, as a workspace takes a bounded
 * number of uploads at once) and waits until the workspace's queue is empty.
 */
async function ingestAll(base: string, workspace: string, documents: Document[]): Promise<number> {
  const headers = { 'content-type': 'application/json', 'x-workspace-id': workspace };
  for (const doc of documents) {
    await (async () => {
      const res = await fetch(`${base}/documents`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ ...doc, async_processing: true, use_llm_summarization: true }),
      });
      const body = (await res.json()) as { task_id?: string; detail?: string };
      if (res.status !== 202 || !body.task_id) throw new Error(`queueing '${doc.title}' answered ${res.status}: ${body.detail}`);
    })();
  }
  for (;;) {
    const res = await fetch(`${base}/pipeline/queue-metrics`, { headers });
    const metrics = (await res.json()) as { queue: { pending: number; running: number } };
    if (metrics.queue.pending + metrics.queue.running === 0) return documents.length;
    // Twice a second: each poll is a task listing, and the bench should measure ingestion, not itself.
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * The ingestion benchmark of scripts/bench/ingest.ts (same corpus, mock provider at the same simulated latency,
 * same HTTP flow) with the stores in Neo4j. Returns the table rows.
 */
export async function benchNeo4jIngest(neo4jUri: string, options: IngestOptions): Promise<Array<[string, string]>> {
  const config = benchConfig({
    inherit: true,
    fixed: {
      DATABASE_URL: undefined,
      NEO4J_URI: neo4jUri,
      RUST_LOG: 'error',
      SERVICE_MOCK_LATENCY_MS: String(options.latencyMs),
      SERVICE_AUTH_ENABLED: 'false',
      ...SYNCHRONOUS,
      ...(options.workers ? { WORKER_THREADS: options.workers } : {}),
    },
  });
  // Neo4j's own statistics of the statements it planned, read on a connection of the bench's own.
  const statsDriver = options.statements
    ? neo4j.driver(neo4jUri, undefined, { logging: { level: 'error', logger: () => undefined } })
    : null;
  let counting!: ReturnType<typeof countingProviders>;
  const rt = await createRuntime(config, createLogger(config.logLevel), {
    providers: (built) => (counting = countingProviders(built)).registry,
  });
  const service = await serve(rt, createApp(rt).app);
  const base = `${service.url}/api/v1`;
  const corpus =
    options.corpus === 'handbook'
      ? handbookSections(path.resolve(__dirname, '../../build')).map(({ title, content }) => ({ title, content }))
      : buildCorpus(options.documents);
  const warmupScope = await benchWorkspace(rt, `${options.workspace}-warmup`);
  const scope = await benchWorkspace(rt, options.workspace);
  // Recording from before the warm-up: starting the flight recorder slows the JVM for seconds (it was ×4.2 to ×4.6
  // started just before the timed ingest, ×2.5 from before the warm-up); the timed ingest's samples are sorted.
  const recording = options.neo4jProfile ? recordNeo4j(options.neo4jProfile.pid, options.neo4jProfile.dir) : null;
  await recording?.start();
  try {
    for (let pass = 1; pass <= options.warmPasses; pass++) {
      const passScope = await benchWorkspace(rt, `${options.workspace}-pass-${pass}`);
      const started = performance.now();
      await ingestAll(base, passScope.workspaceId, corpus);
      await rt.stores.dropWorkspace(passScope);
      const cpu = options.serverCpuSeconds();
      console.log(
        `warm pass ${pass}: ${((performance.now() - started) / 1000).toFixed(1)} s${cpu === null ? '' : `, Neo4j CPU ${cpu.toFixed(1)} s so far`}`,
      );
    }
    await ingestAll(base, warmupScope.workspaceId, corpus.slice(0, options.warmup));
    const totalCalls = () => [...counting.llmCalls.values()].reduce((a, b) => a + b, 0);
    const [warmupCalls, warmupEmbeddings] = [totalCalls(), counting.embeddingCalls()];
    const [nodeCpu, neo4jCpu] = [process.cpuUsage(), options.serverCpuSeconds()];
    const timer = options.statements ? timeStatements() : null;
    const plans = statsDriver ? collectPlans(statsDriver) : null;
    const profiler = new RunProfiler(options.profileDir ?? null);
    // Watched from here: the warm passes and warm-up documents are not part of the timeline.
    const slots = watchSlots(rt.slots.llm);
    await plans?.start();
    timer?.start();
    await profiler.start();
    const [started, startedAt] = [performance.now(), Date.now()];
    await ingestAll(base, scope.workspaceId, corpus);
    const ended = performance.now();
    const wallMs = ended - started;
    const neo4jProfile = await recording?.stop(startedAt, startedAt + wallMs);
    const planLog = options.neo4jProfile?.planLog;
    const neo4jPlans = planLog ? await readPlanLog(planLog, startedAt, startedAt + wallMs) : null;
    await profiler.stop('ingest');
    timer?.stop();
    const planned = await plans?.stop();
    const nodeUsed = process.cpuUsage(nodeCpu);
    const neo4jAfter = options.serverCpuSeconds();
    const neo4jUsed = neo4jCpu === null || neo4jAfter === null ? '-' : `${(neo4jAfter - neo4jCpu).toFixed(1)} s`;

    const failed = (await rt.stores.tasks.list(scope, { status: 'failed', limit: 1, offset: 0 })).total;
    const completed = (await rt.stores.tasks.list(scope, { status: 'completed', limit: 1, offset: 0 })).total;
    const chunks = await rt.stores.chunks.count(scope);
    const graph = await rt.stores.graph.stats(scope);
    const bytes = corpus.reduce((n, d) => n + Buffer.byteLength(d.content), 0);
    const llmCalls = totalCalls() - warmupCalls;
    const concurrency = config.ingest.llmConcurrency;
    const floorMs = (llmCalls * options.latencyMs) / concurrency;
    await rt.stores.dropWorkspace(warmupScope);
    await rt.stores.dropWorkspace(scope);
    return [
      ['corpus', options.corpus === 'handbook' ? "the handbook's 24 sections" : 'generated (scripts/bench/ingest.ts)'],
      ['documents (completed / failed)', `${corpus.length} (${completed} / ${failed})`],
      ['bytes', `${bytes} (${(bytes / 1024 / 1024).toFixed(2)} MB)`],
      ['chunks', String(chunks)],
      ['entities / relationships', `${graph.total_nodes} / ${graph.total_edges}`],
      ['LLM calls / embedding calls', `${llmCalls} / ${counting.embeddingCalls() - warmupEmbeddings}`],
      ['simulated latency per call', `${options.latencyMs} ms`],
      ['workers / LLM concurrency', `${config.workerThreads} / ${concurrency}`],
      ['entity resolution (SERVICE_ENTITY_RESOLUTION)', config.resolution.enabled ? 'on (the default)' : 'off'],
      ['warm passes of the corpus, then warm-up documents (not timed)', `${options.warmPasses}, then ${options.warmup}`],
      ['wall time', `${(wallMs / 1000).toFixed(2)} s`],
      ['documents per minute', ((corpus.length / wallMs) * 60_000).toFixed(1)],
      ['chunks per second', ((chunks / wallMs) * 1000).toFixed(2)],
      ['LLM-bound floor (calls x latency / concurrency)', `${(floorMs / 1000).toFixed(2)} s`],
      ['wall / floor', (wallMs / floorMs).toFixed(2)],
      ...slots.rows(started, ended),
      ['CPU during the run: service (Node) / Neo4j', `${((nodeUsed.user + nodeUsed.system) / 1e6).toFixed(1)} s / ${neo4jUsed}`],
      ...(neo4jProfile ? profileRows(neo4jProfile) : []),
      ...(neo4jPlans ? planLogRows(neo4jPlans) : []),
      ...(planned ? planRows(planned, corpus.length) : []),
      ...(timer ? statementRows(timer, corpus.length) : []),
    ];
  } finally {
    await service.close();
    await statsDriver?.close();
  }
}
