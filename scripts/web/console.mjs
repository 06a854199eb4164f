#!/usr/bin/env node
// The web console's own package (web/, with its own lock file), driven from the root:
//
//   node scripts/web/console.mjs deps        npm ci in web/ when its node_modules is missing or older than its lock file
//   node scripts/web/console.mjs build       deps, then `vite build` into web/dist unless the build is up to date
//   node scripts/web/console.mjs typecheck   deps, then tsc over web/
//
// `npm run build` (and so `npm start`) runs `build`; the browser tests call it too. A build is up to date when
// web/dist/.inputs holds the hash of every input file (sources, index.html, configs, lock file).
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web');
const LOCKFILE = path.join(WEB, 'package-lock.json');
const INSTALLED = path.join(WEB, 'node_modules', '.installed-lock');
const DIST = path.join(WEB, 'dist');
const STAMP = path.join(DIST, '.inputs');

function log(message) {
  process.stderr.write(`console: ${message}\n`);
}

function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { cwd: WEB, stdio: 'inherit', env });
  if (result.status !== 0) {
    log(`${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
    process.exit(result.status ?? 1);
  }
}

function hashFiles(files) {
  const hash = crypto.createHash('sha256');
  for (const file of files) {
    hash.update(path.relative(WEB, file));
    hash.update('\0');
    hash.update(fs.readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function listFiles(dir) {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? listFiles(full) : [full];
    });
}

const LOCK = path.join(WEB, '.build-lock');
const LOCK_STALE_MS = 10 * 60 * 1000;

/** One install or build at a time (test files in parallel workers all ask for the build): a lock directory. */
function withLock(action) {
  const deadline = Date.now() + LOCK_STALE_MS;
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      const age = Date.now() - fs.statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs;
      if (age > LOCK_STALE_MS) fs.rmSync(LOCK, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`${LOCK} is held too long; remove it if no build is running`);
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    action();
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
}

function ensureDeps() {
  const lockHash = hashFiles([LOCKFILE]);
  if (fs.existsSync(INSTALLED) && fs.readFileSync(INSTALLED, 'utf8') === lockHash) return;
  log('installing the console packages (npm ci in web/) ...');
  run('npm', ['ci', '--no-audit', '--no-fund']);
  fs.writeFileSync(INSTALLED, lockHash);
}

function build() {
  ensureDeps();
  const inputs = [
    ...listFiles(path.join(WEB, 'src')),
    ...['index.html', 'vite.config.ts', 'tsconfig.json', 'package-lock.json'].map((f) => path.join(WEB, f)),
  ];
  const wanted = hashFiles(inputs);
  if (fs.existsSync(STAMP) && fs.readFileSync(STAMP, 'utf8') === wanted) {
    log('web/dist is up to date');
    return;
  }
  log('building web/dist ...');
  // A production build whoever asks (jest runs with NODE_ENV=test, which would give React's development build).
  run('npm', ['run', 'build'], { ...process.env, NODE_ENV: 'production' });
  fs.writeFileSync(STAMP, wanted);
}

const command = process.argv[2];
if (command === 'deps') withLock(ensureDeps);
else if (command === 'build') withLock(build);
else if (command === 'typecheck') {
  withLock(ensureDeps);
  run('npm', ['run', 'typecheck']);
} else {
  process.stderr.write('usage: node scripts/web/console.mjs deps | build | typecheck\n');
  process.exit(2);
}
