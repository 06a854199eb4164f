import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const LAUNCHER = path.resolve(__dirname, '../neo4j/neo4j.sh');

export interface BenchNeo4j {
  uri: string;
  /** How the server came to be, for the report. */
  origin: string;
  /** CPU seconds the server process has used so far; null when it runs elsewhere (NEO4J_URI). */
  cpuSeconds(): number | null;
  /** The server's process when it runs here (NEO4J_PID, or started by the bench). */
  pid: number | null;
  stop(): void;
}

/** User + system CPU of a local process from /proc, in seconds. */
export function processCpuSeconds(pid: number, ticksPerSecond: number): number | null {
  try {
    const fields = fs
      .readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /, '')
      .split(' ');
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
  } catch {
    return null;
  }
}

export const clockTicks = () => Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

/**
 * The Neo4j a benchmark runs on: NEO4J_URI when given (NEO4J_PID for its CPU), else a fresh instance from scripts/neo4j/neo4j.sh on a
 * free port with its own data directory, the full JIT and a heap and page cache that hold the corpus
 * (NEO4J_JIT, NEO4J_HEAP and NEO4J_PAGECACHE override them). `planLog`: a file the fresh instance writes the
 * statements it plans to (NEO4J_PLAN_LOG, scripts/neo4j/README.md).
 */
export function startBenchNeo4j(options: { planLog?: string } = {}): BenchNeo4j {
  if (process.env.NEO4J_URI) {
    // NEO4J_PID names the process of a local server, whose CPU is then measured too.
    const pid = Number(process.env.NEO4J_PID ?? NaN);
    const cpuSeconds = Number.isInteger(pid) ? () => processCpuSeconds(pid, clockTicks()) : () => null;
    return {
      uri: process.env.NEO4J_URI,
      origin: 'NEO4J_URI',
      cpuSeconds,
      pid: Number.isInteger(pid) ? pid : null,
      stop: () => undefined,
    };
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kgrag-bench-neo4j-'));
  const settings = {
    NEO4J_JIT: process.env.NEO4J_JIT ?? 'full',
    NEO4J_HEAP: process.env.NEO4J_HEAP ?? '2g',
    NEO4J_PAGECACHE: process.env.NEO4J_PAGECACHE ?? '1g',
  };
  const env = {
    ...process.env,
    ...settings,
    NEO4J_RUN_DIR: path.join(work, 'run'),
    ...(options.planLog ? { NEO4J_PLAN_LOG: path.resolve(options.planLog) } : {}),
  };
  const run = (...args: string[]) =>
    execFileSync('bash', [LAUNCHER, ...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const uri = run('start', '--port', '0', '--data', path.join(work, 'data')).trim().split('\n').pop() as string;
  const pid = Number(fs.readFileSync(path.join(work, 'run', 'neo4j.pid'), 'utf8'));
  const ticks = clockTicks();
  let stopped = false;
  return {
    uri,
    origin: `scripts/neo4j/neo4j.sh (Neo4j 5.26 community, JIT ${settings.NEO4J_JIT}, heap ${settings.NEO4J_HEAP}, page cache ${settings.NEO4J_PAGECACHE})`,
    cpuSeconds: () => processCpuSeconds(pid, ticks),
    pid,
    stop() {
      if (stopped) return;
      stopped = true;
      run('stop');
      fs.rmSync(work, { recursive: true, force: true });
    },
  };
}
