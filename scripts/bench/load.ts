/**
 * Load benchmark: `npx tsx scripts/bench/load.ts [--warmup 60] [--duration 60] [--connections 64] [--sse 4]
 * [--seed-notes 400]`: `--warmup` seconds of load, then `--duration` seconds measured.
 * Set NEO4J_URI (e.g. from `bash scripts/neo4j/neo4j.sh start`) for the Neo4j mode; embedded otherwise.
 * `--log-level error` writes the service's log to stderr (the causes of 500s).
 * Boots the service in-process (mock provider, rate limits off, authentication on with a master key), seeds a
 * workspace with three documents and `--seed-notes` notes like the ones the load uploads (processed before it
 * starts), then a SEPARATE load process (autocannon) drives mixed traffic on loopback: queries in every mode,
 * /graph, entity and lineage reads, uploads, and `--sse` subscribers on /graph/stream.
 * Prints, measured in the service process after the warm-up: requests, 4xx and 5xx per route with p50/p99 service
 * latency (and the problem details of the refusals), the event-loop delay p99 (monitorEventLoopDelay), and RSS
 * growth as sampled: the mean of the last 5 s of the warm-up against the mean of the last 5 s measured, and the
 * least-squares line through the samples of the measured window, from its start to its end; with `--expose-gc` (as
 * `npm run bench:load` runs it) also RSS and the heap in use after a full collection, against the chunks stored
 * meanwhile: idle before the load, under load 4 s before its end (the requests then in flight included), and idle
 * once the uploads queued during the load are processed. That is memory kept, as opposed to garbage not yet
 * collected. No collection is forced while RSS is sampled: one forced at the end of the warm-up shrank the heap,
 * and the measured window then began with V8 growing it back.
 */
import { spawn } from 'node:child_process';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import autocannon from 'autocannon';
import { createApp } from '../../src/app';
import { createLogger } from '../../src/logger';
import { createRuntime } from '../../src/runtime';

import { benchConfig, runAsBuilt, serve } from './service';
import { BENCH_MASTER_KEY as KEY } from './workspace';
const MODES = ['naive', 'local', 'global', 'hybrid', 'mix', 'bypass'];
/** Seconds before the load stops at which memory is read under load for the last time. */
const LAST_READING_S = 4;

/** Seconds of RSS samples averaged at either end of the measured window. */
const RSS_WINDOW_S = 5;

/** Bytes in MB, to `digits` decimals. */
const mb = (bytes: number, digits = 0): string => (bytes / 1048576).toFixed(digits);

interface Job {
  url: string;
  workspace: string;
  documentId: string;
  duration: number;
  connections: number;
  sse: number;
}

const SEED = [
  'Alice Johnson works with Bob Smith at Acme Corporation in Berlin. Acme Corporation builds the Falcon Engine, a database technology.',
  'Globex Corporation in Paris researches quantum computing. Carol White directs Globex research and advises Acme Corporation.',
  'The Berlin Research Lab, part of Acme Corporation, is led by Bob Smith and works on the Falcon Engine with Globex.',
];

/** The note each upload of the mix stores, as one chunk. */
const note = (n: string): string => `Load note ${n}: Dana Lee of Umbrella Group met Alice Johnson in Madrid about the Falcon Engine.`;

