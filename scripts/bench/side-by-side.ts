/**
 * kgrag and LightRAG side by side: `npx tsx scripts/bench/side-by-side.ts [--corpus handbook,bench] [--documents 100]
 * [--latency 200] [--engines kgrag,kgrag-no-resolution,kgrag-8-in-flight,kgrag-neo4j,lightrag] [--warm-passes 1]
 * [--log-embedded]
 * [--from-source]`.
 *
 * Each engine runs at its own defaults except for the settings both are given alike, so that they do the same
 * work with the same means (printed above every table): the same mock answers (LightRAG's LLM function answers
 * through this project's mock provider via scripts/bench/lightrag-bridge.ts), the same simulated latency per call,
 * LLM concurrency 8, the same 256-dim hashing embedding at concurrency 4 in batches of 64,
 * cl100k tokens (LightRAG gets the encoding from js-tiktoken's ranks: tiktoken cannot download it here), and the
 * same query budget (20 entities, 20 relationships, 20 chunks; 4,000 / 4,000 / 12,000 tokens). kgrag's queries run
 * at its defaults, the built-in reranker on, and again with reranking off (rows named so); LightRAG's with
 * enable_rerank off, which is what its default does when no rerank model is configured (it warns and ranks nothing).
 * Chunking (1200 tokens, 100 overlap), one gleaning pass and the similarity cut-off (0.2) are both engines'
 * defaults. `kgrag` is the service at its defaults (entity resolution on, community reports rebuilt in the
 * background, 48 documents in flight); `kgrag-no-resolution` the same with SERVICE_ENTITY_RESOLUTION=false;
 * `kgrag-8-in-flight` with WORKER_THREADS=8, as many documents in flight as LightRAG is given (its default is 3).
 *
 * kgrag's processes run tsc-compiled JavaScript with MALLOC_ARENA_MAX=2, as `npm start` runs the service.
 *
 * Ingestion is timed until the queue is empty and every vector is written. Every LLM call a corpus causes is
 * counted, community reports included: the script waits until the background rebuild has settled
 * (`GET /graph/communities/status`) and prints its calls and the time it settled apart as well.
 *
 * Prints documents/min, when the first document and half of them were complete (kgrag), wall time against the LLM
 * floor, LLM calls by kind, texts embedded, peak RSS, context-only latency per mode and two recalls per mode: the
 * share of each answer's content words (lower case, stop-words left out) found in the retrieved context, averaged
 * over the questions, and the share of questions whose source passage lies in a retrieved chunk.
 *
 * Engines: `kgrag` and `kgrag-no-resolution` on kgrag's embedded stores, `kgrag-neo4j` on Neo4j (NEO4J_URI, with
 * NEO4J_PID to measure its CPU; else a fresh benchmark Neo4j the script starts and stops, as scripts/bench/neo4j.ts
 * does), and LightRAG. Before kgrag-neo4j is measured, a process of its own ingests the corpus `--warm-passes`
 * times into scratch workspaces, dropped after each, so that Neo4j's JVM has compiled its code. kgrag-neo4j's peak
 * RSS is the service's alone: Neo4j's memory is its own process's, sized by its heap and page cache settings.
 *
 * Corpora: `handbook`, 24 sections of The Debian Administrator's Handbook fetched from Debian's package at a pinned
 * version (scripts/bench/corpus/handbook.ts), with 72 questions written from its text
 * (scripts/bench/corpus/handbook-questions.json); `bench`, the entity-dense generated corpus of
 * scripts/bench/ingest.ts, with questions made from its template sentences. LightRAG runs in a virtual environment
 * under build/ that the script creates (`pip install lightrag-hku==1.5.7`) on first use. With `--log-embedded`,
 * kgrag's texts embedded twice or for a record version replaced since are counted and written to
 * build/side-by-side/kgrag-<corpus>.json.superseded.txt.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { BENCH_MASTER_KEY, benchWorkspace } from './workspace';
import { createApp } from '../../src/app';
import { nodeFlags } from '../../src/config/node-flags';
import { tuneHeap } from '../../src/heap';
import { settleEmbeddingRefreshes } from '../../src/ingest/merge/merge-stage';
import { entityText, relationshipText } from '../../src/ingest/merge/merge';
import { reportText } from '../../src/graph/communities/build';
import type { Scope } from '../../src/domain/types';
import { createLogger } from '../../src/logger';
import { createRuntime } from '../../src/runtime';
import { HANDBOOK_PACKAGE, HANDBOOK_VERSION, handbookSections } from './corpus/handbook';
import HANDBOOK_QUESTIONS from './corpus/handbook-questions.json';
import type { ProviderRegistry } from '../../src/llm/ports';
import { buildCorpus } from './ingest';
import { loadAverage } from './host';
import { startBridge } from './lightrag-bridge';
import { clockTicks, processCpuSeconds, startBenchNeo4j } from './neo4j-server';
import { seeded } from './random';
import { benchConfig, EMBEDDED, serve } from './service';

const { values: args } = parseArgs({
  options: {
    corpus: { type: 'string', default: 'handbook,bench' },
    documents: { type: 'string', default: '100' },
    latency: { type: 'string', default: '200' },
    engines: { type: 'string', default: 'kgrag,kgrag-no-resolution,kgrag-8-in-flight,lightrag' },
    // kgrag-neo4j: whole ingests of the corpus before the timed one, so that a fresh Neo4j's JVM has compiled its code.
    'warm-passes': { type: 'string', default: '1' },
    // kgrag's texts embedded more than once or for a record version replaced since, written beside its report.
    'log-embedded': { type: 'boolean', default: false },
    questions: { type: 'string', default: '120' },
    // kgrag's processes from the TypeScript sources (tsx) rather than compiled JavaScript, as `npm start` runs it.
    'from-source': { type: 'boolean', default: false },
    // Internal: one engine's run in a child process, with entity resolution on or off.
    child: { type: 'string' },
    resolution: { type: 'string', default: 'on' },
    // Internal: documents in flight, the service's default when empty.
    'in-flight': { type: 'string', default: '' },
    input: { type: 'string' },
    output: { type: 'string' },
  },
});

const ROOT = path.resolve(__dirname, '../..');
const BUILD = path.join(ROOT, 'build', 'side-by-side');
const VENV = path.join(ROOT, 'build', 'lightrag-venv');
const LIGHTRAG_VERSION = '1.5.7';
const MODES = ['naive', 'local', 'global', 'hybrid', 'mix'];
/** kgrag's queries with its reranker off (a non-default setting): their mode, with this after it. */
const RERANK_OFF = ', reranking off';
const ENGINES = ['kgrag', 'kgrag-no-resolution', 'kgrag-8-in-flight', 'kgrag-neo4j', 'lightrag'];
/** Column names: what each engine is, and the setting it changes from the defaults. */
const LABELS: Record<string, string> = {
  kgrag: 'kgrag',
  'kgrag-no-resolution': 'kgrag, resolution off',
  'kgrag-8-in-flight': 'kgrag, 8 documents in flight',
  'kgrag-neo4j': 'kgrag on Neo4j',
  lightrag: `LightRAG ${LIGHTRAG_VERSION}`,
};
/** The settings both engines are given alike. */
const SETTINGS = {
  latency_ms: Number(args.latency),
  llm_concurrency: 8,
  embedding_concurrency: 4,
  embedding_batch: 64,
  documents_in_flight: 8,
  top_k: 20,
  chunk_top_k: 20,
  budget: { entities: 4000, relationships: 4000, total: 12000 },
  modes: MODES,
};
/** kgrag's own number of documents in flight at the LLM concurrency above (the service's default). */
const SERVICE_IN_FLIGHT = benchConfig({ fixed: { SERVICE_LLM_CONCURRENCY: String(SETTINGS.llm_concurrency) } }).workerThreads;
/** What the script sets on each side, against that engine's defaults; printed above every table. */
const SETTINGS_NOTE = [
  `both: ${SETTINGS.latency_ms} ms per LLM or embedding call during ingestion (none during queries), mock LLM answers, ` +
    `256-dim hashing embedding in batches of ${SETTINGS.embedding_batch} at concurrency ${SETTINGS.embedding_concurrency}, ` +
    `LLM concurrency ${SETTINGS.llm_concurrency}, cl100k tokens, ` +
    `1200-token chunks with 100 overlap, one gleaning pass, similarity cut-off 0.2; queries for the context only at ` +
    `${SETTINGS.top_k} entities / ${SETTINGS.top_k} relationships / ${SETTINGS.chunk_top_k} chunks and ` +
    `${SETTINGS.budget.entities} / ${SETTINGS.budget.relationships} / ${SETTINGS.budget.total} tokens`,
  'kgrag: defaults but the mock latency; SERVICE_LLM_CONCURRENCY and SERVICE_EMBEDDING_CONCURRENCY as above ' +
    `are its defaults, and so are ${SERVICE_IN_FLIGHT} documents in flight (the column '${LABELS['kgrag-8-in-flight']}' ` +
    `sets WORKER_THREADS=${SETTINGS.documents_in_flight}, as many as LightRAG is given), entity ` +
    'resolution (on), community reports rebuilt 10 s after the last change and the built-in reranker (BM25 blended ' +
    `with the vector score; the rows '${RERANK_OFF.slice(2)}' turn it off)`,
  `LightRAG: defaults but llm_model_max_async ${SETTINGS.llm_concurrency} (default 4), embedding_func_max_async ` +
    `${SETTINGS.embedding_concurrency} (8), embedding_batch_num ${SETTINGS.embedding_batch} (10), max_parallel_insert ` +
    `${SETTINGS.documents_in_flight} (3), tokenizer cl100k (o200k), query top_k ${SETTINGS.top_k} (40) and token budgets ` +
    `${SETTINGS.budget.entities} / ${SETTINGS.budget.relationships} / ${SETTINGS.budget.total} (6000 / 8000 / 30000), ` +
    'enable_rerank off (on, which with no rerank model configured warns and ranks nothing)',
];

