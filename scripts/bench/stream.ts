/**
 * Graph stream fan-out benchmark: `npx tsx scripts/bench/stream.ts [--subscribers 100] [--documents 10]
 * [--scope all|types] [--redis redis://...]`. Boots the service in-process (embedded stores; the change feed in
 * Redis when --redis is given), opens the subscribers on /graph/stream over real HTTP, ingests documents through
 * the API while they listen, and waits until every subscriber has every event. Prints events delivered per second,
 * the events each subscriber got, and memory (RSS, heap) before, with the subscribers, and at the peak.
 */
import { performance } from 'node:perf_hooks';
import { createApp } from '../../src/app';
import { createLogger } from '../../src/logger';
import { createRuntime } from '../../src/runtime';
import { buildCorpus } from './ingest';
import { BENCH_MASTER_KEY } from './workspace';
import { benchConfig, serve } from './service';

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : (process.argv[at + 1] ?? fallback);
}

const SUBSCRIBERS = Number(option('subscribers', '100'));
const DOCUMENTS = Number(option('documents', '10'));
const DOCUMENT_BYTES = Number(option('bytes', '4000'));
const SCOPE = option('scope', 'all');
const REDIS = option('redis', '');
const MB = 1024 * 1024;

interface Subscriber {
  events: number;
  live: number;
  bytes: number;
  done: Promise<void>;
  controller: AbortController;
}

function subscribe(url: string, headers: Record<string, string>): Subscriber {
  const controller = new AbortController();
  const sub: Subscriber = { events: 0, live: 0, bytes: 0, done: Promise.resolve(), controller };
  let snapshotDone: () => void = () => undefined;
  sub.done = new Promise((resolve) => (snapshotDone = resolve));
  void (async () => {
    const res = await fetch(url, { headers: { ...headers, Accept: 'text/event-stream' }, signal: controller.signal });
    if (res.status !== 200) throw new Error(`the stream answered ${res.status}: ${await res.text()}`);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    let inSnapshot = true;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        sub.bytes += value.byteLength;
        buffer += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          if (!block.includes('data: ')) continue;
          sub.events += 1;
          if (inSnapshot && block.includes('"type":"done"')) {
            inSnapshot = false;
            snapshotDone();
          } else if (!inSnapshot && !block.includes('"type":"heartbeat"')) {
            sub.live += 1;
          }
        }
      }
    } catch {
      // Aborted at the end of the run.
    }
  })().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
  return sub;
}

function memory() {
  const m = process.memoryUsage();
  return { rss: m.rss / MB, heap: m.heapUsed / MB };
}

async function main() {
  // The subscribers share one workspace: the caps on subscribers are lifted.
  const caps = { SERVICE_MAX_GRAPH_STREAMS_PER_WORKSPACE: '0', SERVICE_MAX_GRAPH_STREAMS_PER_TENANT: '0', SERVICE_MAX_GRAPH_STREAMS: '0' };
  const config = benchConfig({ fixed: { SERVICE_GRAPH_STREAM_HEARTBEAT_MS: '600000', REDIS_URL: REDIS, ...caps } });
  const rt = await createRuntime(config, createLogger(config.logLevel));
  const service = await serve(rt, createApp(rt).app);
  const base = `${service.url}/api/v1`;
  const created = await fetch(`${base}/workspaces`, {
    method: 'POST',
    headers: { 'x-api-key': BENCH_MASTER_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `bench stream ${Date.now()}` }),
  });
  if (created.status !== 201) throw new Error(`creating the workspace answered ${created.status}: ${await created.text()}`);
  const headers = { 'x-api-key': BENCH_MASTER_KEY, 'x-workspace-id': ((await created.json()) as { id: string }).id };
  let batches = 0;
  let changes = 0;
  rt.events.subscribe((batch) => {
    batches += 1;
    changes += batch.changes.length;
  });

  global.gc?.();
  const before = memory();
  const query = SCOPE === 'types' ? '?entity_types=PERSON,ORGANIZATION' : '';
  const subscribers = Array.from({ length: SUBSCRIBERS }, () => subscribe(`${base}/graph/stream${query}`, headers));
  await Promise.all(subscribers.map((s) => s.done));
  console.log(`${SUBSCRIBERS} subscribers have their snapshots`);
  const connected = memory();
  let peak = connected;
  const sampler = setInterval(() => {
    const now = memory();
    peak = { rss: Math.max(peak.rss, now.rss), heap: Math.max(peak.heap, now.heap) };
  }, 50);

  // The benchmark corpus's documents, cut to about DOCUMENT_BYTES each at a paragraph end.
  const corpus = buildCorpus(DOCUMENTS).map((doc) => {
    const paragraphs: string[] = [];
    for (const p of doc.content.split('\n\n')) {
      if (paragraphs.length && paragraphs.join('\n\n').length + p.length > DOCUMENT_BYTES) break;
      paragraphs.push(p);
    }
    return { ...doc, content: paragraphs.join('\n\n') };
  });
  const started = performance.now();
  for (const doc of corpus) {
    const res = await fetch(`${base}/documents`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(doc),
    });
    if (res.status !== 201 && res.status !== 202) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
  }
  // Larger documents are processed in the background: wait until the queue is empty.
  for (;;) {
    const open = await Promise.all(
      ['pending', 'running'].map(async (status) => {
        const res = await fetch(`${base}/tasks?status=${status}&limit=1`, { headers });
        return ((await res.json()) as { total: number }).total;
      }),
    );
    if (open[0] + open[1] === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const ingested = performance.now();
  await rt.events.flushed();
  // Every subscriber has everything once the counts stop moving for a while.
  let last = -1;
  let stableSince = performance.now();
  for (;;) {
    const total = subscribers.reduce((sum, s) => sum + s.live, 0);
    if (total !== last) {
      last = total;
      stableSince = performance.now();
    } else if (performance.now() - stableSince > 1_000) {
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const drained = stableSince;
  clearInterval(sampler);

  const live = subscribers.map((s) => s.live);
  const total = live.reduce((a, b) => a + b, 0);
  const seconds = (drained - started) / 1000;
  const rows: Array<[string, string]> = [
    ['feed', REDIS ? `Redis (${REDIS})` : 'memory'],
    ['subscribers', `${SUBSCRIBERS} (${SCOPE === 'types' ? 'entity_types=PERSON,ORGANIZATION' : 'whole workspace'})`],
    ['documents ingested', `${DOCUMENTS} of about ${DOCUMENT_BYTES} bytes in ${((ingested - started) / 1000).toFixed(2)} s`],
    ['published', `${batches} batches, ${changes} changes`],
    ['live events per subscriber', `min ${Math.min(...live)}, max ${Math.max(...live)}`],
    ['events delivered', `${total} in ${seconds.toFixed(2)} s = ${Math.round(total / seconds)} events/s`],
    ['last event after the queue drained', `${Math.max(0, Math.round(drained - ingested))} ms`],
    ['bytes per subscriber', `${(subscribers[0].bytes / 1024).toFixed(1)} KiB`],
    ['RSS / heap before subscribers', `${before.rss.toFixed(1)} / ${before.heap.toFixed(1)} MB`],
    ['RSS / heap with subscribers', `${connected.rss.toFixed(1)} / ${connected.heap.toFixed(1)} MB`],
    ['RSS / heap peak during ingest', `${peak.rss.toFixed(1)} / ${peak.heap.toFixed(1)} MB`],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);

  subscribers.forEach((s) => s.controller.abort());
  await service.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
