import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the layer list is CommonJS, shared with the lint configs
const { LAYERS } = require('../../scripts/lint/layers.cjs') as { LAYERS: string[][] };

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

  it('refuse a service or the graph importing the stream pump, the framing or the response body', () => {
    const { output } = cruise(path.join(ROOT, 'test/fixtures/layers'));
    expect(output).toMatch(/services-yield-events: src\/services\/compat\/reply\.ts → src\/http\/sse-pump\.ts/);
    expect(output).toMatch(/services-yield-events: src\/graph\/feed\.ts → src\/http\/stream\.ts/);
  });

  it('refuse an import of the merge subsystem past its entry', () => {
    const { output } = cruise(path.join(ROOT, 'test/fixtures/layers'));
    expect(output).toMatch(/merge-through-its-entry: src\/ingest\/pipeline\.ts → src\/ingest\/merge\/commit\.ts/);
    expect(output).not.toMatch(/merge-through-its-entry: src\/ingest\/pipeline\.ts → src\/ingest\/merge\/index\.ts/);
    expect(output).not.toMatch(/merge-through-its-entry: src\/ingest\/merge\//);
  });

  it('find no violation in src/', () => {
    const { status, output } = cruise(ROOT);
    expect(output).toMatch(/no dependency violations found/);
    expect(status).toBe(0);
  });
});

/** The entries of src/ per layer number as docs/architecture.md §1 draws them: `pick` finds them in one line. */
function layersIn(block: string, pick: (line: string) => { layer: number | null; names: string[] } | null): Map<number, string[]> {
  const found = new Map<number, string[]>();
  let current = -1;
  for (const line of block.split('\n')) {
    const picked = pick(line);
    if (!picked) continue;
    if (picked.layer !== null) current = picked.layer;
    found.set(current, [...new Set([...(found.get(current) ?? []), ...picked.names])].sort());
  }
  return found;
}

describe('docs/architecture.md §1', () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## 1. Layers'), doc.indexOf('## 2.'));
  const [mermaid, list] = [...section.matchAll(/```(?:mermaid)?\n([\s\S]*?)```/g)].map((block) => block[1]);
  const expected = new Map(LAYERS.map((names, i) => [i, [...names].sort()]));

  it('draws the layers of scripts/lint/layers.cjs in its diagram', () => {
    const drawn = layersIn(mermaid, (line) => {
      const m = /L\d+\["(\d+) · (.*?)"\]/.exec(line);
      if (!m) return null;
      const names = m[2]
        .split(' — ')[0]
        .split(' · ')
        .map((n) => n.trim().replace(/\/$/, ''));
      return { layer: Number(m[1]), names };
    });
    expect(drawn).toEqual(expected);
  });

  it('lists the layers of scripts/lint/layers.cjs', () => {
    const listed = layersIn(list, (line) => {
      const m = /^\s*(\d+)?\s+((?:src\/\S+,?\s{1,2})+)/.exec(line);
      if (!m) return null;
      const names = [...m[2].matchAll(/src\/([^/\s,]+)/g)].map((n) => n[1]);
      return { layer: m[1] === undefined ? null : Number(m[1]), names };
    });
    expect(listed).toEqual(expected);
  });
});