interface Question {
  id: string;
  question: string;
  /** The answer, in the source's words: recall counts its content words in the context. */
  answer: string;
  /** The passage of the source that holds the answer: the second recall looks for it in the retrieved chunks. */
  quote: string;
  /** The document it comes from. */
  source: string;
}

interface Spec {
  corpus: string;
  settings: typeof SETTINGS;
  documents: Array<{ id: string; title: string; content: string }>;
  questions: Question[];
}

interface QueryRun {
  mode: string;
  id: string;
  ms: number;
  context: string;
}

interface EngineReport {
  /** Until every document is complete and every vector written; community reports come after. */
  ingest_s: number;
  /** kgrag: when the first document and half of them were complete. */
  completions?: Completions;
  /** kgrag: when the community reports built after the ingest were written, in seconds from its start. */
  communities_settled_s?: number | null;
  /** kgrag-neo4j with NEO4J_PID or a server of the script's: Neo4j's CPU during the timed ingest. */
  server_cpu_s?: number;
  documents: number;
  chunks: number | null;
  /** Peak RSS up to the end of ingestion, and over the whole run at the defaults (its queries included). */
  peak_rss_ingest_mb: number;
  peak_rss_mb: number;
  calls: Record<string, number>;
  keyword_calls_queries: number;
  embedding_calls: number;
  /** kgrag: entities and relationships in the graph after ingestion, and their vectors. */
  records?: { entities: number; relationships: number; entityVectors: number; relationshipVectors: number };
  /** kgrag with --log-embedded: texts embedded again, or of a record version replaced since. */
  superseded_texts?: number;
  texts_embedded: number;
  queries: QueryRun[];
}

