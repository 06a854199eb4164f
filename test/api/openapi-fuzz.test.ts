import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, type TestApp } from '../helpers/app';
import { pythonVenv } from '../helpers/venv';

/**
 * The published OpenAPI document against the service that publishes it: schemathesis (PyPI, in a virtual
 * environment made once under build/) generates requests from /api-docs/openapi.json, valid and invalid ones, for
 * every operation and in stateful sequences, and runs all of its checks on the answers: statuses, content types,
 * response schemas, headers, valid requests accepted and invalid ones refused, 405 with Allow for undocumented
 * methods. A fixed seed and a bounded number of examples keep the run reproducible and a few minutes long.
 */

// Two runs (the key in each header), each up to two schemathesis passes.
jest.setTimeout(1_800_000);

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const VENV = path.join(ROOT, 'build', 'schemathesis-venv');
const SCHEMATHESIS = 'schemathesis==4.32.5';
const st = path.join(VENV, 'bin', 'st');
const SEED = '20261125';
const EXAMPLES = process.env.TEST_FUZZ_EXAMPLES ?? '10';

const ensureSchemathesis = () => pythonVenv('schemathesis-venv', SCHEMATHESIS, ['st', '--version']);

interface Outcome {
  code: number;
  output: string;
}

/**
 * Operations that change how the whole service or workspace answers (a budget of $0 refuses every query and
 * upload; settings change chunking and rate limits) run in a second pass, after every other operation, so that
 * what the fuzzer sets there does not turn valid requests elsewhere into refusals.
 */
const SERVICE_WIDE = ['patch_api_v1_costs_budget', 'patch_api_v1_settings'];

/** Where the run sends the key: each header the API accepts it in (docs/api.md §5). */
type KeyHeader = 'X-API-Key' | 'Authorization';

async function fuzz(app: TestApp, pass: 'others' | 'service-wide', keyHeader: KeyHeader): Promise<Outcome> {
  const select = SERVICE_WIDE.flatMap((id) => [pass === 'others' ? '--exclude-operation-id' : '--include-operation-id', id]);
  const sent = {
    'X-Workspace-ID': app.workspace,
    ...(keyHeader === 'X-API-Key' ? { 'X-API-Key': app.masterKey } : { Authorization: `Bearer ${app.masterKey}` }),
  };
  const headers = Object.entries(sent).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  const args = [
    '--config-file',
    path.join(__dirname, '../fixtures/fuzz/schemathesis.toml'),
    'run',
    `${app.url}/api-docs/openapi.json`,
    '--checks',
    'all',
    '--seed',
    SEED,
    '--max-examples',
    EXAMPLES,
    // One thread: Hypothesis' cache of lambda sources is not safe across threads (a KeyError inside it surfaced
    // as a "flaky" generation error, and as a runtime error of the fuzzer on a loaded machine).
    '--workers',
    '1',
    '--no-color',
    '--output-truncate',
    'true',
    ...select,
    ...headers,
  ];
  try {
    // Run in build/, where schemathesis keeps its cache (.schemathesis/).
    const { stdout } = await run(st, args, {
      cwd: path.join(ROOT, 'build'),
      timeout: 840_000,
      maxBuffer: 256 * 1024 * 1024,
      env: { ...process.env, NO_COLOR: '1' },
    });
    return { code: 0, output: stdout };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

/** The figures of the summary: operations tested, test cases generated, failures. */
function figures(output: string): { operations: number; cases: number; failures: number } {
  const operations = Number(/Tested:\s+(\d+)/.exec(output)?.[1] ?? NaN);
  const cases = Number(/(\d+) generated/.exec(output)?.[1] ?? NaN);
  const failures = Number(/(\d+) failures?[ ,]/.exec(output.slice(output.lastIndexOf('Test cases:')))?.[1] ?? 0);
  return { operations, cases, failures };
}

/** The part of a failed run's output that says why: its failures, else its errors, else its end. */
function whatWentWrong(output: string): string {
  const section = ['FAILURES', 'ERRORS'].find((title) => output.includes(title));
  return section ? output.slice(output.indexOf(section)).slice(0, 20_000) : output.slice(-6_000);
}

let app: TestApp | undefined;

beforeAll(async () => {
  await ensureSchemathesis();
});

/**
 * Each run has an app of its own, so that what one run's service-wide pass set (a budget, settings) does not
 * refuse the next run's requests. The settings are one record for the whole service (kept in Neo4j in persistent
 * mode): later suites start without one.
 */
async function closeApp(): Promise<void> {
  if (app) await app.rt.stores.accounts.settings.delete('service');
  await app?.close();
  app = undefined;
}

afterEach(closeApp);

describe('the OpenAPI document under a fuzzer', () => {
  it.each<KeyHeader>(['X-API-Key', 'Authorization'])(
    'holds for every operation, with all checks, with the key in %s',
    async (keyHeader) => {
      app = await startTestApp();
      const others = await fuzz(app, 'others', keyHeader);
      const serviceWide = await fuzz(app, 'service-wide', keyHeader);
      const outcome = { code: others.code || serviceWide.code, output: others.code ? others.output : serviceWide.output };
      const [a, b] = [figures(others.output), figures(serviceWide.output)];
      const summary = { operations: a.operations + b.operations, cases: a.cases + b.cases, failures: a.failures + b.failures };
      const mode = process.env.TEST_NEO4J_URI ? 'Neo4j' : 'embedded';
      process.stdout.write(
        `schemathesis (${mode}, key in ${keyHeader}): ${summary.operations} operations, ${summary.cases} test cases, ${summary.failures} failures\n`,
      );
      expect({ code: outcome.code, failures: outcome.code === 0 ? '' : whatWentWrong(outcome.output) }).toEqual({ code: 0, failures: '' });
      expect(summary.operations).toBe(new Set(app.routes.map((r) => `${r.spec.method} ${r.prefix}${r.spec.path}`)).size);
      expect(summary.cases).toBeGreaterThan(summary.operations);
    },
  );
});
