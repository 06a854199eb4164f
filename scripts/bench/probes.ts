/**
 * Probes during the largest accepted input on a busy host: `npm run bench:probes -- [--pdf-mb 50] [--pages 2000]
 * [--burners <cores>] [--interval 50] [--persistent] [--cpu-prof <dir>]`.
 * Makes a PDF of about `--pdf-mb` with `--pages` pages of prose (pdf-lib), starts the service as a process of its
 * own at its defaults (embedded stores; Neo4j from scripts/neo4j/neo4j.sh too with `--persistent`) with the mock
 * provider, starts one busy-looping process per core beside it, uploads the PDF and, until its task ends, asks
 * `/live`, `/ready` and `/health` every `--interval` ms each from a thread of its own. Prints per storage mode and
 * probe: answers, failures (an error, a non-200 or no answer within 10 s), p50 / p99 / max latency, the ingest
 * time and that of the community rebuild the ingest sets off (the probes go on until it has run). `--cpu-prof` writes the service's CPU profile there.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { freePort } from './host';
import { largePdf } from './large-pdf';
import { startBenchNeo4j } from './neo4j-server';
import { benchEnv, EMBEDDED, MOCK_PROVIDERS } from './service';
import { BENCH_MASTER_KEY as KEY } from './workspace';
import { table } from './table';

const ROOT = path.resolve(__dirname, '../..');
const MB = 1024 * 1024;
const PROBES = ['/live', '/ready', '/health'];

/** Asks each probe every `interval` ms from its own event loop until told to stop, then answers with the latencies. */
const SAMPLER = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, paths, interval } = workerData;
let sampling = true;
parentPort.on('message', () => (sampling = false));
const probe = async (path) => {
  const latencies = [];
  let failures = 0;
  while (sampling) {
    const t0 = performance.now();
    const ok = await fetch(url + path, { headers: { Connection: 'close' }, signal: AbortSignal.timeout(10_000) }).then(
      (r) => r.arrayBuffer().then(() => r.status === 200),
      () => false,
    );
    if (ok) latencies.push(performance.now() - t0);
    else failures += 1;
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
  return { path, latencies, failures };
};
Promise.all(paths.map(probe)).then((results) => parentPort.postMessage(results));
`;

interface ProbeResult {
  path: string;
  latencies: number[];
  failures: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One process per core spinning in a loop: the host's cores are already busy when the service starts its work. */
function startBurners(count: number): ChildProcess[] {
  return Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}

interface Service {
  url: string;
  stop(): Promise<void>;
}

/** The service as `npm run dev` runs it, with the bench's key, the mock provider and no rate limits. */
async function startService(env: Record<string, string | undefined>, cpuProf: string | undefined): Promise<Service> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [...(cpuProf ? ['--cpu-prof', '--cpu-prof-dir', cpuProf] : []), '--require', require.resolve('tsx/cjs'), 'src/main.ts'],
    {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: benchEnv({
        inherit: true,
        fixed: {
          ...EMBEDDED,
          QDRANT_URL: undefined,
          REDIS_URL: undefined,
          ...env,
          ...MOCK_PROVIDERS,
          PORT: String(port),
          LOG_LEVEL: 'warn',
        },
      }),
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  for (let waited = 0; ; waited += 250) {
    if (child.exitCode !== null) throw new Error(`the service exited with code ${child.exitCode}`);
    const up = await fetch(`${url}/ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) break;
    if (waited > 120_000) throw new Error('the service did not become ready within 120 s');
    await sleep(250);
  }
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

interface Run {
  mode: string;
  ingestSeconds: number;
  communitiesSeconds: number;
  status: string;
  results: ProbeResult[];
}

