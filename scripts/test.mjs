#!/usr/bin/env node
// `npm test`: the whole suite in both storage modes.
//
//   1. embedded: plain jest, in-memory stores (Neo4j-only suites excluded by jest.config.js);
//   2. persistent: a real Neo4j (TEST_NEO4J_URI, or one started by scripts/neo4j/neo4j.sh on a free port with a
//      fresh data directory), Redis (TEST_REDIS_URL, or scripts/redis/redis.sh) and Qdrant (TEST_QDRANT_URL /
//      QDRANT_URL, or scripts/qdrant/qdrant.sh with its storage in a temporary directory): first the Neo4j and
//      Qdrant store contract suites alone on the fresh databases (claims look at every workspace), then the API
//      and integration suites on Neo4j (vectors in Neo4j), which pick persistent mode up through
//      test/helpers/app.ts, then an API pass with Neo4j for the graph and Qdrant for the vectors.
//      With patterns of your own, one persistent run with all three servers.
//
// Options: --embedded-only skips the persistent pass (and says so); other arguments go to jest.
// A server that cannot be started fails the run (persistent mode did not run). The last line of output is
// `N passed, M failed`, summed over every jest run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const embeddedOnly = args.includes('--embedded-only');
const jestArgs = args.filter((a) => a !== '--embedded-only');
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

/** Runs jest once; adds its counts (a suite that failed to run counts as one failure). */
function jest(label, env, extra) {
  if (interrupted) return;
  banner(label);
  const outputFile = path.join(work, `${label.replace(/\W+/g, '-')}.json`);
  const run = spawnSync('npx', ['jest', '--ci', '--json', `--outputFile=${outputFile}`, ...extra, ...jestArgs], {
    cwd: ROOT,
    stdio: 'inherit',
    env,
  });
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

/** The API suites that run a second time with the vectors in Qdrant (ingest, query in every mode, deletion). */
const QDRANT_API_SUITES = ['/test/api/qdrant-vectors\\.test\\.ts$', '/test/api/query\\.test\\.ts$', '/test/api/documents\\.test\\.ts$'];
const baseEnv = { ...process.env };
delete baseEnv.TEST_NEO4J_URI;
delete baseEnv.TEST_REDIS_URL;
delete baseEnv.TEST_QDRANT_URL;
delete baseEnv.QDRANT_URL;

jest('embedded mode (in-memory stores)', baseEnv, []);

if (embeddedOnly) {
  notes.push('persistent mode (Neo4j) did not run: --embedded-only');
} else if (!interrupted) {
  const started = [];
  const serverEnv = {
    ...process.env,
    NEO4J_RUN_DIR: path.join(work, 'neo4j-run'),
    REDIS_RUN_DIR: path.join(work, 'redis-run'),
    QDRANT_RUN_DIR: path.join(work, 'qdrant-run'),
  };
  let neo4jUri = process.env.TEST_NEO4J_URI || '';
  let redisUrl = process.env.TEST_REDIS_URL || '';
  let qdrantUrl = process.env.TEST_QDRANT_URL || process.env.QDRANT_URL || '';
  if (!neo4jUri) {
    const neo4j = startServer('neo4j/neo4j.sh', ['--port', '0', '--data', path.join(work, 'neo4j-data')], serverEnv);
    if (neo4j.url) {
      neo4jUri = neo4j.url;
      started.push('neo4j/neo4j.sh');
    } else {
      problems.push(`Neo4j could not be started: ${neo4j.reason}`);
    }
  }
  if (neo4jUri && !redisUrl) {
    const redis = startServer('redis/redis.sh', [], serverEnv);
    if (redis.url) {
      redisUrl = redis.url;
      started.push('redis/redis.sh');
    } else {
      problems.push(`Redis could not be started: ${redis.reason}`);
    }
  }
  if (neo4jUri && redisUrl && !qdrantUrl) {
    const qdrant = startServer('qdrant/qdrant.sh', [], serverEnv);
    if (qdrant.url) {
      qdrantUrl = qdrant.url;
      started.push('qdrant/qdrant.sh');
    } else {
      problems.push(`Qdrant could not be started: ${qdrant.reason}`);
    }
  }
  try {
    if (neo4jUri && redisUrl && qdrantUrl) {
      const env = { ...baseEnv, TEST_NEO4J_URI: neo4jUri, TEST_REDIS_URL: redisUrl };
      const withQdrant = { ...env, TEST_QDRANT_URL: qdrantUrl };
      if (userPatterns) {
        jest(`persistent mode (Neo4j at ${neo4jUri}, Qdrant at ${qdrantUrl})`, withQdrant, ['--runInBand']);
      } else {
        jest('persistent mode: Neo4j and Qdrant store contracts', withQdrant, [
          '--runInBand',
          '/test/contract/(neo4j[^/]*|qdrant)\\.test\\.ts$',
        ]);
        jest(`persistent mode (Neo4j at ${neo4jUri}): API and integration suites`, env, [
          '--runInBand',
          '/test/api/',
          '/test/integration/',
        ]);
        jest(`persistent mode (Neo4j at ${neo4jUri}, vectors in Qdrant at ${qdrantUrl}): API suites`, withQdrant, [
          '--runInBand',
          ...QDRANT_API_SUITES,
        ]);
      }
    } else {
      problems.push('persistent mode (Neo4j) did not run' + (inCi ? '' : ' (pass --embedded-only to run the embedded pass alone)'));
    }
  } finally {
    for (const script of started.reverse()) stopServer(script, serverEnv);
  }
}

fs.rmSync(work, { recursive: true, force: true });

banner('summary');
for (const note of notes) process.stdout.write(`${note}\n`);
for (const problem of problems) process.stdout.write(`!!! ${problem}\n`);
process.stdout.write(`${totals.passed} passed, ${totals.failed} failed\n`);
process.exit(problems.length > 0 || totals.failed > 0 ? 1 : 0);
