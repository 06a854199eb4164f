/**
 * Where a Neo4j-mode query spends its time, statement by statement: `NEO4J_URI=bolt://… npx tsx
 * scripts/bench/neo4j-steps.ts [--chunks 10000] [--mode hybrid] [--warmup 60] [--requests 60] [--workspace ID] [--profile] [--neo4j-pid N] [--composed]`.
 * Loads the corpus of scripts/bench/query-corpus.ts (or queries a workspace an earlier run loaded with the same
 * `--chunks`), sends context_only queries one after another over loopback HTTP to the service in this process,
 * and times every Cypher statement the queries run (after the warm-up). Prints p50 / p95 and a table of
 * statements per query and milliseconds per statement, slowest in total first; `--profile` adds the PROFILE of
 * each read statement (db hits, rows, operators and the indexes they use) with the parameters of its last call;
 * `--neo4j-pid` (a local server) adds Neo4j's CPU time per query, which load from other work barely disturbs;
 * `--composed` makes retrieval's reads one after another (src/store/retrieval-reads.ts) instead of joined.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import neo4j from 'neo4j-driver';
import { createApp } from '../../src/app';
import { createLogger } from '../../src/logger';
import { createRuntime } from '../../src/runtime';
import { profileStatement, statementKey, timeStatements } from './neo4j-statements';
import { benchWorkspace } from './workspace';
import { loadCorpus } from './query';
import { buildCorpus } from './query-corpus';
import { benchConfig, serve } from './service';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: '10000' },
    mode: { type: 'string', default: 'hybrid' },
    warmup: { type: 'string', default: '60' },
    requests: { type: 'string', default: '60' },
    workspace: { type: 'string' },
    profile: { type: 'boolean', default: false },
    'neo4j-pid': { type: 'string' },
    composed: { type: 'boolean', default: false },
  },
});

const timer = timeStatements();
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

/** CPU milliseconds the Neo4j process has used (--neo4j-pid), from /proc; 0 without a pid. */
function neo4jCpuMs(): number {
  if (!values['neo4j-pid']) return 0;
  const fields = readFileSync(`/proc/${values['neo4j-pid']}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

function authFromEnv() {
  const { NEO4J_USER: user, NEO4J_PASSWORD: password } = process.env;
  return user || password ? neo4j.auth.basic(user ?? 'neo4j', password ?? '') : undefined;
}

async function main(): Promise<void> {
  if (!process.env.NEO4J_URI) throw new Error('set NEO4J_URI');
  // As `node dist/main.js` runs: stack traces without source maps (tsx turns them on, and the Neo4j driver captures
  // a stack trace for every statement it runs).
  process.setSourceMapsEnabled(false);
  const config = benchConfig({
    inherit: true,
    fixed: { RUST_LOG: 'error', SERVICE_AUTH_ENABLED: 'false' },
  });
  const rt = await createRuntime(config, createLogger('error'));
  // The reads one after another, as the stores that cannot join them make them: the comparison point.
  if (values.composed) delete rt.stores.retrieval;
  const corpus = buildCorpus(Number(values.chunks));
  const scope = values.workspace ? { workspaceId: values.workspace } : await benchWorkspace(rt, `bench-steps-${Date.now().toString(36)}`);
  if (!values.workspace) {
    const started = performance.now();
    await loadCorpus(rt, scope, corpus);
    console.log(
      `loaded ${corpus.chunks.length} chunks into workspace ${scope.workspaceId} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  const service = await serve(rt, createApp(rt).app, { start: false });
  const url = `${service.url}/api/v1/query`;
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
    timer.start();
    const neo4jCpuBefore = neo4jCpuMs();
    const nodeCpuBefore = process.cpuUsage();
    const requests = Number(values.requests);
    const latencies: number[] = [];
    for (let i = 0; i < requests; i++) {
      const started = performance.now();
      await ask(corpus.queries[(i * 7) % corpus.queries.length]);
      latencies.push(performance.now() - started);
    }
    const nodeCpu = process.cpuUsage(nodeCpuBefore);
    const neo4jCpu = neo4jCpuMs() - neo4jCpuBefore;
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(1);
    console.log(`\n${values.mode} context_only, ${corpus.chunks.length} chunks, one client: p50 ${at(0.5)} ms, p95 ${at(0.95)} ms`);
    const perQuery = (ms: number) => (ms / requests).toFixed(1);
    console.log(
      `CPU per query: service ${perQuery((nodeCpu.user + nodeCpu.system) / 1000)} ms, Neo4j ${values['neo4j-pid'] ? `${perQuery(neo4jCpu)} ms` : '- (give --neo4j-pid)'}\n`,
    );
    timer.stop();
    const timings = timer.timings();
    console.log('| per query | ms each | ms per query | statement |');
    console.log('|---:|---:|---:|:---|');
    for (const t of timings) {
      const perQuery = t.count / requests;
      const each = t.ms / t.count;
      console.log(
        `| ${perQuery.toFixed(2)} | ${each.toFixed(2)} | ${(perQuery * each).toFixed(2)} | \`${statementKey(t.text).slice(0, 110)}\` |`,
      );
    }
    if (values.profile) {
      console.log('\nPROFILE of each statement, with the parameters of its last call\n');
      console.log('| db hits | rows | plan (leaves first) | statement |');
      console.log('|---:|---:|:---|:---|');
      const driver = neo4j.driver(process.env.NEO4J_URI, authFromEnv(), { disableLosslessIntegers: true });
      try {
        for (const t of timings) {
          if (/\b(CREATE|MERGE|SET|DELETE)\b/.test(t.text)) continue;
          const p = await profileStatement(driver, t.text, t.params);
          console.log(`| ${p.dbHits} | ${p.rows} | ${p.operators} | \`${statementKey(t.text).slice(0, 70)}\` |`);
        }
      } finally {
        await driver.close();
      }
    }
  } finally {
    await service.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
