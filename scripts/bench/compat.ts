/**
 * Compatibility-layer benchmark: `npx tsx scripts/bench/compat.ts [--chunks 2000] [--requests 200] [--warmup 20]`.
 * Builds the synthetic knowledge base of query-corpus.ts, boots the service in-process (mock provider, no
 * latency), then answers the same hybrid questions, one at a time over loopback HTTP, in turn through POST /api/v1/query,
 * the local-runtime API and the OpenAI-compatible API, streamed and not. Prints p50/p95 of the whole answer and,
 * for streams, of the first content fragment: what the compatibility layer adds on top of a query.
 */
import { parseArgs } from 'node:util';
import { BENCH_MASTER_KEY, benchWorkspace } from './workspace';
import { createApp } from '../../src/app';
import { createLogger } from '../../src/logger';
import { createRuntime } from '../../src/runtime';
import { loadCorpus } from './query';
import { buildCorpus } from './query-corpus';
import { benchConfig, serve } from './service';

interface Path {
  name: string;
  path: string;
  body: (question: string) => unknown;
  /** Whether a piece of the streamed body holds answer text. */
  isContent?: (text: string) => boolean;
}

const PATHS: Path[] = [
  { name: 'POST /api/v1/query', path: '/api/v1/query', body: (q) => ({ query: q, mode: 'hybrid' }) },
  {
    name: 'POST /api/chat (stream false)',
    path: '/api/chat',
    body: (q) => ({ model: 'kgrag:hybrid', messages: [{ role: 'user', content: q }], stream: false }),
  },
  {
    name: 'POST /api/chat (NDJSON)',
    path: '/api/chat',
    body: (q) => ({ model: 'kgrag:hybrid', messages: [{ role: 'user', content: q }] }),
    isContent: (t) => t.includes('"done":false'),
  },
  {
    name: 'POST /v1/chat/completions',
    path: '/v1/chat/completions',
    body: (q) => ({ model: 'kgrag:hybrid', messages: [{ role: 'user', content: q }] }),
  },
  {
    name: 'POST /v1/chat/completions (SSE)',
    path: '/v1/chat/completions',
    body: (q) => ({ model: 'kgrag:hybrid', messages: [{ role: 'user', content: q }], stream: true }),
    isContent: (t) => /"content":"[^"]/.test(t),
  },
];

async function timeOne(url: string, workspace: string, p: Path, question: string): Promise<{ total: number; first: number | null }> {
  const started = performance.now();
  const res = await fetch(url + p.path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Workspace-ID': workspace, 'X-API-Key': BENCH_MASTER_KEY },
    body: JSON.stringify(p.body(question)),
  });
  if (res.status !== 200) throw new Error(`${p.name} answered ${res.status}: ${await res.text()}`);
  let first: number | null = null;
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (first === null && p.isContent?.(decoder.decode(value, { stream: true }))) first = performance.now() - started;
  }
  return { total: performance.now() - started, first };
}

const pct = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      chunks: { type: 'string', default: '2000' },
      requests: { type: 'string', default: '200' },
      warmup: { type: 'string', default: '20' },
    },
  });
  const chunks = Number(values.chunks);
  const requests = Number(values.requests);
  const warmup = Number(values.warmup);
  const config = benchConfig({ fixed: { RUST_LOG: 'warn' } });
  const rt = await createRuntime(config, createLogger(config.logLevel));
  const corpus = buildCorpus(chunks);
  const scope = await benchWorkspace(rt, 'bench compat');
  await loadCorpus(rt, scope, corpus);
  const service = await serve(rt, createApp(rt).app, { start: false });
  const { url } = service;
  console.log(`hybrid answers, mock provider, ${chunks} chunks, ${requests} requests per path after ${warmup} warm-up, one client\n`);
  console.log('| path | p50 ms | p95 ms | first fragment p50 ms |');
  console.log('|---|---|---|---|');
  const question = (i: number) => corpus.queries[i % corpus.queries.length];
  for (let i = 0; i < warmup; i++) for (const p of PATHS) await timeOne(url, scope.workspaceId, p, question(i));
  // Round-robin over the paths, so that load on the machine falls on each alike.
  const totals = PATHS.map(() => [] as number[]);
  const firsts = PATHS.map(() => [] as number[]);
  for (let i = 0; i < requests; i++) {
    for (const [k, p] of PATHS.entries()) {
      const t = await timeOne(url, scope.workspaceId, p, question(i));
      totals[k].push(t.total);
      if (t.first !== null) firsts[k].push(t.first);
    }
  }
  for (const [k, p] of PATHS.entries()) {
    const first = firsts[k].length ? pct(firsts[k], 0.5).toFixed(1) : '-';
    console.log(`| ${p.name} | ${pct(totals[k], 0.5).toFixed(1)} | ${pct(totals[k], 0.95).toFixed(1)} | ${first} |`);
  }
  await service.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
