/**
 * Query benchmark: `npx tsx scripts/bench/query.ts [--sizes 5000,10000] [--requests 300] [--concurrency 2]`.
 * For each corpus size: builds a deterministic synthetic knowledge base (documents of 10 chunks of about 1200
 * tokens, entities and relationships at ratios like an extracted corpus: 0.8 entities and ~1.3 relationships per
 * chunk, a few very connected entities) and writes it through the store ports in the record shapes ingestion
 * writes, with real mock embeddings through the provider. Boots the service in-process, then a SEPARATE load
 * process on loopback fires `context_only` queries per mode at a small concurrency and reports latencies.
 * Prints p50/p95/p99 and queries per second per size and mode, and how the median grew between sizes.
 */
import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config/load';
import { chunkId, normalizeEntityId, relationshipId } from '../../src/domain/ids';
import type { ChunkRecord, DocumentRecord, EntityRecord, RelationshipRecord, Scope } from '../../src/domain/types';
import { chunkItems, embedInto, entityItems, relationshipItems } from '../../src/ingest/embed';
import { countTokens } from '../../src/llm/tokens';
import { createLogger } from '../../src/logger';
import { createRuntime, type Runtime } from '../../src/runtime';

const MODES = ['naive', 'local', 'global', 'hybrid', 'mix'] as const;
const WORKSPACE = 'bench-query';
const CHUNKS_PER_DOCUMENT = 10;
const WORDS_PER_CHUNK = 850;
const ENTITIES_PER_CHUNK = 0.8;
const QUERY_COUNT = 64;

interface LoadJob {
  url: string;
  workspace: string;
  queries: string[];
  modes: readonly string[];
  requests: number;
  warmup: number;
  concurrency: number;
}

interface ModeResult {
  mode: string;
  /** Median of the same query answered in the server process without HTTP (service time). */
  inProcessP50?: number;
  /** Server process CPU time per request under load: robust to other processes on the machine. */
  serverCpuMs?: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  qps: number;
  sources: number;
  errors: number;
}

function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = 'ka lo mi ra ve tu sen dor bel fin gar hol jun kes lam nor pel quin ros tal ul vin wes yor zan'.split(' ');
const FILLER =
  'the of and to in a is that for on with as by at from this was are be an which or has its were their been more also its into other such new than these most some over can many between data system results research team work project study analysis model network market report growth policy development process design performance quality service management production program'.split(
    ' ',
  );
const TYPES = ['PERSON', 'ORGANIZATION', 'LOCATION', 'CONCEPT', 'TECHNOLOGY', 'EVENT'];
const RELATIONS = ['WORKS_WITH', 'PART_OF', 'LOCATED_IN', 'RELATED_TO'];

/** A pronounceable, unique name for index i. */
function nameOf(i: number, type: string): string {
  const word = (n: number) => {
    let s = '';
    do {
      s += SYLLABLES[n % SYLLABLES.length];
      n = Math.floor(n / SYLLABLES.length);
    } while (n > 0);
    return s[0].toUpperCase() + s.slice(1);
  };
  const suffix: Record<string, string> = { ORGANIZATION: ' Labs', LOCATION: ' City', TECHNOLOGY: ' Engine', EVENT: ' Summit' };
  return type === 'PERSON' ? `${word(i)} ${word(i * 7 + 3)}` : `${word(i + 11)}${suffix[type] ?? ' Theory'}`;
}

interface Corpus {
  documents: DocumentRecord[];
  chunks: ChunkRecord[];
  entities: EntityRecord[];
  relationships: RelationshipRecord[];
  queries: string[];
}

