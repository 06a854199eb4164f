/**
 * Ingestion benchmark: `npx tsx scripts/bench/ingest.ts [--latency 200] [--documents 220] [--workers N] [--no-summaries]`
 * (`--workers`, else WORKER_THREADS, else the service's default).
 * Generates a deterministic corpus (about 1 MB of prose with recurring people, organisations, places and
 * technologies), boots the service in-process on the embedded stores with the mock provider at a simulated
 * latency per call, queues every document at once over real HTTP (async_processing) and waits for the tasks.
 * Prints throughput, LLM calls and the LLM-bound floor (calls x latency / LLM concurrency) against wall time.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { BENCH_MASTER_KEY, benchWorkspace } from './workspace';
import { createApp } from '../../src/app';
import type { ChatMessage, CompletionOptions, EmbeddingProvider, LlmProvider, ProviderRegistry } from '../../src/llm/ports';
import { nodeFlags } from '../../src/config/node-flags';
import { tuneHeap } from '../../src/heap';
import { createLogger } from '../../src/logger';
import { createRuntime } from '../../src/runtime';
import { PEOPLE as ALL_PEOPLE } from './corpus/people';
import { loadAverage } from './host';
import { seeded } from './random';
import { watchSlots } from './slot-timeline';
import { benchConfig, EMBEDDED, serve, SYNCHRONOUS } from './service';

const { values: args } = parseArgs({
  // Imported by other benchmarks for its corpus: their arguments are not ours.
  args: require.main === module ? process.argv.slice(2) : [],
  options: {
    latency: { type: 'string', default: '200' },
    documents: { type: 'string', default: '220' },
    workers: { type: 'string' },
    'no-summaries': { type: 'boolean', default: false },
  },
});
const LATENCY_MS = Number(args.latency);
const DOCUMENTS = Number(args.documents);
const TARGET_BYTES = 1024 * 1024;

const PEOPLE = ALL_PEOPLE.slice(0, 12);
const ORGS = [
  'Acme Research',
  'Globex Labs',
  'Initech Systems',
  'Umbrella Analytics',
  'Stark Industries',
  'Wayne Foundation',
  'Hooli Cloud',
  'Cyberdyne Robotics',
];
const PLACES = ['Zurich', 'Lisbon', 'Toronto', 'Nairobi', 'Osaka', 'Valparaiso', 'Helsinki', 'Melbourne'];
const TECH = [
  'Graph Databases',
  'Vector Search',
  'Rust Compilers',
  'Quantum Annealing',
  'Stream Processing',
  'Neural Retrieval',
  'Edge Inference',
  'Consensus Protocols',
];
const TEMPLATES = [
  (p: string, o: string, l: string, t: string) => `${p} joined ${o} in ${l} to lead the work on ${t}.`,
  (p: string, o: string, l: string, t: string) => `At a workshop in ${l}, ${p} presented results on ${t} built with ${o}.`,
  (p: string, o: string, l: string, t: string) => `${o} opened an office in ${l}, where ${p} studies ${t}.`,
  (p: string, o: string, l: string, t: string) => `The ${t} programme of ${o} relies on ideas from ${p}, who lives in ${l}.`,
  (p: string, o: string, l: string, t: string) => `Engineers in ${l} compared ${t} benchmarks with ${p} and the team from ${o}.`,
];

/** Deterministic documents of about TARGET_BYTES in total; each names a handful of recurring entities. */
export function buildCorpus(count: number): Array<{ title: string; content: string }> {
  const random = seeded(7);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
  const perDocument = Math.ceil(TARGET_BYTES / count);
  return Array.from({ length: count }, (_, i) => {
    const paragraphs: string[] = [];
    let size = 0;
    while (size < perDocument) {
      const sentences = Array.from({ length: 5 }, () => pick(TEMPLATES)(pick(PEOPLE), pick(ORGS), pick(PLACES), pick(TECH)));
      const paragraph = `${sentences.join(' ')} (Report ${i + 1}, section ${paragraphs.length + 1}.)`;
      paragraphs.push(paragraph);
      size += Buffer.byteLength(paragraph) + 2;
    }
    return { title: `Report ${i + 1}`, content: paragraphs.join('\n\n') };
  });
}

/** Counts logical provider calls by prompt task (retries inside the provider are not counted again). */
export function countingProviders(inner: ProviderRegistry) {
  const llmCalls = new Map<string, number>();
  let embeddingCalls = 0;
  let textsEmbedded = 0;
  // One wrapper per provider instance, as the registry hands out one instance per provider and model.
  const wrapped = new WeakMap<object, LlmProvider | EmbeddingProvider>();
  const once = <T extends object>(inner: T, wrap: (inner: T) => T): T => {
    const hit = wrapped.get(inner) as T | undefined;
    if (hit) return hit;
    const made = wrap(inner);
    wrapped.set(inner, made as unknown as LlmProvider);
    return made;
  };
  const wrapLlm = (llm: LlmProvider): LlmProvider => ({
    provider: llm.provider,
    model: llm.model,
    complete(messages: ChatMessage[], options?: CompletionOptions) {
      const task = options?.task ?? 'other';
      llmCalls.set(task, (llmCalls.get(task) ?? 0) + 1);
      return llm.complete(messages, options);
    },
    stream: (messages, options) => llm.stream(messages, options),
  });
  const wrapEmbedding = (e: EmbeddingProvider): EmbeddingProvider => ({
    provider: e.provider,
    model: e.model,
    dimension: e.dimension,
    batchSize: e.batchSize,
    embed(texts, signal) {
      embeddingCalls += 1;
      textsEmbedded += texts.length;
      return e.embed(texts, signal);
    },
  });
  const registry: ProviderRegistry = {
    llm: (provider, model) => once(inner.llm(provider, model), wrapLlm),
    embedding: (provider, model) => once(inner.embedding(provider, model), wrapEmbedding),
    hasProvider: (name) => inner.hasProvider(name),
    defaultLlmProviderName: () => inner.defaultLlmProviderName(),
    check: () => inner.check(),
  };
  return { registry, llmCalls, embeddingCalls: () => embeddingCalls, textsEmbedded: () => textsEmbedded };
}

