/**
 * Pipeline monitoring benchmark: `npx tsx scripts/bench/pipeline-status.ts [--tasks 1000,10000] [--requests 15]`.
 * Boots the service in-process (embedded stores, or Neo4j when NEO4J_URI is set), writes a workspace's history of
 * finished tasks through the TaskStore port (one in fifty failed), then times what monitoring clients poll, over
 * real HTTP: `GET /pipeline/queue-metrics` and `GET /pipeline/status`. Prints the median and slowest of the timed
 * requests (after three untimed ones) per history size.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createApp } from '../../src/app';
import type { Scope, TaskRecord } from '../../src/domain/types';
import { createLogger } from '../../src/logger';
import { createRuntime, type Runtime } from '../../src/runtime';
import { table } from './table';
import { BENCH_MASTER_KEY, benchWorkspace } from './workspace';
import { benchConfig, MOCK_PROVIDERS, serve } from './service';

const { values } = parseArgs({
  options: {
    tasks: { type: 'string', default: '1000,10000' },
    requests: { type: 'string', default: '15' },
  },
});
const WARMUP = 3;
const BATCH = 500;

/** The n-th finished task of a history that started a day ago, one task a second. */
function finishedTask(n: number, start: number): TaskRecord {
  const created = new Date(start + n * 1000).toISOString();
  const finished = new Date(start + n * 1000 + 800).toISOString();
  const failed = n % 50 === 0;
  return {
    id: `task-${String(n).padStart(7, '0')}`,
    type: 'document_processing',
    status: failed ? 'failed' : 'completed',
    progress: 100,
    document_id: `doc-${n}`,
    mode: 'full',
    stages: { chunking: 'completed', extraction: 'completed', merging: 'completed', embedding: 'completed' },
    stats: { chunks_processed: 3, chunks_total: 3, entities_found: 12, relationships_found: 15 },
    error: failed ? 'the model answered 503' : null,
    retry_of: null,
    created_at: created,
    started_at: created,
    updated_at: finished,
    finished_at: finished,
    lease_owner: null,
    lease_expires_at: null,
    attempts: 1,
    not_before: null,
  };
}

async function writeHistory(rt: Runtime, scope: Scope, size: number): Promise<void> {
  const start = Date.now() - 86_400_000;
  for (let n = 0; n < size; n += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, size - n) }, (_, i) => finishedTask(n + i, start));
    await Promise.all(batch.map((task) => rt.stores.tasks.insert(scope, task)));
  }
}

async function timeGet(url: string, workspace: string, requests: number): Promise<{ p50: number; max: number }> {
  const headers = { 'X-API-Key': BENCH_MASTER_KEY, 'X-Workspace-ID': workspace };
  const once = async () => {
    const started = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    return performance.now() - started;
  };
  for (let i = 0; i < WARMUP; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < requests; i++) times.push(await once());
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor((times.length - 1) / 2)], max: times[times.length - 1] };
}

async function main(): Promise<void> {
  const config = benchConfig({
    inherit: true,
    fixed: { DATABASE_URL: undefined, ...MOCK_PROVIDERS },
  });
  const rt = await createRuntime(config, createLogger(config.logLevel));
  const service = await serve(rt, createApp(rt).app, { start: false });
  const base = `${service.url}/api/v1`;
  const rows: Array<Record<string, string | number>> = [];
  try {
    for (const size of values.tasks.split(',').map(Number)) {
      const scope = await benchWorkspace(rt, `bench-pipeline-${size}-${Date.now().toString(36)}`);
      const written = performance.now();
      await writeHistory(rt, scope, size);
      const writeSeconds = (performance.now() - written) / 1000;
      try {
        for (const path of ['/pipeline/queue-metrics', '/pipeline/status']) {
          const { p50, max } = await timeGet(`${base}${path}`, scope.workspaceId, Number(values.requests));
          rows.push({
            store: process.env.NEO4J_URI ? 'neo4j' : 'memory',
            'finished tasks': size,
            request: `GET ${path}`,
            'p50 ms': p50.toFixed(1),
            'max ms': max.toFixed(1),
            'history written in s': writeSeconds.toFixed(1),
          });
        }
      } finally {
        await rt.stores.dropWorkspace(scope);
      }
    }
  } finally {
    await service.close();
  }
  console.log(`\nmonitoring requests over HTTP, ${values.requests} timed after ${WARMUP} untimed, one client\n`);
  table(rows);
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