/** The load process: autocannon over the mixed requests, plus SSE subscribers that stay connected. */
async function client(job: Job): Promise<void> {
  const headers = { 'X-API-Key': KEY, 'X-Workspace-ID': job.workspace, 'Content-Type': 'application/json' };
  const controller = new AbortController();
  const subscribers = Array.from({ length: job.sse }, async () => {
    const res = await fetch(`${job.url}/api/v1/graph/stream`, { headers, signal: controller.signal });
    const reader = res.body!.getReader();
    for (;;) if ((await reader.read()).done) break;
  });
  let upload = 0;
  const requests: autocannon.Request[] = [
    ...MODES.map((mode) => ({
      method: 'POST' as const,
      path: '/api/v1/query',
      body: JSON.stringify({ query: 'Who works with Bob Smith on the Falcon Engine?', mode }),
    })),
    { method: 'GET', path: '/api/v1/graph?limit=100' },
    { method: 'GET', path: '/api/v1/graph/entities?limit=50' },
    { method: 'GET', path: '/api/v1/graph/entities?search=ACME&limit=10' },
    { method: 'GET', path: `/api/v1/documents/${job.documentId}/lineage` },
    {
      method: 'POST',
      path: '/api/v1/documents',
      setupRequest: (req) => ({
        ...req,
        body: JSON.stringify({
          content: note(`${process.pid}-${upload++}`),
          async_processing: true,
        }),
      }),
    },
  ];
  const result = await autocannon({ url: job.url, connections: job.connections, duration: job.duration, headers, requests });
  controller.abort();
  await Promise.allSettled(subscribers);
  process.send!({ requests: result.requests.total, errors: result.errors, timeouts: result.timeouts, non2xx: result.non2xx });
}

