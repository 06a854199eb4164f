/**
 * Scale-out benchmark: `npm run bench:scale -- [--instances 1,2,3] [--documents 40] [--seconds 20] [--warmup 5]
 * [--clients 8] [--no-qdrant]`.
 * One Neo4j (startBenchNeo4j: NEO4J_URI, or a fresh one), one Redis (scripts/redis/redis.sh) and, unless
 * --no-qdrant, one Qdrant for the vectors (QDRANT_URL, or scripts/qdrant/qdrant.sh); then for each count of
 * instances: that many service processes (scripts/bench/instance.ts) behind HAProxy (scripts/haproxy/haproxy.sh,
 * round robin), a fresh workspace, `--documents` documents of the ingest bench's corpus queued through the balancer
 * at once (mock provider, no simulated latency: the figure is CPU), then hybrid `context_only` queries from
 * `--clients` clients in this process for `--warmup` + `--seconds` seconds, a new question every time.
 * Prints, per count: documents/min and queries/s through the balancer, the CPU each instance used per document and
 * per query (from /proc/<pid>/stat, before and after), the CPU of Neo4j, Qdrant, Redis, HAProxy and of this load
 * process per request, and the load average. Requests/s one core could serve = 1000 / CPU ms per request.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, loadAverage } from './host';
import { buildCorpus } from './ingest';
import { clockTicks, processCpuSeconds, startBenchNeo4j } from './neo4j-server';
import { benchEnv } from './service';
import { table } from './table';
import { BENCH_MASTER_KEY } from './workspace';

const ROOT = path.resolve(__dirname, '../..');
const { values: args } = parseArgs({
  options: {
    instances: { type: 'string', default: '1,2,3' },
    documents: { type: 'string', default: '40' },
    seconds: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '5' },
    clients: { type: 'string', default: '8' },
    'no-qdrant': { type: 'boolean', default: false },
  },
});
const COUNTS = args.instances.split(',').map(Number);
const DOCUMENTS = Number(args.documents);
const CLIENTS = Number(args.clients);
const TICKS = clockTicks();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kgrag-bench-scale-'));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `bash scripts/<script> <args>` with its run files under this bench's folder: the last line it printed. */
function launcher(script: string, runVar: string, ...launcherArgs: string[]): string {
  const env = { ...process.env, [runVar]: path.join(work, path.dirname(script)) };
  const out = execFileSync('bash', [path.join(ROOT, 'scripts', script), ...launcherArgs], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return out.trim().split('\n').pop() ?? '';
}

const pidIn = (dir: string, file: string) => Number(fs.readFileSync(path.join(work, dir, file), 'utf8'));

interface Instance {
  child: ChildProcess;
  url: string;
}

async function startInstance(index: number, settings: Record<string, string | undefined>): Promise<Instance> {
  const port = await freePort();
  const env = Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/instance.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: '/nonexistent', ...env, PORT: String(port), SERVICE_INSTANCE_ID: `scale-${index}` },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`instance ${index} exited with ${child.exitCode}`);
    if (
      await fetch(`${url}/ready`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { child, url };
    if (Date.now() > deadline) throw new Error(`instance ${index} was not ready within 120 s`);
    await sleep(200);
  }
}

async function stopInstance(instance: Instance): Promise<void> {
  if (instance.child.exitCode !== null) return;
  const exited = new Promise((resolve) => instance.child.once('exit', resolve));
  instance.child.kill('SIGTERM');
  await exited;
}

/** The master key, and the workspace acted in (none to create one). */
const headers = (workspace: string): Record<string, string> => ({
  'X-API-Key': BENCH_MASTER_KEY,
  'Content-Type': 'application/json',
  ...(workspace ? { 'X-Workspace-ID': workspace } : {}),
});

async function post(url: string, workspace: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: headers(workspace), body: JSON.stringify(body) });
}