// ---------------------------------------------------------------------------------------------------------
// Corpora and questions

/** A template sentence of the generated corpus, the question asked of it, and the group that answers it. */
const BENCH_QUESTIONS: Array<[RegExp, (m: RegExpExecArray) => string, number]> = [
  [
    /^(.+) joined (.+) in (.+) to lead the work on (.+)\.$/,
    (m) => `Which organisation did ${m[1]} join in ${m[3]} to lead the work on ${m[4]}?`,
    2,
  ],
  [
    /^At a workshop in (.+), (.+) presented results on (.+) built with (.+)\.$/,
    (m) => `Where did ${m[2]} present results on ${m[3]} built with ${m[4]}?`,
    1,
  ],
  [
    /^(.+) opened an office in (.+), where (.+) studies (.+)\.$/,
    (m) => `Where did ${m[1]} open the office in which ${m[3]} studies ${m[4]}?`,
    2,
  ],
  [
    /^The (.+) programme of (.+) relies on ideas from (.+), who lives in (.+)\.$/,
    (m) => `Where does ${m[3]}, whose ideas the ${m[1]} programme of ${m[2]} relies on, live?`,
    4,
  ],
  [
    /^Engineers in (.+) compared (.+) benchmarks with (.+) and the team from (.+)\.$/,
    (m) => `Where did engineers compare ${m[2]} benchmarks with ${m[3]} and the team from ${m[4]}?`,
    1,
  ],
];

function benchSpec(documents: number, questionCount: number): Spec {
  const docs = buildCorpus(documents).map((d, i) => ({ id: `report-${i + 1}`, title: d.title, content: d.content }));
  const sentences = docs.flatMap((d) =>
    d.content
      .split(/(?<=\.)\s+/)
      .filter((s) => !s.startsWith('('))
      .map((s) => ({ s, source: d.id })),
  );
  const counts = new Map<string, number>();
  for (const { s } of sentences) counts.set(s, (counts.get(s) ?? 0) + 1);
  const random = seeded(11);
  const questions: Question[] = [];
  const used = new Set<string>();
  for (let tries = 0; questions.length < questionCount && tries < 10_000; tries++) {
    const { s: sentence, source } = sentences[Math.floor(random() * sentences.length)];
    if (used.has(sentence) || counts.get(sentence) !== 1) continue;
    for (const [pattern, ask, group] of BENCH_QUESTIONS) {
      const m = pattern.exec(sentence);
      if (!m) continue;
      used.add(sentence);
      questions.push({ id: `q${questions.length + 1}`, question: ask(m), answer: m[group], quote: sentence, source });
      break;
    }
  }
  return { corpus: 'bench', settings: SETTINGS, documents: docs, questions };
}

/**
 * The handbook's sections and the questions written from them; every question's quote must be in the text of its
 * section (a different text would make the questions meaningless).
 */
function handbookSpec(): Spec {
  const sections = handbookSections(path.join(ROOT, 'build'));
  const byId = new Map(sections.map((s) => [s.id, folded(s.content)]));
  const questions = HANDBOOK_QUESTIONS.questions.map((q) => ({ ...q, source: q.section }));
  const astray = questions.filter((q) => !byId.get(q.source)?.includes(folded(q.quote)));
  if (astray.length) {
    throw new Error(
      `${astray.length} questions quote text that ${HANDBOOK_PACKAGE} ${HANDBOOK_VERSION} does not hold in their section: ` +
        astray.map((q) => q.id).join(', '),
    );
  }
  return {
    corpus: 'handbook',
    settings: SETTINGS,
    documents: sections.map((s) => ({ id: s.id, title: s.title, content: s.content })),
    questions,
  };
}

// ---------------------------------------------------------------------------------------------------------
// kgrag, in a child process of its own (its peak RSS is the service's alone)

interface KgragRun {
  /** Neo4j's bolt URL for kgrag-neo4j; embedded stores without it. */
  neo4jUri?: string;
  /**
   * Only ingest the corpus this many times into scratch workspaces (each dropped after it), then stop: run in a
   * process of its own before the measured one, so that the measured peak RSS is that of one ingest.
   */
  warmPasses?: number;
  /** Neo4j's CPU seconds so far, when its process is known. */
  serverCpuSeconds: () => number | null;
  /** Entity resolution, on by default. */
  resolution: boolean;
  /** Documents in flight (WORKER_THREADS); the service's default when absent. */
  inFlight?: number;
  log?: string;
}