/** The detail of a problem body (a string or an object by then), request ids left out so that causes group. */
function problemDetail(body: unknown): string {
  let problem = body as { detail?: string } | undefined;
  if (typeof body === 'string') {
    try {
      problem = JSON.parse(body) as { detail?: string };
    } catch {
      return body.slice(0, 200);
    }
  }
  return (problem?.detail ?? '').replace(/request id \S+/, 'request id …');
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface LiveData {
  /** Heap in use after a full collection (null without `--expose-gc`). */
  heap: number | null;
  /** RSS a second after that collection (with garbage not yet collected without `--expose-gc`). */
  rss: number;
  /** V8's spaces over 1 MB, committed/used MB. */
  spaces: string;
  /** Chunks stored in the workspace: each upload of the benchmark is one chunk, counted once it is chunked. */
  chunks: number;
}

/** What the service holds: the heap after a full collection, and the chunks stored in the workspace. */
async function liveData(rt: Awaited<ReturnType<typeof createRuntime>>, workspaceId: string): Promise<LiveData> {
  const collect = (globalThis as { gc?: () => void }).gc;
  collect?.();
  await sleep(1000);
  collect?.();
  const { heapUsed } = process.memoryUsage();
  // V8 hands the pages a collection frees to a background job that unmaps them: RSS is read a second later, once
  // it has had time to (read at once, RSS still held 20 MB of freed pages in a Neo4j run).
  await sleep(1000);
  const { rss } = process.memoryUsage();
  const spaces = v8
    .getHeapSpaceStatistics()
    .filter((s) => s.space_size > 1048576)
    .map((s) => `${s.space_name.replace('_space', '')} ${mb(s.space_size)}/${mb(s.space_used_size)}`)
    .join(', ');
  return { heap: collect ? heapUsed : null, rss, spaces, chunks: await rt.stores.chunks.count({ workspaceId }) };
}

function liveLine(label: string, start: LiveData, end: LiveData): string {
  const chunks = `chunks ${start.chunks} -> ${end.chunks}`;
  if (start.heap === null || end.heap === null) return `${chunks} (run with --expose-gc for the live heap and RSS after a full GC)\n`;
  const added = end.chunks - start.chunks;
  const perChunk = added > 0 ? `, ${((end.heap - start.heap) / added / 1024).toFixed(1)} KB per added chunk` : '';
  const rss = `${mb(start.rss)} -> ${mb(end.rss)} MB (${(((end.rss - start.rss) / start.rss) * 100).toFixed(1)} %)`;
  return (
    `${label}: RSS after a full GC ${rss}; ` +
    `live heap ${mb(start.heap, 1)} -> ${mb(end.heap, 1)} MB, ${chunks}${perChunk}\n` +
    `  V8 spaces, size/used MB: ${start.spaces} -> ${end.spaces}\n`
  );
}

/**
 * RSS growth as sampled (no collection forced): the mean of the last `RSS_WINDOW_S` samples before the measured
 * window ends against the mean of the last ones of the warm-up. A single sample falls anywhere between two
 * collections, and moves the figure by itself by 20 MB or more.
 */
function rssLine(samples: number[], warmedUp: number): string {
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const before = mean(samples.slice(Math.max(0, warmedUp - RSS_WINDOW_S), warmedUp));
  const after = mean(samples.slice(-RSS_WINDOW_S));
  const peak = Math.max(...samples.slice(warmedUp));
  const trend = trendLine(samples.slice(warmedUp));
  return (
    `RSS as sampled, mean of ${RSS_WINDOW_S} s: ${mb(before)} MB at the end of the warm-up, ${mb(after)} MB at the end ` +
    `(${(((after - before) / before) * 100).toFixed(1)} %), peak ${mb(peak)} MB\n` +
    `RSS trend over the measured window (least squares, ${trend.n} samples): ${mb(trend.start)} -> ${mb(trend.end)} MB ` +
    `(${(((trend.end - trend.start) / trend.start) * 100).toFixed(1)} %)\n`
  );
}

/**
 * The least-squares line through samples taken once a second, read at the first and the last: growth that
 * persists through the window, not where two collections happen to fall (RSS swings by 10 % or more between them
 * under this load, in waves of 20 to 40 s).
 */
function trendLine(ys: number[]): { n: number; start: number; end: number } {
  const n = ys.length;
  if (n < 2) return { n, start: ys[0] ?? 0, end: ys[0] ?? 0 };
  const meanX = (n - 1) / 2;
  const meanY = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  ys.forEach((y, x) => {
    sxy += (x - meanX) * (y - meanY);
    sxx += (x - meanX) ** 2;
  });
  const slope = sxy / sxx;
  return { n, start: meanY - slope * meanX, end: meanY + slope * (n - 1 - meanX) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '60' },
      connections: { type: 'string', default: '64' },
      sse: { type: 'string', default: '4' },
      // V8 sizes its heap for this load over its first 30 to 40 s (on Neo4j, heap total 125 MB at the start and
      // about 190 MB at 35 s, then swinging around that): measured after a minute, the figures are those of the
      // service as it runs, not of its heap growing into the load.
      warmup: { type: 'string', default: '60' },
      'seed-notes': { type: 'string', default: '400' },
      'log-level': { type: 'string', default: 'silent' },
      client: { type: 'string' },
    },
  });
  if (values.client) return client(JSON.parse(values.client) as Job);
  runAsBuilt();
  const duration = Number(values.duration);
  const warmupS = Number(values.warmup);
  // NEO4J_URI and the like come from the environment; the bench's own settings take precedence over it.
  const rt = await createRuntime(benchConfig({ inherit: true }), createLogger(values['log-level']));
  const { app } = createApp(rt);
  // Service time per route (the matched route pattern), measured from the first middleware to the response written.
  const samples = new Map<string, { ms: number[]; s4xx: number; s5xx: number }>();
  const reasons = new Map<string, number>();
  let measuring = false;
  app.middleware.unshift(async (ctx, next) => {
    // Streams are not timed (they last as long as their subscriber): no listener of the bench's own on them.
    if (ctx.path.endsWith('/graph/stream')) return next();
    const t0 = performance.now();
    ctx.res.once('close', () => {
      if (!measuring) return;
      const mode = ctx.path === '/api/v1/query' ? ` (${(ctx.request as { body?: { mode?: string } }).body?.mode ?? '?'})` : '';
      const route = `${ctx.method} ${ctx.path.replace(/\/documents\/[^/]+\/lineage/, '/documents/:id/lineage')}${mode}`;
      const entry = samples.get(route) ?? { ms: [], s4xx: 0, s5xx: 0 };
      entry.ms.push(performance.now() - t0);
      if (ctx.status >= 400) {
        if (ctx.status >= 500) entry.s5xx += 1;
        else entry.s4xx += 1;
        const detail = `${ctx.status} ${problemDetail(ctx.body)}`;
        reasons.set(detail, (reasons.get(detail) ?? 0) + 1);
      }
      samples.set(route, entry);
    });
    await next();
  });
  const service = await serve(rt, app);
  const { url } = service;
  const headers = { 'X-API-Key': KEY, 'Content-Type': 'application/json' };
  const ws = (await (
    await fetch(`${url}/api/v1/workspaces`, { method: 'POST', headers, body: JSON.stringify({ name: `load ${Date.now()}` }) })
  ).json()) as {
    id: string;
  };
  let documentId = '';
  for (const content of SEED) {
    const res = await fetch(`${url}/api/v1/documents`, {
      method: 'POST',
      headers: { ...headers, 'X-Workspace-ID': ws.id },
      body: JSON.stringify({ content }),
    });
    if (!res.ok) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
    documentId ||= ((await res.json()) as { id: string }).id;
  }
  // Notes like the ones the load uploads, processed before it starts: the queries' contexts are then at their token
  // budgets from the first second. From three documents, they would grow through the run with the notes it stores,
  // and with them every query's work and the memory of the queries in flight.
  const wsHeaders = { ...headers, 'X-Workspace-ID': ws.id };
  const seedNotes = Number(values['seed-notes']);
  for (let i = 0; i < seedNotes; i += 16) {
    const batch = Array.from({ length: Math.min(16, seedNotes - i) }, async (_, j) => {
      const res = await fetch(`${url}/api/v1/documents`, {
        method: 'POST',
        headers: wsHeaders,
        body: JSON.stringify({ content: note(`seed-${i + j}`), async_processing: true }),
      });
      if (!res.ok) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    });
    await Promise.all(batch);
  }
  const seedStart = Date.now();
  while ((await rt.stores.tasks.countOpen(null)) > 0) await sleep(250);
  if (seedNotes > 0) process.stdout.write(`seeded ${seedNotes} notes, processed in ${((Date.now() - seedStart) / 1000).toFixed(0)} s\n`);
  // Each request of the mix once, one at a time, before the load: a fresh database plans every statement on its
  // first run, which would otherwise fall on the first seconds of 64 connections at once.
  for (const mode of MODES) {
    const res = await fetch(`${url}/api/v1/query`, {
      method: 'POST',
      headers: wsHeaders,
      body: JSON.stringify({ query: 'Who works with Bob Smith?', mode }),
    });
    await res.arrayBuffer();
  }
  for (const path of ['/api/v1/graph?limit=100', '/api/v1/graph/entities?limit=50', `/api/v1/documents/${documentId}/lineage`]) {
    await (await fetch(`${url}${path}`, { headers: wsHeaders })).arrayBuffer();
  }
  const job: Job = {
    url,
    workspace: ws.id,
    documentId,
    duration: warmupS + duration,
    connections: Number(values.connections),
    sse: Number(values.sse),
  };
  const liveStart = await liveData(rt, ws.id);
  process.stdout.write(
    `load: ${rt.config.storage.mode} mode, ${job.connections} connections, ${warmupS} s warm-up then ${duration} s measured, ${job.sse} SSE subscribers\n`,
  );
  const child = spawn(process.execPath, [...process.execArgv, __filename, '--client', JSON.stringify(job)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const clientResult = new Promise<Record<string, number>>((resolve) => child.once('message', (m) => resolve(m as Record<string, number>)));
  const delay = monitorEventLoopDelay({ resolution: 10 });
  // Garbage-collection pauses in the measured window, by kind: what of the event-loop delay is the collector's.
  const pauses = new Map<string, number[]>();
  const gc = new PerformanceObserver((list) => {
    if (!measuring) return;
    for (const entry of list.getEntries()) {
      const kind = gcKind((entry as { detail?: { kind?: number } }).detail?.kind);
      const list = pauses.get(kind) ?? [];
      list.push(entry.duration);
      pauses.set(kind, list);
    }
  });
  gc.observe({ entryTypes: ['gc'] });
  // RSS and V8's heap once a second from the start of the load, as a monitor would see them.
  const rssSamples: number[] = [];
  const heapSamples: number[] = [];
  const rssTimer = setInterval(() => {
    const { rss, heapTotal } = process.memoryUsage();
    rssSamples.push(rss);
    heapSamples.push(heapTotal);
  }, 1000);
  await sleep(warmupS * 1000);
  const warmedUp = rssSamples.length;
  const memStart = process.memoryUsage();
  measuring = true;
  delay.enable();
  // The reading under load: a few seconds before the load process stops, with the requests then in flight. The
  // collections it forces fall after the last RSS sample.
  await Promise.race([clientResult, sleep(Math.max(0, duration - LAST_READING_S) * 1000)]);
  measuring = false;
  delay.disable();
  gc.disconnect();
  clearInterval(rssTimer);
  const memEnd = process.memoryUsage();
  const liveLoaded = await liveData(rt, ws.id);
  const totals = await clientResult;
  // What is kept once idle: the queued uploads are processed first (at most two minutes).
  const settled = Date.now() + 120_000;
  while ((await rt.stores.tasks.countOpen(null)) > 0 && Date.now() < settled) await sleep(500);
  const liveIdle = await liveData(rt, ws.id);

  const rows = [...samples].sort(([a], [b]) => a.localeCompare(b));
  process.stdout.write('\n| route | requests | 4xx | 5xx | p50 ms | p99 ms |\n|---|---:|---:|---:|---:|---:|\n');
  for (const [route, { ms, s4xx, s5xx }] of rows) {
    const sorted = ms.sort((a, b) => a - b);
    process.stdout.write(
      `| ${route} | ${ms.length} | ${s4xx} | ${s5xx} | ${percentile(sorted, 50).toFixed(1)} | ${percentile(sorted, 99).toFixed(1)} |\n`,
    );
  }
  const total5xx = rows.reduce((n, [, r]) => n + r.s5xx, 0);
  for (const [detail, n] of reasons) process.stdout.write(`${n}x ${detail}\n`);
  process.stdout.write(
    `\nclient: ${totals.requests} requests, ${totals.non2xx} non-2xx, ${totals.errors} errors, ${totals.timeouts} timeouts\n` +
      `5xx after warm-up: ${total5xx}\n` +
      `event-loop delay p99: ${(delay.percentile(99) / 1e6).toFixed(1)} ms (max ${(delay.max / 1e6).toFixed(1)} ms)\n` +
      gcLine(pauses, duration) +
      rssLine(rssSamples, warmedUp) +
      `heap used ${mb(memStart.heapUsed)} -> ${mb(memEnd.heapUsed)} MB of ${mb(memStart.heapTotal)} -> ${mb(memEnd.heapTotal)} MB, ` +
      `external ${mb(memStart.external)} -> ${mb(memEnd.external)} MB\n` +
      `RSS / heap total MB every 5 s from the start of the load: ${rssSamples
        .map((rss, i) => `${mb(rss)}/${mb(heapSamples[i])}`)
        .filter((_, i) => i % 5 === 4)
        .join(' ')}\n` +
      liveLine(`idle before the load -> under load ${LAST_READING_S} s before its end`, liveStart, liveLoaded) +
      liveLine('idle before the load -> idle after it (queued uploads processed)', liveStart, liveIdle),
  );
  await service.close();
  process.exit(0);
}

function gcKind(kind: number | undefined): string {
  if (kind === constants.NODE_PERFORMANCE_GC_MINOR) return 'scavenge';
  if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) return 'mark-compact';
  if (kind === constants.NODE_PERFORMANCE_GC_INCREMENTAL) return 'incremental marking';
  return 'weak callbacks';
}

/** Pauses per kind: how many, their total share of the window, p99 and the longest. */
function gcLine(pauses: Map<string, number[]>, durationS: number): string {
  const parts = [...pauses].map(([kind, ms]) => {
    const sorted = ms.sort((a, b) => a - b);
    const total = sorted.reduce((a, b) => a + b, 0);
    return (
      `${kind} ${sorted.length}x, ${(total / 1000).toFixed(1)} s (${((100 * total) / (durationS * 1000)).toFixed(1)} %), ` +
      `p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms`
    );
  });
  return `GC pauses: ${parts.join('; ') || 'none'}\n`;
}

void main();
