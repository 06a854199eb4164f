/**
 * kgrag and LightRAG side by side: `npx tsx scripts/bench/side-by-side.ts [--corpus bench,prose] [--documents 100]
 * [--latency 200] [--engines kgrag,kgrag-neo4j,lightrag] [--warm-passes 1] [--log-embedded] [--from-source]`.
 *
 * Both engines ingest the same corpus with the same mock answers (LightRAG's LLM function answers through this
 * project's mock provider via scripts/bench/lightrag-bridge.ts), the same simulated latency per call, LLM
 * concurrency 8, the same 256-dim hashing embedding at concurrency 4 in batches of 64, 8 documents in flight for
 * both (WORKER_THREADS overrides kgrag's), cl100k tokens (LightRAG gets the encoding from js-tiktoken's
 * ranks: tiktoken cannot download it here), 1200-token chunks with 100 overlap, one gleaning pass, and the
 * same similarity cut-off. Then each engine answers every question in each mode for the context only, at the
 * same budget (20 entities, 20 relationships, 20 chunks; 4,000 / 4,000 / 12,000 tokens; no reranking).
 *
 * kgrag's processes run tsc-compiled JavaScript with MALLOC_ARENA_MAX=2, as `npm start` runs the service.
 *
 * Prints documents/min, wall time against the LLM floor, LLM calls by kind, texts embedded, peak RSS,
 * context-only latency per mode and context recall: the share of questions whose answer sentence (known,
 * since the questions are made from it) is in the retrieved context.
 *
 * Engines: `kgrag` on its embedded stores, `kgrag-neo4j` on Neo4j (NEO4J_URI, with NEO4J_PID to measure its
 * CPU; else a fresh benchmark Neo4j the script starts and stops, as scripts/bench/neo4j.ts does), and LightRAG.
 * Before kgrag-neo4j is measured, a process of its own ingests the corpus `--warm-passes` times into scratch
 * workspaces, dropped after each, so that Neo4j's JVM has compiled its code. kgrag-neo4j's peak RSS is the
 * service's alone: Neo4j's memory is its own process's, sized by its heap and page cache settings.
 *
 * Corpora: `bench`, the entity-dense generated corpus of scripts/bench/ingest.ts; `prose`, encyclopedia
 * articles (scripts/bench/corpus/articles.ts). LightRAG runs in a virtual environment under build/ that the
 * script creates (`pip install lightrag-hku==1.5.7`) on first use. With `--log-embedded`, kgrag's texts embedded
 * twice or for a record version replaced since are counted and written to build/side-by-side/kgrag-<corpus>.json.superseded.txt.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { BENCH_MASTER_KEY, benchWorkspace } from './workspace';
import { createApp } from '../../src/app';
import { nodeFlags } from '../../src/config/node-flags';
import { tuneHeap } from '../../src/heap';
import { settleEmbeddingRefreshes } from '../../src/ingest/merge-stage';
import { entityText, relationshipText } from '../../src/ingest/merge';
import type { Scope } from '../../src/domain/types';
import { createLogger } from '../../src/logger';
import { createRuntime } from '../../src/runtime';
import { ARTICLES, ARTICLE_QUESTIONS } from './corpus/articles';
import type { ProviderRegistry } from '../../src/llm/ports';
import { buildCorpus } from './ingest';
import { startBridge } from './lightrag-bridge';
import { clockTicks, processCpuSeconds, startBenchNeo4j } from './neo4j-server';
import { seeded } from './random';
import { benchConfig, EMBEDDED, WITHOUT_RESOLUTION } from './service';

const { values: args } = parseArgs({
  options: {
    corpus: { type: 'string', default: 'bench,prose' },
    documents: { type: 'string', default: '100' },
    latency: { type: 'string', default: '200' },
    engines: { type: 'string', default: 'kgrag,lightrag' },
    // kgrag-neo4j: whole ingests of the corpus before the timed one, so that a fresh Neo4j's JVM has compiled its code.
    'warm-passes': { type: 'string', default: '1' },
    // kgrag's texts embedded more than once or for a record version replaced since, written beside its report.
    'log-embedded': { type: 'boolean', default: false },
    questions: { type: 'string', default: '120' },
    // kgrag's processes from the TypeScript sources (tsx) rather than compiled JavaScript, as `npm start` runs it.
    'from-source': { type: 'boolean', default: false },
    // Internal: one engine's run in a child process.
    child: { type: 'string' },
    input: { type: 'string' },
    output: { type: 'string' },
  },
});

const ROOT = path.resolve(__dirname, '../..');
const BUILD = path.join(ROOT, 'build', 'side-by-side');
const VENV = path.join(ROOT, 'build', 'lightrag-venv');
const LIGHTRAG_VERSION = '1.5.7';
const MODES = ['naive', 'local', 'global', 'hybrid', 'mix'];
const ENGINES = ['kgrag', 'kgrag-neo4j', 'lightrag'];
const SETTINGS = {
  latency_ms: Number(args.latency),
  llm_concurrency: 8,
  embedding_concurrency: 4,
  embedding_batch: 64,
  documents_in_flight: 8,
  similarity_threshold: 0.05,
  top_k: 20,
  chunk_top_k: 20,
  budget: { entities: 4000, relationships: 4000, total: 12000 },
  modes: MODES,
};

interface Question {
  id: string;
  question: string;
  /** The sentence that answers it. */
  answer: string;
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
  ingest_s: number;
  /** kgrag-neo4j with NEO4J_PID or a server of the script's: Neo4j's CPU during the timed ingest. */
  server_cpu_s?: number;
  documents: number;
  chunks: number | null;
  /** Peak RSS up to the end of ingestion, and over the whole run (queries included). */
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

