/**
 * Web console benchmark: `npx tsx scripts/bench/console.ts [sizes] [panMs]` (sizes default
 * `1000x3000,5000x15000,10000x30000`).
 * Builds the console if needed, boots the service in-process with one random graph per size (written through the
 * GraphStore port, each in its own workspace), and drives headless Debian chromium (WebGL through SwiftShader):
 * time to the first drawn frame and to a settled ForceAtlas2 layout, frame times while panning with the mouse and
 * while zooming with the wheel, and the gzip size of the production bundle. Prints a table.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { createApp } from '../../src/app';
import { relationshipId } from '../../src/domain/ids';
import type { EntityRecord, RelationshipRecord } from '../../src/domain/types';
import { createLogger } from '../../src/logger';
import { createRuntime } from '../../src/runtime';
import {
  consoleContext,
  describeMeasurement,
  type ExplorerMeasurement,
  launchChromium,
  measureExplorer,
  screenshotPath,
} from '../web/browser';
import { loadAverage } from './host';
import { seeded } from './random';
import { BENCH_MASTER_KEY, benchWorkspace } from './workspace';
import { benchConfig, serve } from './service';

const ROOT = path.resolve(__dirname, '../..');
const SIZES = (process.argv[2] ?? '1000x3000,5000x15000,10000x30000').split(',').map((s) => s.split('x').map(Number) as [number, number]);
const PAN_MS = Number(process.argv[3] ?? 4000);
const TYPES = ['PERSON', 'ORGANIZATION', 'CONCEPT', 'LOCATION', 'EVENT', 'TECHNOLOGY'];

function randomGraph(nodes: number, edges: number): { entities: EntityRecord[]; relationships: RelationshipRecord[] } {
  const random = seeded(nodes);
  const now = new Date().toISOString();
  const id = (i: number) => `ENTITY_${String(i).padStart(6, '0')}`;
  const entities: EntityRecord[] = Array.from({ length: nodes }, (_, i) => ({
    id: id(i),
    name: `Entity ${i}`,
    entity_type: TYPES[i % TYPES.length],
    description: `Entity ${i} of the console benchmark.`,
    source_chunk_ids: [`doc-${i % 50}-chunk-0`],
    document_ids: [`doc-${i % 50}`],
    created_at: now,
    updated_at: now,
  }));
  const relationships = new Map<string, RelationshipRecord>();
  // Skewed endpoints: low ids become hubs, as in extracted graphs.
  while (relationships.size < edges) {
    const a = Math.floor(random() ** 2 * nodes);
    const b = Math.floor(random() * nodes);
    if (a === b) continue;
    const [rid, source, target] = relationshipId(id(a), id(b));
    relationships.set(rid, {
      id: rid,
      source,
      target,
      relation_type: 'RELATED_TO',
      keywords: [],
      description: '',
      weight: 1,
      source_chunk_ids: [],
      document_ids: [],
      created_at: now,
      updated_at: now,
    });
  }
  return { entities, relationships: [...relationships.values()] };
}

/** Sizes of the production bundle: every script and style sheet, and the entry chunk a first visit loads before any page. */
function bundleSize(): { raw: number; gzip: number; files: number; entryGzip: number } {
  const assets = path.join(ROOT, 'web/dist/assets');
  let raw = 0;
  let gzip = 0;
  let entryGzip = 0;
  const files = fs.readdirSync(assets).filter((f) => /\.(js|css)$/.test(f));
  for (const file of files) {
    const bytes = fs.readFileSync(path.join(assets, file));
    const zipped = zlib.gzipSync(bytes, { level: 9 }).length;
    raw += bytes.length;
    gzip += zipped;
    if (file.startsWith('index-')) entryGzip += zipped;
  }
  return { raw, gzip, files: files.length, entryGzip };
}

async function main() {
  const build = spawnSync('node', ['scripts/web/console.mjs', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
  const config = benchConfig();
  const rt = await createRuntime(config, createLogger(config.logLevel));
  const { app } = createApp(rt);
  const { url, close } = await serve(rt, app, { start: false });
  const browser = await launchChromium();
  const results: Array<[string, ExplorerMeasurement]> = [];
  try {
    for (const [nodes, edges] of SIZES) {
      const scope = await benchWorkspace(rt, `bench console ${nodes}`);
      const graph = randomGraph(nodes, edges);
      await rt.stores.graph.upsertEntities(scope, graph.entities);
      await rt.stores.graph.upsertRelationships(scope, graph.relationships);
      const context = await consoleContext(browser, { 'X-Workspace-ID': scope.workspaceId, 'X-API-Key': BENCH_MASTER_KEY });
      const page = await context.newPage();
      await page.goto(`${url}/graph`);
      await page.getByTestId('graph-status').getByText('live').waitFor();
      const m = await measureExplorer(page, nodes >= 10000 ? 10000 : nodes >= 5000 ? 5000 : nodes <= 1000 ? 1000 : 2000, PAN_MS);
      results.push([`${nodes} x ${edges}`, m]);
      await page.screenshot({ path: screenshotPath(`bench-graph-${nodes}`) });
      console.log(describeMeasurement(`${nodes} nodes`, m));
      await context.close();
    }
  } finally {
    await browser.close();
    await close();
  }
  const bundle = bundleSize();
  const rows = results.map(([label, m]) => [
    label,
    `${m.nodes} / ${m.edges}`,
    String(m.firstRenderMs),
    String(m.settledMs),
    `${m.layoutIterations}${m.layoutConverged ? '' : ' (bound)'}`,
    `${m.pan.intervalP50.toFixed(1)} / ${m.pan.intervalP95.toFixed(1)}`,
    `${m.pan.renderP50.toFixed(1)} / ${m.pan.renderP95.toFixed(1)}`,
    `${m.zoom.intervalP50.toFixed(1)} / ${m.zoom.intervalP95.toFixed(1)}`,
    `${m.zoom.renderP50.toFixed(1)} / ${m.zoom.renderP95.toFixed(1)}`,
  ]);
  const header = [
    'graph',
    'drawn nodes / edges',
    'first render ms',
    'settled ms',
    'iterations',
    'pan frame p50 / p95 ms',
    'render p50 / p95 ms',
    'zoom frame p50 / p95 ms',
    'zoom render p50 / p95 ms',
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const load = loadAverage(1);
  console.log(
    `\nheadless chromium ${browser.version()} (SwiftShader WebGL), panning and zooming for ${PAN_MS} ms each, load average ${load}\n`,
  );
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
  console.log(
    `\nbundle: ${bundle.files} files, ${(bundle.raw / 1024).toFixed(1)} KiB, ${(bundle.gzip / 1024).toFixed(1)} KiB gzip in all; ` +
      `entry (index js + css) ${(bundle.entryGzip / 1024).toFixed(1)} KiB gzip`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
