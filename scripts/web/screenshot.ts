/**
 * The README's pictures of the console: `npx tsx scripts/web/screenshot.ts`. Boots the service in-process with the
 * mock provider, ingests a few short documents through the API, opens the graph explorer in headless chromium and
 * writes docs/console-graph-overview.png (the whole graph), docs/console-graph.png (an entity selected, with its
 * provenance), docs/console-graph-path.png (a shortest path drawn and listed), docs/console-graph-edit.png (the
 * merge dialog with its impact) and docs/console-graph-answer.png (a query answer's entities highlighted).
 */
import { spawnSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config/load';
import { createLogger } from '../../src/logger';
import { createRuntime } from '../../src/runtime';
import { consoleContext, launchChromium } from './browser';

const ROOT = path.resolve(__dirname, '../..');
/** Authentication stays on, as in production: the documents and the console's requests carry this key. */
const MASTER_KEY = 'screenshot-master-key-0123456789';

const DOCUMENTS: Array<[string, string]> = [
  [
    'Acme research',
    'Alice Johnson works with Bob Smith at Acme Corporation in Berlin. Acme Corporation builds the Falcon Engine, a database technology. ' +
      'Bob Smith leads the Berlin Research Lab, part of Acme Corporation.',
  ],
  [
    'Globex partnership',
    'Carol White joined Globex Labs in Paris. Globex Labs partners with Acme Corporation on the Falcon Engine. ' +
      'Dave Brown works with Alice Johnson at Globex Labs. Dave Brown presented the Falcon Engine at the Vector Summit in Lisbon.',
  ],
  [
    'Nimbus Robotics',
    'Zoe Quinn founded Nimbus Robotics in Oslo. Nimbus Robotics uses the Falcon Engine for fleet telemetry. ' +
      'Zoe Quinn works with Carol White on the Orion Project. The Orion Project is funded by the Nordic Innovation Fund.',
  ],
  [
    'Conference notes',
    'Erik Larsen chaired the Vector Summit in Lisbon. Erik Larsen works at Nordic Innovation Fund. ' +
      'Maria Garcia from Helix Analytics spoke about graph retrieval. Helix Analytics is based in Madrid and partners with Globex Labs.',
  ],
  [
    'Team update',
    'Maria Garcia works with Bob Smith on the Falcon Engine benchmarks. Bob Smith mentors Liam Chen at the Berlin Research Lab. ' +
      'Liam Chen built the Kestrel Indexer, a search technology used by Helix Analytics.',
  ],
];

async function main() {
  const build = spawnSync('node', ['scripts/web/console.mjs', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
  const config = loadConfig(
    {
      SERVICE_LLM_PROVIDER: 'mock',
      SERVICE_EMBEDDING_PROVIDER: 'mock',
      SERVICE_MASTER_API_KEY: MASTER_KEY,
      PORT: '0',
      HOST: '127.0.0.1',
      RUST_LOG: 'silent',
    },
    { cwd: ROOT, homeDir: '/nonexistent' },
  );
  const rt = await createRuntime(config, createLogger(config.logLevel));
  const { app } = createApp(rt);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  await rt.start();
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const [title, content] of DOCUMENTS) {
    const res = await fetch(`${url}/api/v1/documents`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': MASTER_KEY },
      body: JSON.stringify({ title, content }),
    });
    if (res.status !== 201) throw new Error(`${title}: HTTP ${res.status} ${await res.text()}`);
  }
  const browser = await launchChromium();
  try {
    const context = await consoleContext(browser, { 'X-API-Key': MASTER_KEY });
    const page = await context.newPage();
    const shoot = async (name: string) => {
      await page.screenshot({ path: path.join(ROOT, name) });
      process.stdout.write(`wrote ${name}\n`);
    };
    await page.goto(`${url}/graph`);
    await page.getByTestId('graph-status').getByText('live').waitFor();
    await page.getByTestId('layout-status').getByText('layout done').waitFor({ timeout: 60_000 });
    await page.waitForTimeout(800);
    await shoot('docs/console-graph-overview.png');
    await page.getByLabel('Search entities').fill('Falcon');
    await page.getByRole('option', { name: /Falcon Engine/ }).click();
    await page.getByTestId('provenance').locator('.source-chunk').first().waitFor();
    await page.waitForTimeout(800);
    await shoot('docs/console-graph.png');
    await page.getByRole('button', { name: 'Shortest path' }).click();
    const panel = page.getByTestId('path-panel');
    await panel.getByLabel('From').fill('Zoe Quinn');
    await panel.getByLabel('To').fill('Liam Chen');
    await panel.getByRole('button', { name: 'Find path' }).click();
    await panel.getByTestId('path-list').waitFor();
    await page.waitForTimeout(800);
    await shoot('docs/console-graph-path.png');
    await panel.getByRole('button', { name: 'Close the path panel' }).click();
    await page.getByLabel('Search entities').fill('Falcon');
    await page.getByRole('option', { name: /Falcon Engine/ }).click();
    await page.getByTestId('entity-actions').getByRole('button', { name: 'Merge…' }).click();
    const merge = page.getByTestId('merge-dialog');
    await merge.getByLabel('Entity to merge with').fill('Kestrel');
    await merge.getByRole('option', { name: /Kestrel Indexer/ }).click();
    await merge.getByTestId('edit-impact').getByText('Merges').waitFor();
    await page.waitForTimeout(400);
    await shoot('docs/console-graph-edit.png');
    await merge.getByRole('button', { name: 'Cancel' }).click();
    await page.goto(`${url}/query`);
    await page.getByLabel('Question').fill('Who works on the Falcon Engine?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.locator('[data-testid=answer][data-state=done]').waitFor({ timeout: 60_000 });
    await page.getByTestId('show-in-graph').click();
    await page.getByTestId('graph-highlight').waitFor();
    await page.getByTestId('layout-status').getByText('layout done').waitFor({ timeout: 60_000 });
    await page.waitForTimeout(800);
    await shoot('docs/console-graph-answer.png');
  } finally {
    await browser.close();
    server.close();
    await rt.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
