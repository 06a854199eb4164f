import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const BIN = path.join(ROOT, 'node_modules/.bin/depcruise');

function cruise(cwd: string, ...args: string[]) {
  const run = spawnSync(BIN, ['src', '--config', CONFIG, '--output-type', 'err', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
  });
  // Plain text whatever the terminal: colour codes would split the names the assertions look for.
  // eslint-disable-next-line no-control-regex -- ANSI escape sequences
  const output = `${run.stdout}${run.stderr}`.replace(/\u001b\[[0-9;]*m/g, '');
  return { status: run.status, output };
}

describe('layer rules (npm run lint:deps)', () => {
  it('refuse an upward import, an import circle and a module outside every layer', () => {
    const { status, output } = cruise(path.join(ROOT, 'test/fixtures/layers'));
    expect(status).not.toBe(0);
    expect(output).toMatch(/layer-\d+-upward: src\/graph\/edit\.ts → src\/ingest\/locks\.ts/);
    expect(output).toMatch(/no-circular: src\/ingest\/(locks|merge)\.ts → /);
    expect(output).toMatch(/in-a-layer: src\/tools\/rename\.ts/);
    expect(output).not.toMatch(/src\/domain\/ids\.ts →/);
    expect(output).not.toMatch(/in-a-layer: src\/(domain|graph|ingest)\//);
  });

  it('refuse a route folder importing another, and allow routes/shared', () => {
    const { output } = cruise(path.join(ROOT, 'test/fixtures/layers'));
    expect(output).toMatch(/no-route-folder-import: src\/routes\/chat\/index\.ts → src\/routes\/query\/schema\.ts/);
    expect(output).not.toMatch(/src\/routes\/(chat|query)\/[a-z]+\.ts → src\/routes\/shared\//);
  });

  it('find no violation in src/', () => {
    const { status, output } = cruise(ROOT);
    expect(output).toMatch(/no dependency violations found/);
    expect(status).toBe(0);
  });
});