const BENCH_QUESTIONS: Array<[RegExp, (m: RegExpExecArray) => string]> = [
  [
    /^(.+) joined (.+) in (.+) to lead the work on (.+)\.$/,
    (m) => `Which organisation did ${m[1]} join in ${m[3]} to lead the work on ${m[4]}?`,
  ],
  [
    /^At a workshop in (.+), (.+) presented results on (.+) built with (.+)\.$/,
    (m) => `Where did ${m[2]} present results on ${m[3]} built with ${m[4]}?`,
  ],
  [
    /^(.+) opened an office in (.+), where (.+) studies (.+)\.$/,
    (m) => `Where did ${m[1]} open the office in which ${m[3]} studies ${m[4]}?`,
  ],
  [
    /^The (.+) programme of (.+) relies on ideas from (.+), who lives in (.+)\.$/,
    (m) => `Where does ${m[3]}, whose ideas the ${m[1]} programme of ${m[2]} relies on, live?`,
  ],
  [
    /^Engineers in (.+) compared (.+) benchmarks with (.+) and the team from (.+)\.$/,
    (m) => `Where did engineers compare ${m[2]} benchmarks with ${m[3]} and the team from ${m[4]}?`,
  ],
];

function benchSpec(documents: number, questionCount: number): Spec {
  const docs = buildCorpus(documents).map((d, i) => ({ id: `report-${i + 1}`, title: d.title, content: d.content }));
  const sentences = docs.flatMap((d) => d.content.split(/(?<=\.)\s+/).filter((s) => !s.startsWith('(')));
  const counts = new Map<string, number>();
  for (const s of sentences) counts.set(s, (counts.get(s) ?? 0) + 1);
  const random = seeded(11);
  const questions: Question[] = [];
  const used = new Set<string>();
  for (let tries = 0; questions.length < questionCount && tries < 10_000; tries++) {
    const sentence = sentences[Math.floor(random() * sentences.length)];
    if (used.has(sentence) || counts.get(sentence) !== 1) continue;
    for (const [pattern, ask] of BENCH_QUESTIONS) {
      const m = pattern.exec(sentence);
      if (!m) continue;
      used.add(sentence);
      questions.push({ id: `q${questions.length + 1}`, question: ask(m), answer: sentence });
      break;
    }
  }
  return { corpus: 'bench', settings: SETTINGS, documents: docs, questions };
}

