import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BUILD = path.resolve(__dirname, '../../build');

/**
 * A Python virtual environment under build/ holding `requirement` (pinned PyPI packages), made once and kept
 * between runs; `probe` (a program of the environment and its arguments) tells whether the package is there.
 * Answers the environment's bin directory.
 */
export async function pythonVenv(
  name: string,
  requirement: string | string[],
  probe: [program: string, ...args: string[]],
): Promise<string> {
  const venv = path.join(BUILD, name);
  const bin = path.join(venv, 'bin');
  if (!fs.existsSync(path.join(bin, 'python'))) await run('python3', ['-m', 'venv', venv], { timeout: 120_000 });
  const [program, ...args] = probe;
  try {
    await run(path.join(bin, program), args, { timeout: 60_000 });
  } catch {
    await run(path.join(bin, 'python'), ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...[requirement].flat()], {
      timeout: 600_000,
    });
  }
  return bin;
}