/** Deterministic corpus: each document has a local cast of entities; a Zipf-ranked global cast recurs everywhere. */
export function buildCorpus(chunkCount: number): Corpus {
  const random = seeded(chunkCount);
  const now = new Date('2024-01-01T00:00:00Z').getTime();
  const entityCount = Math.round(chunkCount * ENTITIES_PER_CHUNK);
  const names = Array.from({ length: entityCount }, (_, i) => {
    const type = TYPES[i % TYPES.length];
    return { name: nameOf(i, type), type };
  });
  const globalCast = Math.max(50, Math.round(entityCount * 0.1));
  const zipf = (n: number) => Math.min(n - 1, Math.floor(Math.exp(random() * Math.log(n + 1))) - 1);
  const mentions = new Map<number, string[]>();
  const pairs = new Map<string, { a: number; b: number; chunks: string[] }>();
  const documents: DocumentRecord[] = [];
  const chunks: ChunkRecord[] = [];
  const documentCount = Math.ceil(chunkCount / CHUNKS_PER_DOCUMENT);
  const localPerDocument = Math.max(1, Math.floor((entityCount - globalCast) / documentCount));

  for (let d = 0; d < documentCount; d++) {
    const id = `bench-doc-${d}`;
    const created = new Date(now + d * 3_600_000).toISOString();
    const local = Array.from({ length: localPerDocument }, (_, k) => globalCast + ((d * localPerDocument + k) % (entityCount - globalCast)));
    let line = 1;
    const texts: string[] = [];
    for (let c = 0; c < CHUNKS_PER_DOCUMENT && chunks.length < chunkCount; c++) {
      const cid = chunkId(id, c);
      const cast = [...new Set([0, 1, 2].map(() => local[Math.floor(random() * local.length)]).concat([zipf(globalCast), zipf(globalCast)]))];
      for (const e of cast) {
        const list = mentions.get(e);
        if (list) list.push(cid);
        else mentions.set(e, [cid]);
      }
      for (let r = 0; r + 1 < cast.length && r < 2; r++) {
        const [a, b] = [cast[r], cast[r + 1]].sort((x, y) => x - y);
        const key = `${a}|${b}`;
        const pair = pairs.get(key) ?? { a, b, chunks: [] };
        pair.chunks.push(cid);
        pairs.set(key, pair);
      }
      const words: string[] = [];
      while (words.length < WORDS_PER_CHUNK) {
        const e = names[cast[Math.floor(random() * cast.length)]];
        words.push(e.name, 'and');
        for (let w = 0; w < 14; w++) words.push(FILLER[zipf(FILLER.length)]);
        words.push(`${SYLLABLES[Math.floor(random() * SYLLABLES.length)]}ics.\n`);
      }
      const content = words.join(' ');
      const lines = content.split('\n').length;
      texts.push(content);
      chunks.push({
        id: cid,
        document_id: id,
        index: c,
        content,
        tokens: countTokens(content),
        char_start: 0,
        char_end: content.length,
        start_line: line,
        end_line: line + lines - 1,
        page_start: null,
        page_end: null,
        extraction_status: 'completed',
        extraction_error: null,
        entity_ids: cast.map((e) => normalizeEntityId(names[e].name)),
        relationship_ids: [],
        llm_model: 'mock-llm',
        embedding_model: 'mock-embedding',
        created_at: created,
      });
      line += lines;
    }
    const content = texts.join('\n');
    documents.push({
      id,
      title: `Report ${d} on ${names[local[0]].name}`,
      status: 'completed',
      content_hash: `sha256:${d.toString(16).padStart(64, '0')}`,
      content,
      document_type: 'text',
      file_path: `reports/report-${d}.txt`,
      file_size: content.length,
      source: null,
      metadata: {},
      chunk_count: texts.length,
      entity_count: 0,
      relationship_count: 0,
      created_at: created,
      updated_at: created,
      processed_at: created,
      processing_time_ms: 0,
      error: null,
      track_id: null,
      task_id: null,
      llm_model: 'mock-llm',
      embedding_model: 'mock-embedding',
      page_count: null,
      pdf_id: null,
      options: { enable_gleaning: false, max_gleaning: 0, use_llm_summarization: false },
    });
  }

  const documentOf = (cid: string) => cid.replace(/-chunk-\d+$/, '');
  const at = new Date(now).toISOString();
  const entities: EntityRecord[] = [];
  for (const [e, cids] of mentions) {
    const { name, type } = names[e];
    entities.push({
      id: normalizeEntityId(name),
      name,
      entity_type: type,
      description: `${name} is a ${type.toLowerCase()} that appears in ${cids.length} passages about ${FILLER[e % FILLER.length]} ${FILLER[(e * 3) % FILLER.length]} and ${SYLLABLES[e % SYLLABLES.length]}ics.`,
      source_chunk_ids: cids,
      document_ids: [...new Set(cids.map(documentOf))],
      created_at: at,
      updated_at: at,
    });
  }
  const relationships: RelationshipRecord[] = [...pairs.values()].map(({ a, b, chunks: cids }) => {
    const [id, source, target] = relationshipId(normalizeEntityId(names[a].name), normalizeEntityId(names[b].name));
    return {
      id,
      source,
      target,
      relation_type: RELATIONS[(a + b) % RELATIONS.length],
      keywords: [FILLER[(a + b) % FILLER.length], FILLER[(a * b) % FILLER.length]],
      description: `${names[a].name} and ${names[b].name} are linked through ${FILLER[(a + 2 * b) % FILLER.length]} work.`,
      weight: cids.length,
      source_chunk_ids: cids,
      document_ids: [...new Set(cids.map(documentOf))],
      created_at: at,
      updated_at: at,
    };
  });
  const queries = Array.from({ length: QUERY_COUNT }, (_, q) => {
    const a = entities[Math.floor(random() * entities.length)];
    const b = entities[Math.floor(random() * entities.length)];
    return q % 2
      ? `What is the relationship between ${a.name} and ${b.name}?`
      : `How does ${a.name} influence ${FILLER[zipf(FILLER.length)]} research and development?`;
  });
  return { documents, chunks, entities, relationships, queries };
}

