/**
 * The graph explorer at 5,000 nodes and 15,000 edges in headless chromium: every node and edge drawn, the layout
 * settled in its worker, the view panned with the mouse. The timings are printed, never asserted.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { randomGraph } from '../contract/graph-reference';
import { type TestApp, startTestApp } from '../helpers/app';
import { consoleContext, describeMeasurement, launchChromium, measureExplorer, screenshotPath } from '../../scripts/web/browser';

const ROOT = path.resolve(__dirname, '../..');

describe('graph explorer at scale', () => {
  let app: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    const build = spawnSync('node', ['scripts/web/console.mjs', 'build'], { cwd: ROOT, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`console build failed:\n${build.stderr}`);
    app = await startTestApp();
    const world = randomGraph(11, 5000, 15000);
    const scope = { workspaceId: app.workspace };
    await app.rt.stores.graph.upsertEntities(scope, world.entities);
    await app.rt.stores.graph.upsertRelationships(scope, world.relationships);
    browser = await launchChromium();
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('draws 5,000 nodes and 15,000 edges, settles the layout in its worker and pans; prints the frame times', async () => {
    const stats = (await (await app.request('/api/v1/graph/stats')).json()) as { total_nodes: number; total_edges: number };
    expect(stats).toMatchObject({ total_nodes: 5000, total_edges: 15000 });
    const context = await consoleContext(browser, app.headers);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`${app.url}/graph`);
    await page.getByTestId('graph-status').getByText('live').waitFor();

    const m = await measureExplorer(page, 5000, 3000);
    process.stdout.write(`\n${describeMeasurement('graph explorer', m)}\n\n`);
    expect(m.nodes).toBe(5000);
    expect(m.edges).toBe(15000);
    expect(await page.getByTestId('graph-node-count').innerText()).toBe('5,000');
    expect(m.layoutIterations).toBeGreaterThan(0);
    expect(m.pan.renderedFrames).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await page.screenshot({ path: screenshotPath('console-graph-5000') });
    await context.close();
  }, 600_000);
});
