import { spawn } from 'node:child_process';
import path from 'node:path';

/** The process itself: a bad configuration stops it with every problem listed; a good one serves. */
jest.setTimeout(60_000);

const ROOT = path.resolve(__dirname, '../..');

function startMain(env: Record<string, string>) {
  const child = spawn(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: '/nonexistent', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

describe('service process', () => {
  it('exits with status 2 listing every configuration problem at once', async () => {
    const run = startMain({ PORT: 'eighty', WORKER_THREADS: '-3', DATABASE_URL: 'postgresql://u:p@db:5432/kg' });
    expect(await run.exited).toBe(2);
    const { stderr } = run.output();
    expect(stderr).toMatch(/^configuration error:/);
    expect(stderr).toMatch(/PORT/);
    expect(stderr).toMatch(/WORKER_THREADS/);
    expect(stderr).toMatch(/DATABASE_URL.*Neo4j/);
    expect(stderr).not.toContain('u:p@');
  });

  it('starts on the embedded stores and the mock provider with no configuration, and stops on SIGTERM', async () => {
    const run = startMain({ PORT: '0', RUST_LOG: 'info' });
    const line = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line: ${JSON.stringify(run.output())}`)), 45_000);
      run.child.stdout.on('data', () => {
        const found = run
          .output()
          .stdout.split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .find((l) => typeof l.msg === 'string' && l.msg.includes('listening'));
        if (found) {
          clearTimeout(timer);
          resolve(found);
        }
      });
    });
    expect(line).toMatchObject({ storage: 'memory', llm: 'mock' });
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });
});