/** CPU seconds of each named process, and of this one. */
function cpuOf(pids: Record<string, number | null>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, pid] of Object.entries(pids)) out[name] = pid ? (processCpuSeconds(pid, TICKS) ?? NaN) : NaN;
  const own = process.cpuUsage();
  out.load = (own.user + own.system) / 1e6;
  return out;
}

const msPer = (before: Record<string, number>, after: Record<string, number>, name: string, n: number) =>
  ((after[name] - before[name]) * 1000) / Math.max(1, n);

const PEOPLE = ['Ada Lovelace', 'Alan Turing', 'Grace Hopper', 'Claude Shannon', 'Barbara Liskov', 'Donald Knuth'];
const TOPICS = ['compilers', 'cryptography', 'databases', 'networks', 'operating systems', 'graphics', 'verification'];
let asked = 0;
/** A question not asked before (no answer or keyword extraction comes from a cache). */
const question = () => {
  const i = asked++;
  return `What did ${PEOPLE[i % PEOPLE.length]} contribute to ${TOPICS[Math.floor(i / PEOPLE.length) % TOPICS.length]} (${i})?`;
};

async function ingest(balancer: string, workspace: string): Promise<{ ms: number; failed: number }> {
  const started = Date.now();
  for (const doc of buildCorpus(220).slice(0, DOCUMENTS)) {
    const res = await post(`${balancer}/api/v1/documents`, workspace, { ...doc, async_processing: true });
    if (res.status !== 202) throw new Error(`queuing a document answered ${res.status}: ${await res.text()}`);
  }
  const count = async (status: string) => {
    const res = await fetch(`${balancer}/api/v1/tasks?status=${status}&limit=1`, { headers: headers(workspace) });
    return ((await res.json()) as { total: number }).total;
  };
  for (;;) {
    const [pending, running] = await Promise.all([count('pending'), count('running')]);
    if (pending + running === 0) break;
    await sleep(200);
  }
  return { ms: Date.now() - started, failed: await count('failed') };
}