async function ingestWhileProbing(service: Service, pdf: Buffer, interval: number): Promise<Omit<Run, 'mode'>> {
  const headers = { 'X-API-Key': KEY };
  const sampler = new Worker(SAMPLER, { eval: true, workerData: { url: service.url, paths: PROBES, interval } });
  const samples = new Promise<ProbeResult[]>((resolve) => sampler.once('message', resolve));
  // Probes already answered before the upload starts: the figures include the quiet start.
  await sleep(1_000);
  const t0 = performance.now();
  const body = new FormData();
  body.append('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'large.pdf');
  const res = await fetch(`${service.url}/api/v1/documents/upload`, { method: 'POST', headers, body });
  const answer = (await res.json()) as { task_id?: string; status?: string; detail?: string };
  let status = answer.status ?? `HTTP ${res.status}: ${answer.detail}`;
  while (answer.task_id && !['completed', 'failed', 'cancelled'].includes(status)) {
    await sleep(1_000);
    const task = await fetch(`${service.url}/api/v1/tasks/${answer.task_id}`, { headers }).then(
      async (r) => (r.ok ? ((await r.json()) as { status: string; error?: string }) : null),
      () => null,
    );
    if (task) status = task.status === 'failed' ? `failed: ${task.error}` : task.status;
  }
  const ingestSeconds = (performance.now() - t0) / 1000;
  // The graph change starts a community rebuild a few seconds later: the probes go on until it has run.
  const ingested = new Date().toISOString();
  while (status === 'completed') {
    await sleep(1_000);
    const state = await fetch(`${service.url}/api/v1/graph/communities/status`, { headers }).then(
      async (r) => (r.ok ? ((await r.json()) as { state: string; last_run: { finished_at: string } | null }) : null),
      () => null,
    );
    if (state?.state === 'idle' && state.last_run && state.last_run.finished_at > ingested) break;
  }
  const communitiesSeconds = (performance.now() - t0) / 1000 - ingestSeconds;
  sampler.postMessage('stop');
  const results = await samples;
  await sampler.terminate();
  return { ingestSeconds, communitiesSeconds, status, results };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'pdf-mb': { type: 'string', default: '50' },
      pages: { type: 'string', default: '2000' },
      burners: { type: 'string', default: String(availableParallelism()) },
      interval: { type: 'string', default: '50' },
      persistent: { type: 'boolean', default: false },
      'cpu-prof': { type: 'string' },
    },
  });
  const interval = Number(values.interval);
  const pages = Number(values.pages);
  // Just under the 50 MB limit of a PDF upload.
  const pdf = await largePdf(Math.min(Number(values['pdf-mb']) * MB, 50 * MB) - 256 * 1024, pages);
  const cpuProf = values['cpu-prof'] ? path.resolve(values['cpu-prof']) : undefined;
  const modes: Array<{ mode: string; env: () => Record<string, string>; stop: () => void }> = [
    { mode: 'embedded', env: () => ({}), stop: () => undefined },
  ];
  if (values.persistent) {
    let neo4j: ReturnType<typeof startBenchNeo4j> | undefined;
    modes.push({
      mode: 'persistent (Neo4j)',
      env: () => ({ NEO4J_URI: (neo4j ??= startBenchNeo4j()).uri }),
      stop: () => neo4j?.stop(),
    });
  }
  const burnerCount = Number(values.burners);
  const runs: Run[] = [];
  for (const { mode, env, stop } of modes) {
    const service = await startService(env(), cpuProf);
    const burners = startBurners(burnerCount);
    try {
      runs.push({ mode, ...(await ingestWhileProbing(service, pdf, interval)) });
    } finally {
      for (const burner of burners) burner.kill('SIGKILL');
      await service.stop();
      stop();
    }
  }
  console.log(
    `PDF: ${(pdf.length / MB).toFixed(1)} MB, ${pages} pages; ${burnerCount} busy-looping processes beside the service ` +
      `(${availableParallelism()} cores); each probe asked every ${interval} ms during the ingest.\n`,
  );
  table(
    runs.flatMap((run) =>
      run.results.map((r) => {
        const sorted = r.latencies.sort((a, b) => a - b);
        return {
          mode: run.mode,
          probe: r.path,
          answers: sorted.length,
          failures: r.failures,
          'p50 ms': percentile(sorted, 50).toFixed(1),
          'p99 ms': percentile(sorted, 99).toFixed(1),
          'max ms': (sorted.at(-1) ?? 0).toFixed(1),
          'ingest s': run.ingestSeconds.toFixed(1),
          'communities s': run.communitiesSeconds.toFixed(1),
          document: run.status,
        };
      }),
    ),
  );
  if (cpuProf) console.log(`\nCPU profiles of the service: ${cpuProf}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
