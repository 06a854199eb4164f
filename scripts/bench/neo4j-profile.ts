import { execFile, spawn } from 'node:child_process';
import readline from 'node:readline';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Where Neo4j's CPU goes during a benchmark: a Java Flight Recorder recording of the local server (`jcmd <pid>
 * JFR.start`, the JDK's `profile` settings), its execution samples read back with the JDK's `jfr` tool and each
 * put in the first bin whose frames it holds. The bins follow what a statement does on the server: planning it,
 * executing it (index seeks, record reads and writes), the vector index's Lucene searches, other Lucene work (index
 * writes, full-text), cosine computed in Cypher, the query router's parsing, committing, and the Bolt and Netty
 * layers. Every sample of a statement's thread also holds Bolt's frames below the statement's own, hence the order
 * of the bins.
 */

const BINS: Array<[string, RegExp]> = [
  ['cosine computed in Cypher (vector.similarity.*)', /CypherFunctions\.vectorSimilarity/],
  ['Lucene: vector index searches', /lucene\/util\/hnsw\/HnswGraphSearcher|KnnVectorQuery|HnswVectorsReader\.search/],
  ['Lucene: other (index writes, merges, full-text)', /org\/apache\/lucene\//],
  // Cypher's compile path (parsing, planning, building the runtime's plan), entered only when no plan is cached
  // or the cached one is stale. Not the compiler's packages: a running statement's stack holds
  // CypherCurrentCompiler$CypherExecutableQuery.innerExecute, and those samples are execution.
  ['planning statements (plan cache misses and replans)', /cypher\/internal\/ExecutionEngine\.getOrCompile/],
  // The query router parses a statement to learn its target database when its own cache does not hold it.
  ['parsing statements in the query router (its cache misses)', /router\/impl\/query\/QueryProcessorImpl\.prepareQueryForCache/],
  ['committing transactions', /KernelTransactionImplementation\.commit|TransactionImpl\.commit/],
  [
    'executing statements (index seeks, record reads and writes)',
    /cypher\/internal\/runtime\/|org\/neo4j\/(kernel\/impl|storageengine|index\/internal|internal\/recordstorage)\//,
  ],
  ['Bolt and Netty (messages, results sent)', /org\/neo4j\/bolt\/|io\/netty\//],
];

export interface Neo4jProfile {
  /** Execution samples taken between `from` and `to` (epoch ms). */
  samples: number;
  /** [bin, samples], largest first; samples in no bin are `other`. */
  bins: Array<[string, number]>;
  file: string;
}

const run = promisify(execFile);

/**
 * A recording of the Neo4j process `pid`, written under `dir`. The JDK's tools run as child processes, awaited:
 * the service under test shares this process's event loop.
 */
export function recordNeo4j(pid: number, dir: string) {
  const name = `kgrag-bench-${process.pid}`;
  const jcmd = (...args: string[]) => run('jcmd', [String(pid), ...args]);
  return {
    async start(): Promise<void> {
      // The planner's stacks are deeper than the default 64 frames, which keeps the innermost ones and loses where
      // they were called from; settable only before the recorder first starts in the process.
      await jcmd('JFR.configure', 'stackdepth=1024').catch(() => undefined);
      await jcmd('JFR.start', `name=${name}`, 'settings=profile');
    },
    /** Stops the recording and sorts the samples taken between `from` and `to` (epoch ms: the timed part of the run). */
    async stop(from: number, to: number): Promise<Neo4jProfile> {
      fs.mkdirSync(dir, { recursive: true });
      const file = path.resolve(dir, `neo4j-${new Date().toISOString().replace(/[:.]/g, '-')}.jfr`);
      await jcmd('JFR.dump', `name=${name}`, `filename=${file}`);
      await jcmd('JFR.stop', `name=${name}`);
      return { ...(await sortSamples(file, from, to)), file };
    },
  };
}

/**
 * The samples of `file` taken between `from` and `to`, binned. Read as `jfr print` text, line by line: whole stacks
 * (the tool shows 5 frames of each by default, too few to tell planning from execution) of a run of a minute or
 * more are larger than a string can hold. Sample times are printed as local times of day.
 */
async function sortSamples(file: string, from: number, to: number): Promise<Omit<Neo4jProfile, 'file'>> {
  const child = spawn('jfr', ['print', '--stack-depth', '1024', '--events', 'jdk.ExecutionSample', file], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const day = new Date(from);
  const counts = new Map<string, number>();
  let samples = 0;
  let at = NaN;
  let frames: string[] = [];
  for await (const line of readline.createInterface({ input: child.stdout, crlfDelay: Infinity })) {
    const time = /^\s+startTime = (\d+):(\d+):(\d+)\.(\d+)/.exec(line);
    if (time) {
      const [h, m, sec, ms] = time.slice(1).map(Number);
      at = new Date(day.getFullYear(), day.getMonth(), day.getDate(), h, m, sec, ms).getTime();
    } else if (line.startsWith('    ')) {
      // `package.Class.method(…) line: n` as `package/Class.method`, the form the bins are written in.
      const name = line.trim().replace(/\(.*$/, '');
      const dot = name.lastIndexOf('.');
      frames.push(name.slice(0, dot).replace(/\./g, '/') + name.slice(dot));
    } else if (line === '}') {
      if (at >= from && at <= to) {
        samples++;
        const bin = BINS.find(([, pattern]) => frames.some((frame) => pattern.test(frame)))?.[0] ?? 'other';
        counts.set(bin, (counts.get(bin) ?? 0) + 1);
      }
      [at, frames] = [NaN, []];
    }
  }
  return { samples, bins: [...counts].sort((a, b) => b[1] - a[1]) };
}

/** Rows for a benchmark's table. */
export function profileRows(profile: Neo4jProfile): Array<[string, string]> {
  const share = (n: number) => `${((100 * n) / Math.max(1, profile.samples)).toFixed(1)} %`;
  return [
    ['Neo4j execution samples during the timed run (Java Flight Recorder)', `${profile.samples} (${profile.file})`],
    ...profile.bins.map(([bin, n]): [string, string] => [`  ${bin}`, `${share(n)} (${n})`]),
  ];
}

/** What Neo4j planned between `from` and `to` (epoch ms), from its plan log (NEO4J_PLAN_LOG, PlanLog.java). */
export interface PlanLogSummary {
  /** Logical plans made because none was cached for the statement and its parameter shape: the planner proper. */
  firstPlans: number;
  /** Logical plans made again because the cached one was stale (the counts it was made from have drifted). */
  replans: number;
  /** Statements by executable-cache misses and replans (each one compiled again), most first. */
  top: Array<{ text: string; first: number; stale: number }>;
  file: string;
}

/** Our statements as sent, without the replan prefix and the comments that open each file, on one line. */
function statementHead(text: string): string {
  return text
    .replace(/^CYPHER replan=skip\s*/, '')
    .replace(/\/\/.*?(?= (UNWIND|MATCH|OPTIONAL|MERGE|CREATE|CALL|WITH|RETURN)\b)/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 90);
}

export async function readPlanLog(file: string, from: number, to: number): Promise<PlanLogSummary> {
  const summary: PlanLogSummary = { firstPlans: 0, replans: 0, top: [], file };
  const byText = new Map<string, { text: string; first: number; stale: number }>();
  const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    const [at, cache, event, , , statement] = line.split('\t');
    if (Number(at) < from || Number(at) > to) continue;
    if (cache === 'logical_plan') {
      if (event === 'miss') summary.firstPlans++;
      else summary.replans++;
      continue;
    }
    const text = statementHead(statement ?? '');
    const entry = byText.get(text) ?? { text, first: 0, stale: 0 };
    if (event === 'miss') entry.first++;
    else entry.stale++;
    byText.set(text, entry);
  }
  summary.top = [...byText.values()].sort((a, b) => b.first + b.stale - (a.first + a.stale)).slice(0, 8);
  return summary;
}

/** Rows for a benchmark's table. */
export function planLogRows(plans: PlanLogSummary): Array<[string, string]> {
  return [
    [
      'statements planned during the timed run (plan log)',
      `${plans.firstPlans + plans.replans}: ${plans.firstPlans} first plans of a statement and parameter shape, ${plans.replans} stale plans made again (${plans.file})`,
    ],
    ...plans.top.map((t): [string, string] => [`  ${t.text}`, `${t.first} first, ${t.stale} stale`]),
  ];
}
