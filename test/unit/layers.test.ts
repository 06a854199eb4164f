import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const BIN = path.join(ROOT, 'node_modules/.bin/depcruise');

function cruise(cwd: string, ...args: string[]) {
  const run = spawnSync(BIN, ['src', '--config', CONFIG, '--output-type', 'err', ...args], { cwd, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('layer rules (npm run lint:deps)', () => {
  it('refuse an upward import and an import circle', () => {
    const { status, output } = cruise(path.join(ROOT, 'test/fixtures/layers'));
    expect(status).not.toBe(0);
    expect(output).toMatch(/layer-3-upward: src\/graph\/edit\.ts → src\/ingest\/locks\.ts/);
    expect(output).toMatch(/no-circular: src\/ingest\/(locks|merge)\.ts → /);
    expect(output).not.toMatch(/src\/domain\/ids\.ts →/);
  });

  it('find no violation in src/', () => {
    const { status, output } = cruise(ROOT);
    expect(output).toMatch(/no dependency violations found/);
    expect(status).toBe(0);
  });
});