async function runKgrag(spec: Spec, options: KgragRun): Promise<EngineReport | null> {
  // As src/main.ts does for the service.
  tuneHeap(nodeFlags());
  const config = benchConfig({
    defaults: options.inFlight ? { WORKER_THREADS: String(options.inFlight) } : {},
    inherit: true,
    fixed: {
      ...EMBEDDED,
      // Vectors in Neo4j's own indexes unless QDRANT_URL names a Qdrant for kgrag-neo4j.
      ...(options.neo4jUri ? { NEO4J_URI: options.neo4jUri } : { QDRANT_URL: undefined }),
      RUST_LOG: 'error',
      SERVICE_MOCK_LATENCY_MS: String(spec.settings.latency_ms),
      SERVICE_LLM_CONCURRENCY: String(spec.settings.llm_concurrency),
      SERVICE_EMBEDDING_CONCURRENCY: String(spec.settings.embedding_concurrency),
      SERVICE_ENTITY_RESOLUTION: String(options.resolution),
      // The service's default, whatever the environment says: the reports' calls are part of the ingest figures.
      SERVICE_COMMUNITY_REFRESH_MS: undefined,
    },
  });
  let latencyMs = spec.settings.latency_ms;
  const rt = await createRuntime(config, createLogger(config.logLevel), { mockLatencyMs: () => latencyMs });
  const counting = countCalls(rt.providers, options.log !== undefined);
  const { app } = createApp(rt);
  const server = await serve(rt, app);
  const base = `${server.url}/api/v1`;
  // Workspace names are unique in a database, which a server given by NEO4J_URI keeps from run to run.
  const stamp = Date.now().toString(36);
  const headersOf = (scope: Scope) => ({
    'content-type': 'application/json',
    'x-workspace-id': scope.workspaceId,
    'x-api-key': BENCH_MASTER_KEY,
  });

  if (options.warmPasses !== undefined) {
    for (let pass = 1; pass <= options.warmPasses; pass++) {
      const scratch = await benchWorkspace(rt, `side by side ${spec.corpus} ${stamp}, warm pass ${pass}`);
      await ingestCorpus(base, headersOf(scratch), spec);
      await settleEmbeddingRefreshes(rt);
      await rt.stores.dropWorkspace(scratch);
    }
    await server.close();
    return null;
  }
  const before = structuredClone(counting);
  const scope = await benchWorkspace(rt, `side by side ${spec.corpus} ${stamp}`);
  const headers = headersOf(scope);
  const cpuBefore = options.serverCpuSeconds();
  const startedAt = Date.now();
  const started = performance.now();
  const completions = await ingestCorpus(base, headers, spec);
  // Every document is complete; the clock stops once the vectors refreshed in the background are written too.
  await settleEmbeddingRefreshes(rt);
  const ingest_s = (performance.now() - started) / 1000;
  const cpuAfter = options.serverCpuSeconds();
  // Community reports are rebuilt in the background after the last change: their calls are the corpus's too.
  const communities = await settleCommunities(base, headers);
  await settleEmbeddingRefreshes(rt);
  const peakRssIngest = process.resourceUsage().maxRSS / 1024;
  const ingested = since(before, counting);
  const graph = await rt.stores.graph.stats(scope);
  const [entityVectors, relationshipVectors] = await Promise.all([
    rt.stores.vectors.count(scope, 'entity'),
    rt.stores.vectors.count(scope, 'relationship'),
  ]);
  const superseded = options.log ? await supersededTexts(rt, scope, ingested.texts ?? [], options.log) : undefined;
  // Queries are timed without simulated latency on both sides: what is left is the engine's own work.
  latencyMs = 0;

  const queries: QueryRun[] = [];
  // At the defaults (the built-in reranker on), then again with reranking off: rows of their own, named.
  let keywordCalls = 0;
  // The peak of the run at the defaults: before the second pass, whose contexts this process also holds.
  let peakRss = 0;
  for (const rerank of [true, false]) {
    for (const mode of spec.settings.modes) {
      for (const q of spec.questions) {
        const t = performance.now();
        const res = await fetch(`${base}/query`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            query: q.question,
            mode,
            context_only: true,
            ...(rerank ? {} : { enable_rerank: false }),
            max_entities: spec.settings.top_k,
            max_relationships: spec.settings.top_k,
            max_chunks: spec.settings.chunk_top_k,
          }),
        });
        const body = (await res.json()) as { context?: string; detail?: string };
        if (res.status !== 200) throw new Error(`query answered ${res.status}: ${body.detail}`);
        queries.push({ mode: rerank ? mode : `${mode}${RERANK_OFF}`, id: q.id, ms: performance.now() - t, context: body.context ?? '' });
      }
    }
    if (rerank) {
      keywordCalls = (since(before, counting).llmCalls.keywords ?? 0) - (ingested.llmCalls.keywords ?? 0);
      peakRss = process.resourceUsage().maxRSS / 1024;
    }
  }
  const chunks = await rt.stores.chunks.count(scope);
  if (options.neo4jUri) await rt.stores.dropWorkspace(scope);
  await server.close();
  return {
    ingest_s,
    completions,
    communities_settled_s: communities === null ? null : (communities - startedAt) / 1000,
    server_cpu_s: cpuBefore === null || cpuAfter === null ? undefined : cpuAfter - cpuBefore,
    documents: spec.documents.length,
    chunks,
    peak_rss_ingest_mb: peakRssIngest,
    peak_rss_mb: peakRss,
    calls: ingested.llmCalls,
    keyword_calls_queries: keywordCalls,
    embedding_calls: ingested.embeddingCalls,
    texts_embedded: ingested.textsEmbedded,
    superseded_texts: superseded,
    records: { entities: graph.total_nodes, relationships: graph.total_edges, entityVectors, relationshipVectors },
    queries,
  };
}