/** `CLIENTS` clients asking in a loop until `until`: answers by status. */
async function queries(balancer: string, workspace: string, until: number): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (Date.now() < until) {
        const res = await post(`${balancer}/api/v1/query`, workspace, { query: question(), mode: 'hybrid', context_only: true });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

async function measure(count: number, env: Record<string, string | undefined>, shared: Record<string, number | null>) {
  const instances: Instance[] = [];
  try {
    for (let i = 0; i < count; i++) instances.push(await startInstance(i + 1, env));
    const balancer = launcher('haproxy/haproxy.sh', 'HAPROXY_RUN_DIR', 'start', ...instances.flatMap((s) => ['--server', s.url.slice(7)]));
    const pids: Record<string, number | null> = { ...shared, haproxy: pidIn('haproxy', 'haproxy.pid') };
    instances.forEach((s, i) => (pids[`instance${i + 1}`] = s.child.pid ?? null));
    const created = await post(`${balancer}/api/v1/workspaces`, '', { name: `scale ${count}` });
    const workspace = ((await created.json()) as { id: string }).id;

    const beforeIngest = cpuOf(pids);
    const ingested = await ingest(balancer, workspace);
    const afterIngest = cpuOf(pids);
    const loadAfterIngest = loadAverage();

    await queries(balancer, workspace, Date.now() + Number(args.warmup) * 1000);
    const beforeQueries = cpuOf(pids);
    const started = Date.now();
    const statuses = await queries(balancer, workspace, started + Number(args.seconds) * 1000);
    const seconds = (Date.now() - started) / 1000;
    const afterQueries = cpuOf(pids);
    const answered = statuses.get(200) ?? 0;
    const instanceNames = instances.map((_, i) => `instance${i + 1}`);
    const perInstance = (before: Record<string, number>, after: Record<string, number>, n: number) =>
      instanceNames.map((name) => msPer(before, after, name, n).toFixed(1)).join(' + ');
    const sum = (before: Record<string, number>, after: Record<string, number>, n: number) =>
      instanceNames.reduce((total, name) => total + msPer(before, after, name, n), 0);
    const others = (before: Record<string, number>, after: Record<string, number>, n: number) =>
      ['neo4j', 'qdrant', 'redis', 'haproxy', 'load']
        .filter((name) => Number.isFinite(after[name]))
        .map((name) => `${name} ${msPer(before, after, name, n).toFixed(1)}`)
        .join(', ');
    return {
      ingest: {
        instances: count,
        'documents/min': ((DOCUMENTS / ingested.ms) * 60_000).toFixed(1),
        failed: ingested.failed,
        'service CPU ms/doc (per instance)': `${sum(beforeIngest, afterIngest, DOCUMENTS).toFixed(0)} (${perInstance(beforeIngest, afterIngest, DOCUMENTS)})`,
        'other CPU ms/doc': others(beforeIngest, afterIngest, DOCUMENTS),
        'load average after': loadAfterIngest,
      },
      query: {
        instances: count,
        'hybrid queries/s': (answered / seconds).toFixed(1),
        'other answers':
          [...statuses]
            .filter(([status]) => status !== 200)
            .map(([status, n]) => `${n}x ${status}`)
            .join(', ') || '0',
        'service CPU ms/query (per instance)': `${sum(beforeQueries, afterQueries, answered).toFixed(1)} (${perInstance(beforeQueries, afterQueries, answered)})`,
        'other CPU ms/query': others(beforeQueries, afterQueries, answered),
        'load average after': loadAverage(),
      },
    };
  } finally {
    for (const instance of instances) await stopInstance(instance);
    launcher('haproxy/haproxy.sh', 'HAPROXY_RUN_DIR', 'stop');
  }
}

async function main(): Promise<void> {
  const neo4j = startBenchNeo4j();
  const started: string[] = [];
  try {
    const redisUrl = launcher('redis/redis.sh', 'REDIS_RUN_DIR', 'start');
    started.push('redis/redis.sh:REDIS_RUN_DIR');
    let qdrantUrl: string | undefined;
    let qdrantPid: number | null = null;
    if (!args['no-qdrant']) {
      qdrantUrl = process.env.QDRANT_URL;
      if (!qdrantUrl) {
        qdrantUrl = launcher('qdrant/qdrant.sh', 'QDRANT_RUN_DIR', 'start');
        started.push('qdrant/qdrant.sh:QDRANT_RUN_DIR');
        qdrantPid = pidIn('qdrant', 'qdrant.pid');
      }
    }
    const env = benchEnv({
      fixed: { NEO4J_URI: neo4j.uri, REDIS_URL: redisUrl, QDRANT_URL: qdrantUrl },
    });
    const shared = { neo4j: neo4j.pid, qdrant: qdrantPid, redis: pidIn('redis', 'redis.pid') };
    console.log(
      `scale-out on ${os.cpus().length} cores: ${neo4j.origin}; Redis; vectors in ${qdrantUrl ? `Qdrant (${qdrantUrl})` : "Neo4j's vector indexes"}; ` +
        `HAProxy round robin; mock provider without latency; ${DOCUMENTS} documents of ${buildCorpus(220)[0].content.length} characters per count; ` +
        `${CLIENTS} query clients, ${args.warmup} s warm-up then ${args.seconds} s; load average before: ${loadAverage()}\n`,
    );
    const results = [];
    for (const count of COUNTS) {
      results.push(await measure(count, env, shared));
      console.error(`${count} instance(s) measured; load average ${loadAverage()}`);
    }
    console.log('ingest through the balancer (documents queued at once):');
    table(results.map((r) => r.ingest));
    console.log('\nhybrid context_only queries through the balancer:');
    table(results.map((r) => r.query));
  } finally {
    for (const entry of started.reverse()) {
      const [script, runVar] = entry.split(':');
      launcher(script, runVar, 'stop');
    }
    neo4j.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
