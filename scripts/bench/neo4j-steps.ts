/**
 * Where a Neo4j-mode query spends its time, statement by statement: `NEO4J_URI=bolt://… npx tsx
 * scripts/bench/neo4j-steps.ts [--chunks 10000] [--mode hybrid] [--warmup 60] [--requests 60] [--workspace ID]`.
 * Loads the corpus of scripts/bench/query-corpus.ts (or queries a workspace an earlier run loaded with the same
 * `--chunks`), sends context_only queries one after another over loopback HTTP to the service in this process,
 * and times every Cypher statement the queries run (after the warm-up). Prints p50 / p95 and a table of
 * statements per query and milliseconds per statement, slowest in total first.
 */
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config/load';
import { createLogger } from '../../src/logger';
import { createRuntime } from '../../src/runtime';
import { CypherTransaction } from '../../src/store/neo4j/client';
import { benchWorkspace } from './workspace';
import { loadCorpus } from './query';
import { buildCorpus } from './query-corpus';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: '10000' },
    mode: { type: 'string', default: 'hybrid' },
    warmup: { type: 'string', default: '60' },
    requests: { type: 'string', default: '60' },
    workspace: { type: 'string' },
  },
});

const timings = new Map<string, { count: number; ms: number }>();
let timing = false;
const run = CypherTransaction.prototype.runText;
CypherTransaction.prototype.runText = async function (text: string, params: Record<string, unknown>) {
  const started = performance.now();
  try {
    return await run.call(this, text, params);
  } finally {
    if (timing) {
      const key = text
        .split('\n')
        .filter((line) => !line.trim().startsWith('//'))
        .join(' ')
        .slice(0, 90);
      const t = timings.get(key) ?? { count: 0, ms: 0 };
      t.count += 1;
      t.ms += performance.now() - started;
      timings.set(key, t);
    }
  }
};

async function main(): Promise<void> {
  if (!process.env.NEO4J_URI) throw new Error('set NEO4J_URI');
  const env = {
    SERVICE_LLM_PROVIDER: 'mock',
    // Resolution has its own benches (resolution.ts, resolution-scale.ts); these figures are taken without it.
    SERVICE_ENTITY_RESOLUTION: 'false',
    SERVICE_EMBEDDING_PROVIDER: 'mock',
    ...process.env,
    HOST: '127.0.0.1',
    PORT: '0',
    RUST_LOG: 'error',
    SERVICE_AUTH_ENABLED: 'false',
    SERVICE_RATE_LIMIT_QUERY: '0',
  };
  const config = loadConfig(env, { cwd: process.cwd() });
  const rt = await createRuntime(config, createLogger('error'));
  const corpus = buildCorpus(Number(values.chunks));
  const scope = values.workspace ? { workspaceId: values.workspace } : await benchWorkspace(rt, `bench-steps-${Date.now().toString(36)}`);
  if (!values.workspace) await loadCorpus(rt, scope, corpus);
  const { app } = createApp(rt);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/query`;
  const ask = async (query: string) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-workspace-id': scope.workspaceId },
      body: JSON.stringify({ query, mode: values.mode, context_only: true }),
    });
    if (res.status !== 200) throw new Error(`query answered ${res.status}: ${await res.text()}`);
    await res.json();
  };
  try {
    for (let i = 0; i < Number(values.warmup); i++) await ask(corpus.queries[i % corpus.queries.length]);
    timing = true;
    const requests = Number(values.requests);
    const latencies: number[] = [];
    for (let i = 0; i < requests; i++) {
      const started = performance.now();
      await ask(corpus.queries[(i * 7) % corpus.queries.length]);
      latencies.push(performance.now() - started);
    }
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(1);
    console.log(`\n${values.mode} context_only, ${corpus.chunks.length} chunks, one client: p50 ${at(0.5)} ms, p95 ${at(0.95)} ms\n`);
    console.log('| per query | ms each | statement |');
    console.log('|---:|---:|:---|');
    for (const [text, t] of [...timings].sort((a, b) => b[1].ms - a[1].ms)) {
      console.log(`| ${(t.count / requests).toFixed(2)} | ${(t.ms / t.count).toFixed(2)} | \`${text}\` |`);
    }
  } finally {
    server.closeAllConnections();
    server.close();
    await rt.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