function proseSpec(): Spec {
  return {
    corpus: 'prose',
    settings: SETTINGS,
    documents: ARTICLES.map((a, i) => ({ id: `article-${i + 1}`, title: a.title, content: a.content })),
    questions: ARTICLE_QUESTIONS.map((q, i) => ({ id: `q${i + 1}`, ...q })),
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
  log?: string;
}

async function runKgrag(spec: Spec, options: KgragRun): Promise<EngineReport | null> {
  // As src/main.ts does for the service.
  tuneHeap(nodeFlags());
  const config = benchConfig({
    defaults: {
      ...WITHOUT_RESOLUTION,
      // As many documents in flight as LightRAG gets (the service's default is six per LLM slot).
      WORKER_THREADS: String(spec.settings.documents_in_flight),
    },
    inherit: true,
    fixed: {
      ...EMBEDDED,
      // Vectors in Neo4j's own indexes unless QDRANT_URL names a Qdrant for kgrag-neo4j.
      ...(options.neo4jUri ? { NEO4J_URI: options.neo4jUri } : { QDRANT_URL: undefined }),
      RUST_LOG: 'error',
      SERVICE_MOCK_LATENCY_MS: String(spec.settings.latency_ms),
      SERVICE_LLM_CONCURRENCY: String(spec.settings.llm_concurrency),
      SERVICE_EMBEDDING_CONCURRENCY: String(spec.settings.embedding_concurrency),
      SERVICE_ASYNC_THRESHOLD_BYTES: String(1024 * 1024 * 1024),
    },
  });
  const rt = await createRuntime(config, createLogger(config.logLevel));
  const counting = countCalls(rt.providers, options.log !== undefined);
  const { app } = createApp(rt);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  await rt.start();
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
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
      await settleEmbeddingRefreshes();
      await rt.stores.dropWorkspace(scratch);
    }
    server.close();
    await rt.close();
    return null;
  }
  const before = structuredClone(counting);
  const scope = await benchWorkspace(rt, `side by side ${spec.corpus} ${stamp}`);
  const headers = headersOf(scope);
  const cpuBefore = options.serverCpuSeconds();
  const started = performance.now();
  await ingestCorpus(base, headers, spec);
  const ingest_s = (performance.now() - started) / 1000;
  const peakRssIngest = process.resourceUsage().maxRSS / 1024;
  const cpuAfter = options.serverCpuSeconds();
  // Every document is complete; vectors refreshed in the background are written within the refresh delay.
  await settleEmbeddingRefreshes();
  const ingested = since(before, counting);
  const graph = await rt.stores.graph.stats(scope);
  const [entityVectors, relationshipVectors] = await Promise.all([
    rt.stores.vectors.count(scope, 'entity'),
    rt.stores.vectors.count(scope, 'relationship'),
  ]);
  const superseded = options.log ? await supersededTexts(rt, scope, ingested.texts ?? [], options.log) : undefined;
  // Queries are timed without simulated latency on both sides: what is left is the engine's own work.
  rt.config.mockLatencyMs = 0;

  const queries: QueryRun[] = [];
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
          enable_rerank: false,
          max_entities: spec.settings.top_k,
          max_relationships: spec.settings.top_k,
          max_chunks: spec.settings.chunk_top_k,
        }),
      });
      const body = (await res.json()) as { context?: string; detail?: string };
      if (res.status !== 200) throw new Error(`query answered ${res.status}: ${body.detail}`);
      queries.push({ mode, id: q.id, ms: performance.now() - t, context: body.context ?? '' });
    }
  }
  const chunks = await rt.stores.chunks.count(scope);
  const answered = since(before, counting);
  if (options.neo4jUri) await rt.stores.dropWorkspace(scope);
  server.close();
  await rt.close();
  return {
    ingest_s,
    server_cpu_s: cpuBefore === null || cpuAfter === null ? undefined : cpuAfter - cpuBefore,
    documents: spec.documents.length,
    chunks,
    peak_rss_ingest_mb: peakRssIngest,
    peak_rss_mb: process.resourceUsage().maxRSS / 1024,
    calls: ingested.llmCalls,
    keyword_calls_queries: (answered.llmCalls.keywords ?? 0) - (ingested.llmCalls.keywords ?? 0),
    embedding_calls: ingested.embeddingCalls,
    texts_embedded: ingested.textsEmbedded,
    superseded_texts: superseded,
    records: { entities: graph.total_nodes, relationships: graph.total_edges, entityVectors, relationshipVectors },
    queries,
  };
}

/**
 * Queues the documents of the corpus one after the other (the service admits at most 16 uploads of a workspace
 * in flight at once) and waits until the queue is empty.
 */