export async function loadCorpus(rt: Runtime, scope: Scope, corpus: Corpus): Promise<void> {
  const { stores } = rt;
  for (const doc of corpus.documents) await stores.documents.insert(scope, doc);
  await stores.chunks.upsertMany(scope, corpus.chunks);
  await stores.graph.upsertEntities(scope, corpus.entities);
  await stores.graph.upsertRelationships(scope, corpus.relationships);
  const embedder = rt.providers.embedding();
  const options = { concurrency: rt.config.ingest.embeddingConcurrency };
  await embedInto(stores.vectors, scope, 'chunk', embedder, chunkItems(corpus.chunks), options);
  await embedInto(stores.vectors, scope, 'entity', embedder, entityItems(corpus.entities), options);
  await embedInto(stores.vectors, scope, 'relationship', embedder, relationshipItems(corpus.relationships), options);
}

/** Runs in the load process: fires the requests and prints one JSON line of results. */
async function runLoad(job: LoadJob): Promise<void> {
  const results: ModeResult[] = [];
  let q = 0;
  const fire = async (mode: string) => {
    const started = performance.now();
    const res = await fetch(`${job.url}/api/v1/query`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Workspace-ID': job.workspace },
      body: JSON.stringify({ query: job.queries[q++ % job.queries.length], mode, context_only: true }),
    });
    const body = (await res.json()) as { sources?: unknown[] };
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
    });
  }
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

function spawnLoad(job: LoadJob): Promise<{ results: ModeResult[]; cpuMs: Map<string, number> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, __filename, '--load', JSON.stringify(job)], {
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    });
    const cpuMs = new Map<string, number>();
    let mark = process.cpuUsage();
    child.on('message', (m: PhaseMessage) => {
      if (m.phase === 'start') mark = process.cpuUsage();
      else {
        const used = process.cpuUsage(mark);
        cpuMs.set(m.mode, (used.user + used.system) / 1000 / job.requests);
      }
      child.send('ok');
    });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`load process exited with ${code}`));
      resolve({ results: JSON.parse(out.trim().split('\n').pop() as string) as ModeResult[], cpuMs });
    });
  });
}

