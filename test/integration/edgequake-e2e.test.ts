import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * EdgeQuake's own end-to-end suite (`tests/test_e2e.py` of the `edgequake-sdk` 0.4.1 source distribution from
 * PyPI), unchanged, against the real server: its base URL and an API key (test/fixtures/edgequake/edgequake_key.py)
 * are all it is given. Every test passes but those of docs/api.md §10.1, each for the reason given there; the list
 * below is that one, so a test that starts failing, or starts passing, shows here.
 */

jest.setTimeout(300_000);

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const VENV = path.join(ROOT, 'build', 'edgequake-sdk-venv');
const SDIST_DIR = path.join(ROOT, 'build', 'edgequake-sdist');
const VERSION = '0.4.1';
const SUITE_DIR = path.join(SDIST_DIR, `edgequake_sdk-${VERSION}`);
const python = path.join(VENV, 'bin', 'python');

/**
 * docs/api.md §10.1: the tests of the suite that cannot pass here, by name. Those that send EdgeQuake's default tenant
 * id (00000000-0000-0000-0000-000000000002) pass: the first tenant is created with it.
 */
const CANNOT_PASS = [
  // Reads `chunks` of the SDK's DocumentFullLineage, a model without that field: it fails against any server.
  'TestLineage::test_document_lineage',
];

/** The SDK, pytest and the suite from the source distribution, made once and kept under build/. */
async function ensureSuite(): Promise<void> {
  const pip = (...args: string[]) => run(python, ['-m', 'pip', '--disable-pip-version-check', ...args], { timeout: 240_000 });
  if (!fs.existsSync(python)) await run('python3', ['-m', 'venv', VENV], { timeout: 120_000 });
  try {
    await run(python, ['-c', 'import edgequake, pytest'], { timeout: 60_000 });
  } catch {
    await pip('install', '--quiet', `edgequake-sdk==${VERSION}`, 'pytest==8.3.4');
  }
  if (!fs.existsSync(path.join(SUITE_DIR, 'tests', 'test_e2e.py'))) {
    await pip('download', '--quiet', '--no-deps', '--no-binary', ':all:', `edgequake-sdk==${VERSION}`, '-d', SDIST_DIR);
    await run('tar', ['xzf', path.join(SDIST_DIR, `edgequake_sdk-${VERSION}.tar.gz`), '-C', SDIST_DIR], { timeout: 60_000 });
  }
}

interface Outcome {
  name: string;
  status: 'passed' | 'failed' | 'skipped';
  message: string;
}

/** The test cases of a JUnit XML report: `Class::test`, with the first line of a failure's message. */
function outcomesOf(xml: string): Outcome[] {
  return [...xml.matchAll(/<testcase classname="([^"]*)" name="([^"]*)"[^>]*?(?:\/>|>([\s\S]*?)<\/testcase>)/g)].map((m) => {
    const body = m[3] ?? '';
    const status = /<(failure|error)\b/.test(body) ? 'failed' : /<skipped\b/.test(body) ? 'skipped' : 'passed';
    const message = /message="([^"]*)"/.exec(body)?.[1] ?? '';
    return { name: `${m[1].split('.').at(-1)}::${m[2]}`, status, message: message.slice(0, 300) };
  });
}

let app: TestApp;
let outcomes: Outcome[];

beforeAll(async () => {
  const suite = ensureSuite();
  app = await startTestApp();
  await suite;
  const report = path.join(SDIST_DIR, `e2e-${process.pid}.xml`);
  try {
    await run(
      python,
      ['-m', 'pytest', 'tests/test_e2e.py', '-q', '-p', 'edgequake_key', `--junitxml=${report}`, '-o', 'cache_dir=../.pytest_cache'],
      {
        cwd: SUITE_DIR,
        env: {
          ...process.env,
          EDGEQUAKE_E2E_URL: app.url,
          EDGEQUAKE_API_KEY: app.masterKey,
          PYTHONPATH: path.join(__dirname, '../fixtures/edgequake'),
        },
        timeout: 240_000,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
  } catch (err) {
    // pytest exits 1 when a test fails: the report says which.
    if ((err as { code?: number }).code !== 1) throw err;
  }
  outcomes = outcomesOf(fs.readFileSync(report, 'utf8'));
  fs.rmSync(report, { force: true });
});

afterAll(async () => {
  await app?.close();
});

describe("EdgeQuake's end-to-end suite", () => {
  it('passes every test but those that cannot pass here, and skips none', () => {
    expect(outcomes.length).toBeGreaterThan(30);
    const failed = outcomes.filter((o) => o.status !== 'passed');
    expect(failed.filter((o) => !CANNOT_PASS.includes(o.name) || o.status === 'skipped')).toEqual([]);
  });

  it('fails the tests that cannot pass for the documented reason, so the list stays true', () => {
    const listed = outcomes.filter((o) => CANNOT_PASS.includes(o.name));
    expect(listed.map((o) => o.name).sort()).toEqual([...CANNOT_PASS].sort());
    for (const o of listed) expect({ name: o.name, status: o.status }).toEqual({ name: o.name, status: 'failed' });
  });
});