async function main(): Promise<void> {
  // As src/main.ts does for the service.
  tuneHeap(nodeFlags());
  const config = benchConfig({
    inherit: true,
    fixed: {
      ...EMBEDDED,
      RUST_LOG: process.env.RUST_LOG ?? 'error',
      SERVICE_MOCK_LATENCY_MS: String(LATENCY_MS),
      ...SYNCHRONOUS,
      ...(args.workers ? { WORKER_THREADS: args.workers } : {}),
    },
  });
  let counting!: ReturnType<typeof countingProviders>;
  const rt = await createRuntime(config, createLogger(config.logLevel), {
    providers: (built) => (counting = countingProviders(built)).registry,
  });
  const slots = watchSlots(rt.slots.llm);
  const service = await serve(rt, createApp(rt).app);
  const base = `${service.url}/api/v1`;
  const scope = await benchWorkspace(rt, 'bench ingest');
  const headers = { 'content-type': 'application/json', 'x-workspace-id': scope.workspaceId, 'x-api-key': BENCH_MASTER_KEY };

  const corpus = buildCorpus(DOCUMENTS);
  const bytes = corpus.reduce((n, d) => n + Buffer.byteLength(d.content), 0);
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 50);

  const started = performance.now();
  const taskIds = await Promise.all(
    corpus.map(async (doc) => {
      const res = await fetch(`${base}/documents`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ ...doc, async_processing: true, use_llm_summarization: !args['no-summaries'] }),
      });
      const body = (await res.json()) as { task_id?: string; detail?: string };
      if (res.status !== 202 || !body.task_id) throw new Error(`queueing '${doc.title}' answered ${res.status}: ${body.detail}`);
      return body.task_id;
    }),
  );
  for (;;) {
    const metrics = (await (await fetch(`${base}/pipeline/queue-metrics`, { headers })).json()) as {
      queue: { pending: number; running: number };
    };
    if (metrics.queue.pending + metrics.queue.running === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const ended = performance.now();
  const wallMs = ended - started;
  clearInterval(sampler);

  const failed = (await rt.stores.tasks.list(scope, { status: 'failed', limit: 1, offset: 0 })).total;
  const completed = (await rt.stores.tasks.list(scope, { status: 'completed', limit: 1, offset: 0 })).total;
  const chunks = await rt.stores.chunks.count(scope);
  const graph = await rt.stores.graph.stats(scope);
  const llmCalls = [...counting.llmCalls.values()].reduce((a, b) => a + b, 0);
  const concurrency = config.ingest.llmConcurrency;
  const floorMs = (llmCalls * LATENCY_MS) / concurrency;
  const by = (task: string) => counting.llmCalls.get(task) ?? 0;

  const rows: Array<[string, string]> = [
    ['documents (completed / failed)', `${taskIds.length} (${completed} / ${failed})`],
    ['bytes', `${bytes} (${(bytes / 1024 / 1024).toFixed(2)} MB)`],
    ['chunks', String(chunks)],
    ['entities / relationships', `${graph.total_nodes} / ${graph.total_edges}`],
    [
      'LLM calls (extract + glean + summarize + other)',
      `${llmCalls} (${by('extract')} + ${by('glean')} + ${by('summarize')} + ${llmCalls - by('extract') - by('glean') - by('summarize')})`,
    ],
    ['LLM calls per chunk', (llmCalls / Math.max(1, chunks)).toFixed(2)],
    ['embedding calls / texts embedded', `${counting.embeddingCalls()} / ${counting.textsEmbedded()}`],
    ['simulated latency per call', `${LATENCY_MS} ms`],
    ['load average at the end (1 / 5 / 15 min)', loadAverage(1, ' / ')],
    ['LLM description summaries', args['no-summaries'] ? 'off' : 'on'],
    ['entity resolution (SERVICE_ENTITY_RESOLUTION)', config.resolution.enabled ? 'on (the default)' : 'off'],
    [
      'workers / LLM concurrency / embedding concurrency',
      `${config.workerThreads} / ${concurrency} / ${config.ingest.embeddingConcurrency}`,
    ],
    ['wall time', `${(wallMs / 1000).toFixed(2)} s`],
    ['documents per minute', ((taskIds.length / wallMs) * 60_000).toFixed(1)],
    ['chunks per second', ((chunks / wallMs) * 1000).toFixed(2)],
    ['peak RSS', `${(peakRss / 1024 / 1024).toFixed(0)} MB`],
    ['LLM-bound floor (calls x latency / concurrency)', `${(floorMs / 1000).toFixed(2)} s`],
    ['wall / floor', (wallMs / floorMs).toFixed(2)],
    ...slots.rows(started, ended),
    [
      'embedding-bound floor (calls x latency / concurrency)',
      `${((counting.embeddingCalls() * LATENCY_MS) / config.ingest.embeddingConcurrency / 1000).toFixed(2)} s`,
    ],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  process.stdout.write(`\ningest benchmark (embedded stores, mock provider)\n${'-'.repeat(width + 24)}\n`);
  for (const [k, v] of rows) process.stdout.write(`${k.padEnd(width)}  ${v}\n`);

  await service.close();
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
