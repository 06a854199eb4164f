import { spawn } from 'node:child_process';
import path from 'node:path';

/** The process itself: a bad configuration stops it with every problem listed; a good one serves. */
jest.setTimeout(60_000);

const ROOT = path.resolve(__dirname, '../..');

function startMain(env: Record<string, string>) {
  // tsx as a loader of this very process: its CLI runs a second one, which under load can kill the service
  // instead of passing a signal on.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
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

  it('starts on the embedded stores and the mock provider chosen explicitly, and stops on SIGTERM', async () => {
    const run = startMain({ PORT: '0', RUST_LOG: 'info', SERVICE_LLM_PROVIDER: 'mock' });
    const line = await logLine(run, (l) => l.msg.includes('listening'));
    expect(line).toMatchObject({ storage: 'memory', llm: 'mock' });
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it('starts without configuration on the local runtime even when it does not answer, and logs which variable selects the mock', async () => {
    // A loopback port where nothing listens stands for an absent local runtime.
    const run = startMain({ PORT: '0', RUST_LOG: 'info', OLLAMA_HOST: 'http://127.0.0.1:9' });
    const warning = await logLine(run, (l) => l.msg.includes('did not answer at start-up'));
    expect(warning).toMatchObject({ level: 40, provider: 'ollama', api_base: 'http://127.0.0.1:9' });
    expect(warning.msg).toMatch(/SERVICE_LLM_PROVIDER=mock/);
    const listening = await logLine(run, (l) => l.msg.includes('listening'));
    expect(listening).toMatchObject({ llm: 'ollama' });
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });
});

type LogEntry = Record<string, unknown> & { msg: string };

/** The first JSON log line on stdout that `match` accepts (waits for it). */
function logLine(run: ReturnType<typeof startMain>, match: (line: LogEntry) => boolean): Promise<LogEntry> {
  return new Promise((resolve, reject) => {
    const find = () =>
      run
        .output()
        .stdout.split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as LogEntry)
        .find((l) => typeof l.msg === 'string' && match(l));
    const timer = setTimeout(() => reject(new Error(`no such log line: ${JSON.stringify(run.output())}`)), 45_000);
    const check = () => {
      const found = find();
      if (!found) return;
      clearTimeout(timer);
      run.child.stdout.off('data', check);
      resolve(found);
    };
    run.child.stdout.on('data', check);
    check();
  });
}