/** Median time of each mode's queries called directly on the query service, one at a time. */
async function serviceTimes(rt: Runtime, scope: Scope, queries: string[], warmup: number, count: number) {
  const medians = new Map<string, number>();
  for (const mode of MODES) {
    const times: number[] = [];
    for (let i = 0; i < warmup + count; i++) {
      const started = performance.now();
      await rt.query.answer(scope, { query: queries[i % queries.length], mode, context_only: true });
      if (i >= warmup) times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    medians.set(mode, times[Math.floor(times.length / 2)]);
  }
  return medians;
}

async function benchSize(size: number, args: { requests: number; concurrency: number; warmup: number }) {
  const config = loadConfig(
    { ...process.env, PORT: '0', HOST: '127.0.0.1', RUST_LOG: 'error', SERVICE_RATE_LIMIT_QUERY: '0' },
    { cwd: process.cwd() },
  );
  const rt = await createRuntime(config, createLogger('error'));
  const scope = { workspaceId: WORKSPACE };
  const t = performance.now();
  const corpus = buildCorpus(size);
  await loadCorpus(rt, scope, corpus);
  const loadSeconds = (performance.now() - t) / 1000;
  const { app } = createApp(rt);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const inProcess = await serviceTimes(rt, scope, corpus.queries, args.warmup, Math.min(args.requests, 200));
    const { results, cpuMs } = await spawnLoad({ url, workspace: WORKSPACE, queries: corpus.queries, modes: MODES, ...args });
    for (const r of results) {
      r.inProcessP50 = inProcess.get(r.mode);
      r.serverCpuMs = cpuMs.get(r.mode);
    }
    return {
      size,
      entities: corpus.entities.length,
      relationships: corpus.relationships.length,
      loadSeconds,
      results,
    };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await rt.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      load: { type: 'string' },
      sizes: { type: 'string', default: '5000,10000' },
      requests: { type: 'string', default: '300' },
      concurrency: { type: 'string', default: '2' },
      warmup: { type: 'string', default: '30' },
    },
  });
  if (values.load) return runLoad(JSON.parse(values.load) as LoadJob);

  const sizes = values.sizes.split(',').map(Number);
  const args = { requests: Number(values.requests), concurrency: Number(values.concurrency), warmup: Number(values.warmup) };
  console.log(`context_only queries, ${args.requests} per mode after ${args.warmup} warm-up, concurrency ${args.concurrency}, separate load process\n`);
  const runs = [];
  for (const size of sizes) {
    const run = await benchSize(size, args);
    runs.push(run);
    console.log(
      `${size} chunks, ${run.entities} entities, ${run.relationships} relationships (built and embedded in ${run.loadSeconds.toFixed(1)} s)`,
    );
  }
  const f = (n: number) => n.toFixed(1).padStart(7);
  console.log('\n| chunks | mode   |  p50 ms |  p95 ms |  p99 ms | mean ms |     qps | sources | errors | service p50 ms | server CPU ms/query |');
  console.log('|-------:|:-------|--------:|--------:|--------:|--------:|--------:|--------:|-------:|---------------:|--------------------:|');
  for (const run of runs) {
    for (const r of run.results) {
      console.log(
        `| ${String(run.size).padStart(6)} | ${r.mode.padEnd(6)} | ${f(r.p50)} | ${f(r.p95)} | ${f(r.p99)} | ${f(r.mean)} | ${f(r.qps)} | ${f(r.sources)} | ${String(r.errors).padStart(6)} | ${f(r.inProcessP50 ?? NaN).padStart(14)} | ${f(r.serverCpuMs ?? NaN).padStart(19)} |`,
      );
    }
  }
  if (runs.length >= 2) {
    const [small, large] = [runs[0], runs[runs.length - 1]];
    const ratio = large.size / small.size;
    console.log(`\nGrowth from ${small.size} to ${large.size} chunks (corpus x${ratio.toFixed(1)}):`);
    for (const r of large.results) {
      const before = small.results.find((x) => x.mode === r.mode) as ModeResult;
      const cpu = (r.serverCpuMs ?? NaN) / (before.serverCpuMs ?? NaN);
      console.log(`  ${r.mode.padEnd(6)} p50 x${(r.p50 / before.p50).toFixed(2)}, server CPU per query x${cpu.toFixed(2)}`);
    }
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