/**
 * Waits until the background rebuild of community reports that the ingest caused has finished, and returns when it
 * did (epoch ms; null when the service rebuilds them only on request). A rebuild is scheduled `refresh_ms` after a
 * workspace's last graph change, and a change during a run causes one more run: settled means idle with a run
 * finished after ingestion ended, or idle for longer than the delay since then.
 */
async function settleCommunities(base: string, headers: Record<string, string>): Promise<number | null> {
  const ingested = Date.now();
  for (;;) {
    const res = await fetch(`${base}/graph/communities/status`, { headers });
    const status = (await res.json()) as {
      state: string;
      refresh_ms: number;
      last_run: { finished_at: string; error?: string } | null;
      detail?: string;
    };
    if (res.status !== 200) throw new Error(`community status answered ${res.status}: ${status.detail}`);
    if (status.refresh_ms <= 0) return null;
    const finished = status.last_run ? Date.parse(status.last_run.finished_at) : 0;
    if (status.state === 'idle' && (finished >= ingested || Date.now() > ingested + status.refresh_ms + 2_000)) {
      if (status.last_run?.error) throw new Error(`the community rebuild failed: ${status.last_run.error}`);
      return Math.max(finished, ingested);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

const seconds = (s: number | null) => (s === null ? '?' : `${s.toFixed(1)} s`);

/** When the first document and half of them were complete, in seconds from the first upload (polled every 100 ms). */
interface Completions {
  first_s: number | null;
  half_s: number | null;
}

/**
 * Queues the documents of the corpus one after the other (the service admits at most 16 uploads of a workspace
 * in flight at once) and waits until the queue is empty.
 */
async function ingestCorpus(base: string, headers: Record<string, string>, spec: Spec): Promise<Completions> {
  const started = performance.now();
  const completions: Completions = { first_s: null, half_s: null };
  for (const doc of spec.documents) {
    const res = await fetch(`${base}/documents`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ title: doc.title, content: doc.content, async_processing: true }),
    });
    if (res.status !== 202) throw new Error(`queueing '${doc.title}' answered ${res.status}: ${await res.text()}`);
  }
  for (;;) {
    const metrics = (await (await fetch(`${base}/pipeline/queue-metrics`, { headers })).json()) as {
      queue: { pending: number; running: number };
    };
    const done = spec.documents.length - metrics.queue.pending - metrics.queue.running;
    const at = (performance.now() - started) / 1000;
    if (done >= 1) completions.first_s ??= at;
    if (done >= spec.documents.length / 2) completions.half_s ??= at;
    if (done === spec.documents.length) return completions;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The texts embedded during ingestion that are not the final text of a chunk, record or community report (an earlier
 * version of a record, embedded before another document changed it), or that were embedded more than once; written
 * to `file`.
 */
async function supersededTexts(
  rt: Awaited<ReturnType<typeof createRuntime>>,
  scope: Scope,
  texts: string[],
  file: string,
): Promise<number> {
  const all = { limit: 1_000_000, offset: 0 };
  const chunks = await Promise.all((await rt.stores.documents.listIds(scope, {})).map((id) => rt.stores.chunks.listByDocument(scope, id)));
  const final = new Set([
    ...chunks.flat().map((c) => c.content),
    ...(await rt.stores.graph.listEntities(scope, all)).items.map(entityText),
    ...(await rt.stores.graph.listRelationships(scope, all)).items.map(relationshipText),
    ...(await rt.stores.communities.all(scope)).map(reportText),
  ]);
  const seen = new Set<string>();
  const extra = texts.filter((t) => {
    const again = seen.has(t);
    seen.add(t);
    return again || !final.has(t);
  });
  fs.writeFileSync(file, extra.map((t) => JSON.stringify(t)).join('\n') + (extra.length ? '\n' : ''));
  return extra.length;
}

/**
 * Counts provider calls on the registry's instances (one per provider and model, shared by ingestion and
 * queries): calls by prompt task, embedding calls and texts. Cache hits never reach them.
 */
function countCalls(registry: ProviderRegistry, keepTexts: boolean) {
  const counts = {
    llmCalls: {} as Record<string, number>,
    embeddingCalls: 0,
    textsEmbedded: 0,
    texts: keepTexts ? ([] as string[]) : undefined,
  };
  const llm = registry.llm();
  const complete = llm.complete.bind(llm);
  llm.complete = (messages, options) => {
    const task = options?.task ?? 'other';
    counts.llmCalls[task] = (counts.llmCalls[task] ?? 0) + 1;
    return complete(messages, options);
  };
  const embedder = registry.embedding();
  const embed = embedder.embed.bind(embedder);
  embedder.embed = (texts, signal) => {
    counts.embeddingCalls += 1;
    counts.textsEmbedded += texts.length;
    counts.texts?.push(...texts);
    return embed(texts, signal);
  };
  return counts;
}

type Counts = ReturnType<typeof countCalls>;

/** What was counted after `before` was copied. */
function since(before: Counts, now: Counts): Counts {
  const llmCalls = Object.fromEntries(Object.entries(now.llmCalls).map(([task, n]) => [task, n - (before.llmCalls[task] ?? 0)]));
  return {
    llmCalls: Object.fromEntries(Object.entries(llmCalls).filter(([, n]) => n > 0)),
    embeddingCalls: now.embeddingCalls - before.embeddingCalls,
    textsEmbedded: now.textsEmbedded - before.textsEmbedded,
    texts: now.texts?.slice(before.texts?.length ?? 0),
  };
}

// ---------------------------------------------------------------------------------------------------------
// LightRAG, in its virtual environment

function ensureVenv(): string {
  const python = path.join(VENV, 'bin', 'python');
  const installed = () => {
    try {
      return execFileSync(python, ['-c', 'import importlib.metadata as m; print(m.version("lightrag-hku"))']).toString().trim();
    } catch {
      return null;
    }
  };
  if (installed() === LIGHTRAG_VERSION) return python;
  process.stderr.write(`installing lightrag-hku ${LIGHTRAG_VERSION} into ${VENV} ...\n`);
  if (!fs.existsSync(python)) execFileSync('python3', ['-m', 'venv', VENV], { stdio: 'inherit' });
  execFileSync(python, ['-m', 'pip', 'install', '-q', `lightrag-hku==${LIGHTRAG_VERSION}`], { stdio: 'inherit' });
  return python;
}

/** cl100k_base in tiktoken's file format, from the ranks js-tiktoken ships. */
function writeRanks(file: string): void {
  if (fs.existsSync(file)) return;
  /* eslint-disable-next-line @typescript-eslint/no-require-imports -- the ranks module is plain data */
  const module = require('js-tiktoken/ranks/cl100k_base') as { default?: { bpe_ranks: string }; bpe_ranks: string };
  const lines: string[] = [];
  for (const line of (module.default ?? module).bpe_ranks.split('\n')) {
    const [, offset, ...tokens] = line.split(' ');
    tokens.forEach((token, i) => lines.push(`${token} ${Number(offset) + i}`));
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

async function runLightRag(spec: Spec, input: string): Promise<EngineReport> {
  const python = ensureVenv();
  const ranks = path.join(BUILD, 'cl100k_base.tiktoken');
  writeRanks(ranks);
  const bridge = await startBridge({ latencyMs: spec.settings.latency_ms });
  const output = path.join(BUILD, `lightrag-${spec.corpus}.json`);
  try {
    await run(python, [
      path.join(__dirname, 'lightrag_driver.py'),
      '--bridge',
      bridge.url,
      '--input',
      input,
      '--output',
      output,
      '--workdir',
      path.join(BUILD, `lightrag-${spec.corpus}`),
      '--ranks',
      ranks,
    ]);
    const report = JSON.parse(fs.readFileSync(output, 'utf8')) as Omit<EngineReport, 'calls' | 'embedding_calls' | 'texts_embedded'>;
    const ingest = bridge.ingestStats() ?? bridge.stats();
    const all = bridge.stats();
    return {
      ...report,
      calls: ingest.calls,
      keyword_calls_queries: (all.calls.keywords ?? 0) - (ingest.calls.keywords ?? 0),
      embedding_calls: ingest.embeddingCalls,
      texts_embedded: ingest.textsEmbedded,
    };
  } finally {
    await bridge.close();
  }
}

function run(command: string, argv: string[], env: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { stdio: ['ignore', 'inherit', 'inherit'], cwd: ROOT, env: { ...process.env, ...env } });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(command)} exited with ${code}`))));
  });
}

// ---------------------------------------------------------------------------------------------------------
// Report

/** Letters and digits only, lower case: contexts quote chunks as plain text (kgrag) or JSON strings (LightRAG). */
const folded = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** Words that carry no content of an answer. */
const STOP_WORDS = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below between ' +
    'both but by can could did do does doing down during each either few for from further had has have having he her ' +
    'here hers him his how i if in into is it its itself just may me might more most must my no nor not now of off ' +
    'on once one only or other our ours out over own same shall she should so some such than that the their theirs ' +
    'them then there these they this those through to too under until up upon very was we were what when where which ' +
    'while who whom whose why will with within would you your'
  ).split(' '),
);

/** An answer's content words: lower case, letters and digits, stop-words left out, each once. */
function contentWords(text: string): string[] {
  return [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].filter((w) => !STOP_WORDS.has(w));
}

/**
 * The context as plain text: LightRAG lists records and chunks as JSON objects, one a line, whose strings are
 * escaped; their string values are read back. Other lines are kept as they are.
 */
function plainContext(context: string): string {
  return context
    .split('\n')
    .map((line) => {
      if (!line.startsWith('{')) return line;
      try {
        return Object.values(JSON.parse(line) as Record<string, unknown>).join('\n');
      } catch {
        return line;
      }
    })
    .join('\n');
}

/** The chunks of a context: kgrag's last section, LightRAG's Document Chunks up to its reference list. */
function chunkPart(context: string): string {
  const kgrag = context.indexOf('-----Document chunks-----');
  if (kgrag >= 0) return context.slice(kgrag);
  const start = context.indexOf('Document Chunks (');
  if (start < 0) return '';
  // The list's own heading starts a line; the chunks' heading names it too.
  const end = context.indexOf('\nReference Document List (', start);
  return context.slice(start, end < 0 ? undefined : end);
}

interface Recall {
  /** Mean share of each answer's content words found in the context. */
  words: number;
  /** Share of questions whose source passage lies in a retrieved chunk. */
  passages: number;
  /** Mean characters of context. */
  chars: number;
}

function recall(spec: Spec, report: EngineReport, mode: string): Recall {
  const questions = new Map(spec.questions.map((q) => [q.id, q]));
  const runs = report.queries.filter((q) => q.mode === mode);
  let words = 0;
  let passages = 0;
  let chars = 0;
  for (const run of runs) {
    const q = questions.get(run.id);
    if (!q) continue;
    const plain = plainContext(run.context);
    const found = new Set(plain.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
    const wanted = contentWords(q.answer);
    words += wanted.length ? wanted.filter((w) => found.has(w)).length / wanted.length : 1;
    if (folded(chunkPart(plain)).includes(folded(q.quote))) passages += 1;
    chars += plain.length;
  }
  const n = Math.max(1, runs.length);
  return { words: words / n, passages: passages / n, chars: chars / n };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

const COMMUNITY_TASK = 'community_report';

function printReport(spec: Spec, reports: Record<string, EngineReport>): void {
  const engines = Object.keys(reports);
  const total = (r: EngineReport) => Object.values(r.calls).reduce((a, b) => a + b, 0);
  /** The calls the timed ingest waits for: all but the community reports, which run after it. */
  const floor = (r: EngineReport) =>
    ((total(r) - (r.calls[COMMUNITY_TASK] ?? 0)) * spec.settings.latency_ms) / spec.settings.llm_concurrency / 1000;
  const kinds = [...new Set(engines.flatMap((e) => Object.keys(reports[e].calls)))].sort();
  const each = (cell: (r: EngineReport) => string): string[] => engines.map((e) => cell(reports[e]));
  const recalls = new Map(engines.map((e) => [e, new Map(spec.settings.modes.map((m) => [m, recall(spec, reports[e], m)]))]));
  const rows: Array<[string, ...string[]]> = [
    ['documents / chunks', ...each((r) => `${r.documents} / ${r.chunks ?? '?'}`)],
    ['ingest wall time (every vector written)', ...each((r) => `${r.ingest_s.toFixed(1)} s`)],
    ['documents per minute', ...each((r) => ((r.documents / r.ingest_s) * 60).toFixed(1))],
    [
      'first document / half of them complete, from the ingest start',
      ...each((r) => (r.completions ? `${seconds(r.completions.first_s)} / ${seconds(r.completions.half_s)}` : '-')),
    ],
    ['LLM calls, community reports included', ...each((r) => String(total(r)))],
    ...kinds.map((k): [string, ...string[]] => [`  ${k}`, ...each((r) => String(r.calls[k] ?? 0))]),
    [
      'community reports settled, from the ingest start',
      ...each((r) => (r.communities_settled_s == null ? '-' : `${r.communities_settled_s.toFixed(1)} s`)),
    ],
    [
      'wall / LLM floor (calls before reports × latency ÷ concurrency)',
      ...each((r) => `${(r.ingest_s / floor(r)).toFixed(2)} (floor ${floor(r).toFixed(1)} s)`),
    ],
    ...(engines.some((e) => reports[e].server_cpu_s !== undefined)
      ? [
          ['Neo4j CPU during ingestion', ...each((r) => (r.server_cpu_s === undefined ? '-' : `${r.server_cpu_s.toFixed(1)} s`))] as [
            string,
            ...string[],
          ],
        ]
      : []),
    ['embedding calls / texts embedded, reports included', ...each((r) => `${r.embedding_calls} / ${r.texts_embedded}`)],
    ...(engines.some((e) => reports[e].superseded_texts !== undefined)
      ? [
          [
            '  of them embedded again or replaced since',
            ...each((r) => (r.superseded_texts === undefined ? '-' : String(r.superseded_texts))),
          ] as [string, ...string[]],
        ]
      : []),
    [
      'entities / relationships (with a vector)',
      ...each(({ records: r }) => (r ? `${r.entities} (${r.entityVectors}) / ${r.relationships} (${r.relationshipVectors})` : '-')),
    ],
    ['peak RSS: ingestion and reports / whole run', ...each((r) => `${r.peak_rss_ingest_mb.toFixed(0)} / ${r.peak_rss_mb.toFixed(0)} MB`)],
    [
      `keyword LLM calls, ${spec.questions.length} questions x ${spec.settings.modes.length} modes`,
      ...each((r) => String(r.keyword_calls_queries)),
    ],
    ...spec.settings.modes.flatMap((mode): Array<[string, ...string[]]> => [
      [
        `${mode}: context p50 / p95, mean characters`,
        ...engines.map((e) => {
          const ms = reports[e].queries.filter((q) => q.mode === mode).map((q) => q.ms);
          const chars = recalls.get(e)?.get(mode)?.chars ?? 0;
          return `${percentile(ms, 50).toFixed(1)} / ${percentile(ms, 95).toFixed(1)} ms, ${chars.toFixed(0)}`;
        }),
      ],
      [
        `${mode}: recall, answer words / source passage`,
        ...engines.map((e) => {
          const r = recalls.get(e)?.get(mode);
          return r ? `${r.words.toFixed(3)} / ${r.passages.toFixed(3)}` : '-';
        }),
      ],
    ]),
    // kgrag's queries again with its reranker off; engines that did not run them show '-'.
    ...spec.settings.modes.map((mode): [string, ...string[]] => [
      `${mode}${RERANK_OFF}: recall, words / passage`,
      ...engines.map((e) => {
        if (!reports[e].queries.some((q) => q.mode === `${mode}${RERANK_OFF}`)) return '-';
        const r = recall(spec, reports[e], `${mode}${RERANK_OFF}`);
        return `${r.words.toFixed(3)} / ${r.passages.toFixed(3)}`;
      }),
    ]),
  ];
  const widths = [
    Math.max(...rows.map((r) => r[0].length)),
    ...engines.map((e, i) => Math.max(e.length, ...rows.map((r) => r[i + 1].length))),
  ];
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  process.stdout.write(
    `\n${spec.corpus} corpus: ${spec.documents.length} documents ` +
      `(${(spec.documents.reduce((n, d) => n + Buffer.byteLength(d.content), 0) / 1024).toFixed(0)} KB), ` +
      `${spec.questions.length} questions, load average ${loadAverage()}\n` +
      SETTINGS_NOTE.map((n) => `  ${n}\n`).join(''),
  );
  process.stdout.write(`${line(['', ...engines])}\n${'-'.repeat(widths.reduce((a, b) => a + b + 2, 0))}\n`);
  for (const row of rows) process.stdout.write(`${line(row)}\n`);
}

// ---------------------------------------------------------------------------------------------------------

/**
 * The command line of kgrag's processes: this script compiled by tsc into build/side-by-side/js (beside links to
 * what the service reads from its root), so that kgrag runs as `npm start` runs it, or with `--from-source` this
 * file under tsx (whose hooks and source maps, in every worker thread too, add about 15 MB).
 */
function kgragScript(): string[] {
  if (args['from-source']) return [...process.execArgv, __filename];
  const out = path.join(BUILD, 'js');
  // tsc leaves the output of files that no longer exist, which Node would load in place of a moved module.
  fs.rmSync(out, { recursive: true, force: true });
  execFileSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.json'), '--outDir', out, '--sourceMap', 'false'],
    {
      stdio: 'inherit',
    },
  );
  for (const name of ['node_modules', 'cypher', 'web', 'package.json']) {
    const link = path.join(out, name);
    if (!fs.existsSync(link)) fs.symlinkSync(path.join(ROOT, name), link);
  }
  return [path.join(out, 'scripts', 'bench', 'side-by-side.js')];
}

function corpusSpec(corpus: string): Spec {
  if (corpus === 'handbook') return handbookSpec();
  if (corpus === 'bench') return benchSpec(Number(args.documents), Number(args.questions));
  throw new Error(`unknown corpus '${corpus}': handbook, bench`);
}

async function main(): Promise<void> {
  if (args.child === 'kgrag' || args.child === 'warm') {
    const spec = JSON.parse(fs.readFileSync(args.input as string, 'utf8')) as Spec;
    const pid = Number(process.env.KGRAG_BENCH_NEO4J_PID ?? NaN);
    const report = await runKgrag(spec, {
      neo4jUri: process.env.KGRAG_BENCH_NEO4J_URI,
      warmPasses: args.child === 'warm' ? Number(args['warm-passes']) : undefined,
      serverCpuSeconds: Number.isInteger(pid) ? () => processCpuSeconds(pid, clockTicks()) : () => null,
      resolution: args.resolution !== 'off',
      inFlight: args['in-flight'] ? Number(args['in-flight']) : undefined,
      log: args['log-embedded'] ? `${args.output}.superseded.txt` : undefined,
    });
    if (report) fs.writeFileSync(args.output as string, JSON.stringify(report));
    return;
  }
  fs.mkdirSync(BUILD, { recursive: true });
  const engines = (args.engines as string).split(',');
  const unknown = engines.filter((e) => !ENGINES.includes(e));
  if (unknown.length) throw new Error(`unknown engines ${unknown.join(', ')}: ${ENGINES.join(', ')}`);
  const script = engines.some((e) => e !== 'lightrag') ? kgragScript() : [];
  const neo4j = engines.includes('kgrag-neo4j') ? startBenchNeo4j() : null;
  if (neo4j) process.stdout.write(`Neo4j ${neo4j.uri} from ${neo4j.origin}\n`);
  try {
    for (const corpus of (args.corpus as string).split(',')) {
      const spec = corpusSpec(corpus);
      const input = path.join(BUILD, `${corpus}-spec.json`);
      fs.writeFileSync(input, JSON.stringify(spec));
      const reports: Record<string, EngineReport> = {};
      for (const engine of engines.filter((e) => e !== 'lightrag')) {
        const output = path.join(BUILD, `${engine}-${corpus}.json`);
        const log = args['log-embedded'] ? ['--log-embedded'] : [];
        const server =
          engine === 'kgrag-neo4j' && neo4j
            ? { KGRAG_BENCH_NEO4J_URI: neo4j.uri, ...(neo4j.pid ? { KGRAG_BENCH_NEO4J_PID: String(neo4j.pid) } : {}) }
            : {};
        const child = (kind: string, extra: string[]) =>
          run(process.execPath, [...script, '--child', kind, '--input', input, ...extra], {
            // As `npm start` runs the service (README, configuration).
            MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
            ...server,
          });
        if (engine === 'kgrag-neo4j' && Number(args['warm-passes']) > 0)
          await child('warm', ['--warm-passes', String(args['warm-passes'])]);
        const resolution = ['--resolution', engine === 'kgrag-no-resolution' ? 'off' : 'on'];
        const inFlight = engine === 'kgrag-8-in-flight' ? ['--in-flight', String(SETTINGS.documents_in_flight)] : [];
        await child('kgrag', ['--output', output, ...resolution, ...inFlight, ...log]);
        reports[LABELS[engine]] = JSON.parse(fs.readFileSync(output, 'utf8')) as EngineReport;
      }
      if (engines.includes('lightrag')) reports[LABELS.lightrag] = await runLightRag(spec, input);
      printReport(spec, reports);
    }
  } finally {
    neo4j?.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