async function ingestCorpus(base: string, headers: Record<string, string>, spec: Spec): Promise<void> {
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
    if (metrics.queue.pending + metrics.queue.running === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The texts embedded during ingestion that are not the final text of a chunk or record (an earlier version of a
 * record, embedded before another document changed it), or that were embedded more than once; written to `file`.
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

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function recall(spec: Spec, report: EngineReport, mode: string): number {
  const answers = new Map(spec.questions.map((q) => [q.id, folded(q.answer)]));
  const runs = report.queries.filter((q) => q.mode === mode);
  const hits = runs.filter((q) => folded(q.context).includes(answers.get(q.id) ?? '\u0000')).length;
  return hits / Math.max(1, runs.length);
}

function printReport(spec: Spec, reports: Record<string, EngineReport>): void {
  const engines = Object.keys(reports);
  const floor = (r: EngineReport) =>
    (Object.values(r.calls).reduce((a, b) => a + b, 0) * spec.settings.latency_ms) / spec.settings.llm_concurrency / 1000;
  const total = (r: EngineReport) => Object.values(r.calls).reduce((a, b) => a + b, 0);
  const kinds = [...new Set(engines.flatMap((e) => Object.keys(reports[e].calls)))].sort();
  const rows: Array<[string, ...string[]]> = [
    ['documents / chunks', ...engines.map((e) => `${reports[e].documents} / ${reports[e].chunks ?? '?'}`)],
    ['ingest wall time', ...engines.map((e) => `${reports[e].ingest_s.toFixed(1)} s`)],
    ['documents per minute', ...engines.map((e) => ((reports[e].documents / reports[e].ingest_s) * 60).toFixed(1))],
    ['LLM calls (ingestion)', ...engines.map((e) => String(total(reports[e])))],
    ...kinds.map((k): [string, ...string[]] => [`  ${k}`, ...engines.map((e) => String(reports[e].calls[k] ?? 0))]),
    [
      'wall / LLM floor',
      ...engines.map((e) => `${(reports[e].ingest_s / floor(reports[e])).toFixed(2)} (floor ${floor(reports[e]).toFixed(1)} s)`),
    ],
    ...(engines.some((e) => reports[e].server_cpu_s !== undefined)
      ? [
          [
            'Neo4j CPU during ingestion',
            ...engines.map((e) => (reports[e].server_cpu_s === undefined ? '-' : `${reports[e].server_cpu_s?.toFixed(1)} s`)),
          ] as [string, ...string[]],
        ]
      : []),
    ['embedding calls / texts embedded (ingestion)', ...engines.map((e) => `${reports[e].embedding_calls} / ${reports[e].texts_embedded}`)],
    ...(engines.some((e) => reports[e].superseded_texts !== undefined)
      ? [
          [
            '  of them embedded again or replaced since',
            ...engines.map((e) => (reports[e].superseded_texts === undefined ? '-' : String(reports[e].superseded_texts))),
          ] as [string, ...string[]],
        ]
      : []),
    [
      'entities / relationships (with a vector)',
      ...engines.map((e) => {
        const r = reports[e].records;
        return r ? `${r.entities} (${r.entityVectors}) / ${r.relationships} (${r.relationshipVectors})` : '-';
      }),
    ],
    [
      'peak RSS: ingestion / whole run',
      ...engines.map((e) => `${reports[e].peak_rss_ingest_mb.toFixed(0)} / ${reports[e].peak_rss_mb.toFixed(0)} MB`),
    ],
    [
      `keyword LLM calls, ${spec.questions.length} questions x ${spec.settings.modes.length} modes`,
      ...engines.map((e) => String(reports[e].keyword_calls_queries)),
    ],
    ...spec.settings.modes.map((mode): [string, ...string[]] => [
      `${mode}: context p50 / p95, recall`,
      ...engines.map((e) => {
        const ms = reports[e].queries.filter((q) => q.mode === mode).map((q) => q.ms);
        return `${percentile(ms, 50).toFixed(1)} / ${percentile(ms, 95).toFixed(1)} ms, ${recall(spec, reports[e], mode).toFixed(2)}`;
      }),
    ]),
  ];
  const widths = [
    Math.max(...rows.map((r) => r[0].length)),
    ...engines.map((e, i) => Math.max(e.length, ...rows.map((r) => r[i + 1].length))),
  ];
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  process.stdout.write(
    `\n${spec.corpus} corpus: ${spec.documents.length} documents, ${spec.questions.length} questions, ` +
      `${spec.settings.latency_ms} ms per call, LLM concurrency ${spec.settings.llm_concurrency}, load average ${loadAverage()}\n`,
  );
  process.stdout.write(`${line(['', ...engines])}\n${'-'.repeat(widths.reduce((a, b) => a + b + 2, 0))}\n`);
  for (const row of rows) process.stdout.write(`${line(row)}\n`);
}

function loadAverage(): string {
  try {
    return fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return '?';
  }
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

async function main(): Promise<void> {
  if (args.child === 'kgrag' || args.child === 'warm') {
    const spec = JSON.parse(fs.readFileSync(args.input as string, 'utf8')) as Spec;
    const pid = Number(process.env.KGRAG_BENCH_NEO4J_PID ?? NaN);
    const report = await runKgrag(spec, {
      neo4jUri: process.env.KGRAG_BENCH_NEO4J_URI,
      warmPasses: args.child === 'warm' ? Number(args['warm-passes']) : undefined,
      serverCpuSeconds: Number.isInteger(pid) ? () => processCpuSeconds(pid, clockTicks()) : () => null,
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
      const spec = corpus === 'prose' ? proseSpec() : benchSpec(Number(args.documents), Number(args.questions));
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
        await child('kgrag', ['--output', output, ...log]);
        reports[engine] = JSON.parse(fs.readFileSync(output, 'utf8')) as EngineReport;
      }
      if (engines.includes('lightrag')) reports.LightRAG = await runLightRag(spec, input);
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
