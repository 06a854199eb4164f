/**
 * The graph explorer's tools in a real browser against the real service: circular and radial layouts that frame the
 * graph, the shortest path drawn and listed, PNG, GraphML and CSV downloads, saved views kept by the service, labels
 * of new nodes that never overlap, and a phone layout where the tools, view buttons, legend and nav stay clear.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app';
import { type InPage, countSaturatedPixels, startConsole, waitUntil, closeConsoleAfterAll } from './page';

const EXPAND = 'Expand neighbourhood';

declare const window: InPage;
declare const document: {
  querySelector(
    selector: string,
  ): { getBoundingClientRect(): Box & { width: number; height: number }; scrollWidth: number; clientWidth: number } | null;
  querySelectorAll(selector: string): ArrayLike<{ getBoundingClientRect(): Box }>;
  fullscreenElement: { classList: { contains(name: string): boolean } } | null;
};
declare const requestAnimationFrame: (callback: () => void) => number;

interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

const TEAM = [
  'Alice Johnson works with Bob Smith at Acme Corporation in Berlin.',
  'Acme Corporation builds the Falcon Engine, a database technology.',
  'Bob Smith leads the Berlin Research Lab, part of Acme Corporation.',
].join('\n');
const MORE = [
  'Carol White joined Globex Labs in Paris. Globex Labs partners with Acme Corporation.',
  'Dave Brown works with Alice Johnson at Globex Labs. Dave Brown presented the Falcon Engine at the Vector Summit in Lisbon.',
  'Erik Larsen chaired the Vector Summit. Maria Garcia from Helix Analytics spoke in Madrid.',
].join('\n');

const overlaps = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

describe('graph tools', () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];

  beforeAll(async () => {
    ({ app, browser, page, pageErrors } = await startConsole());
    const res = await app.request('/api/v1/documents', { method: 'POST', json: { title: 'team.txt', content: TEAM } });
    expect(res.status).toBe(201);
  }, 600_000);

  closeConsoleAfterAll(() => ({ app, browser, pageErrors }));

  const openGraph = async (query = '') => {
    await page.goto(`${app.url}/graph${query}`);
    await page.getByTestId('graph-status').getByText('live').waitFor();
    // The layout of this load settled (not the state before its snapshot arrived).
    await page.waitForFunction(() => window.kgragGraphLoad?.settledAt != null, undefined, { timeout: 60_000 });
  };
  const drawn = () =>
    page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(null)))));
  const positions = () =>
    page.evaluate(() => {
      const explorer = window.kgragExplorer!;
      return explorer.graph.nodes().map((id) => ({
        id,
        x: explorer.graph.getNodeAttribute(id, 'x') as number,
        y: explorer.graph.getNodeAttribute(id, 'y') as number,
        at: explorer.nodePagePosition(id)!,
      }));
    });
  const expectFramed = async () => {
    await waitUntil(
      async () => (await page.evaluate(() => window.kgragExplorer!.cameraRatio())) === 1,
      5000,
      'the camera framing the view',
    );
    await drawn();
    const box = (await page.getByTestId('graph-canvas').boundingBox())!;
    for (const { id, at } of await positions()) {
      expect({ id, inside: at.x > box.x && at.x < box.x + box.width && at.y > box.y && at.y < box.y + box.height }).toEqual({
        id,
        inside: true,
      });
    }
  };

  it('lays the graph out on a circle, and radially from the start node, each framed', async () => {
    await openGraph();
    await page.getByLabel('Layout').selectOption('circular');
    await page.getByTestId('layout-status').getByText('layout done').waitFor();
    const circle = await positions();
    expect(circle.length).toBeGreaterThan(4);
    const radii = circle.map((p) => Math.hypot(p.x, p.y));
    for (const r of radii) expect(Math.abs(r - radii[0]) / radii[0]).toBeLessThan(1e-3);
    await expectFramed();

    await openGraph('?start=BOB_SMITH');
    await page.getByLabel('Layout').selectOption('radial');
    const rings = new Map((await positions()).map((p) => [p.id, Math.round(Math.hypot(p.x, p.y))]));
    expect(rings.get('BOB_SMITH')).toBe(0);
    const neighbours = await page.evaluate(async () => {
      const res = await fetch('/api/v1/graph/analytics/neighbourhood?entity=BOB_SMITH&hops=4');
      return ((await res.json()) as { neighbours: Array<{ id: string; distance: number }> }).neighbours;
    });
    for (const { id, distance } of neighbours) if (rings.has(id)) expect({ id, ring: rings.get(id) }).toEqual({ id, ring: distance * 40 });
    await expectFramed();
    // A new view keeps the chosen layout.
    await page.getByLabel('Start node').fill('ACME_CORPORATION');
    await page.getByRole('button', { name: 'Load' }).click();
    await page.waitForFunction(() => {
      const { graph } = window.kgragExplorer!;
      return (
        graph.hasNode('ACME_CORPORATION') &&
        graph.getNodeAttribute('ACME_CORPORATION', 'x') === 0 &&
        graph.getNodeAttribute('ACME_CORPORATION', 'y') === 0
      );
    });
    await page.getByLabel('Layout').selectOption('force');
  });

  it('shows the graph page on the whole screen, the canvas taking the new size, and leaves it again', async () => {
    await page.setViewportSize({ width: 1200, height: 700 });
    await openGraph();
    const canvasWidth = () => page.evaluate(() => document.querySelector('.graph-stage canvas')!.getBoundingClientRect().width);
    const before = await canvasWidth();
    const inFullscreen = () => page.evaluate(() => document.fullscreenElement?.classList.contains('graph-page') ?? false);
    await page.getByRole('button', { name: 'Full screen' }).click();
    await waitUntil(inFullscreen, 10_000, 'the graph page in full screen');
    await page.getByRole('button', { name: 'Exit full screen' }).waitFor();
    expect(await page.getByRole('button', { name: 'Exit full screen' }).getAttribute('aria-pressed')).toBe('true');
    // The renderer follows its container: no stretched or cut drawing.
    const sizes = await page.evaluate(() => {
      const stage = document.querySelector('.graph-stage')!.getBoundingClientRect();
      const canvas = document.querySelector('.graph-stage canvas')!.getBoundingClientRect();
      return { stage: stage.width, canvas: canvas.width };
    });
    expect(Math.abs(sizes.canvas - sizes.stage)).toBeLessThan(4);
    await page.getByRole('button', { name: 'Exit full screen' }).click();
    await waitUntil(async () => !(await inFullscreen()), 10_000, 'full screen left');
    await page.getByRole('button', { name: 'Full screen' }).waitFor();
    await waitUntil(async () => Math.abs((await canvasWidth()) - before) < 4, 10_000, 'the canvas back to its size');
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('finds the shortest path between two entities, draws it over the dimmed rest and lists it', async () => {
    await openGraph();
    await page.getByRole('button', { name: 'Shortest path' }).click();
    const panel = page.getByTestId('path-panel');
    await panel.getByLabel('From').fill('Alice Johnson');
    await panel.getByLabel('To').fill('Falcon Engine');
    await panel.getByRole('button', { name: 'Find path' }).click();
    const expected = await page.evaluate(async () => {
      const res = await fetch('/api/v1/graph/analytics/shortest-paths?from=Alice%20Johnson&to=Falcon%20Engine&max_hops=8&limit=10');
      return ((await res.json()) as { paths: Array<Array<{ id: string; name: string }>> }).paths[0];
    });
    expect(expected.length).toBeGreaterThanOrEqual(3);
    await panel.getByTestId('path-list').waitFor();
    expect(await panel.getByTestId('path-list').locator('li button').allTextContents()).toEqual(expected.map((e) => e.name));
    await page.waitForFunction(
      (ids) => ids.every((id) => window.kgragExplorer!.graph.hasNode(id)),
      expected.map((e) => e.id),
    );
    await drawn();
    const colours = await page.evaluate(
      (ids) => {
        const { graph, sigma } = window.kgragExplorer!;
        const onPath = new Set(ids);
        const edges = ids.slice(1).map((id, i) => graph.edge(ids[i], id)!);
        return {
          path: ids.map((id) => sigma.getNodeDisplayData(id)!.color),
          rest: graph
            .nodes()
            .filter((id) => !onPath.has(id))
            .map((id) => sigma.getNodeDisplayData(id)!.color),
          pathEdges: edges.map((id) => sigma.getEdgeDisplayData(id)!.color),
        };
      },
      expected.map((e) => e.id),
    );
    expect(colours.rest.length).toBeGreaterThan(0);
    expect(new Set(colours.rest)).toEqual(new Set(['#e3e6ec']));
    for (const colour of colours.path) expect(colour).not.toBe('#e3e6ec');
    expect(new Set(colours.pathEdges)).toEqual(new Set(['#3259d6']));

    await panel.getByRole('button', { name: 'Close the path panel' }).click();
    await drawn();
    const after = await page.evaluate(() => {
      const { graph, sigma } = window.kgragExplorer!;
      return graph.nodes().map((id) => sigma.getNodeDisplayData(id)!.color);
    });
    expect(after).not.toContain('#e3e6ec');
  });

  it('exports the view as PNG, GraphML and nodes and relationships CSV downloads', async () => {
    await openGraph();
    // One type hidden: the exports hold what is shown.
    const legend = page.getByLabel('Entity types');
    await legend.getByRole('checkbox').first().uncheck();
    const hiddenType = (await legend.locator('li.off .grow').textContent())!;
    const visible = await page.evaluate(
      (type) => window.kgragExplorer!.graph.nodes().filter((id) => window.kgragExplorer!.graph.getNodeAttribute(id, 'entityType') !== type),
      hiddenType,
    );
    expect(visible.length).toBeGreaterThan(2);

    const grab = async (item: string) => {
      await page.locator('.graph-tools summary', { hasText: 'Export' }).click();
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: item }).click()]);
      return { name: download.suggestedFilename(), data: fs.readFileSync((await download.path())!) };
    };

    const png = await grab('Image (PNG)');
    expect(png.name).toBe('kgrag-graph.png');
    expect(png.data.subarray(1, 4).toString()).toBe('PNG');
    const canvas = (await page.getByTestId('graph-canvas').boundingBox())!;
    expect(png.data.readUInt32BE(16)).toBe(Math.round(canvas.width));
    expect(png.data.readUInt32BE(20)).toBe(Math.round(canvas.height));
    // Coloured nodes were drawn into it (the WebGL layers were read before being cleared).
    expect(await countSaturatedPixels(page, png.data)).toBeGreaterThan(200);

    const graphml = await grab('GraphML');
    expect(graphml.name).toBe('kgrag-graph.graphml');
    const xml = graphml.data.toString('utf8');
    expect(xml).toContain('<graphml xmlns="http://graphml.graphdrawing.org/xmlns">');
    const nodeIds = [...xml.matchAll(/<node id="([^"]+)"/g)].map((m) => m[1]);
    expect(nodeIds.sort()).toEqual([...visible].sort());
    expect(xml).not.toContain(`<data key="type">${hiddenType}</data>`);
    const edgeCount = [...xml.matchAll(/<edge /g)].length;
    expect(edgeCount).toBeGreaterThan(0);

    const nodes = await grab('Nodes (CSV)');
    expect(nodes.name).toBe('kgrag-nodes.csv');
    const nodeRows = nodes.data.toString('utf8').trim().split('\r\n');
    expect(nodeRows[0]).toBe('id,label,entity_type,degree,description,x,y');
    expect(
      nodeRows
        .slice(1)
        .map((r) => r.split(',')[0])
        .sort(),
    ).toEqual([...visible].sort());

    const edges = await grab('Relationships (CSV)');
    expect(edges.name).toBe('kgrag-edges.csv');
    const edgeRows = edges.data.toString('utf8').trim().split('\r\n');
    expect(edgeRows[0]).toBe('id,source,target,relation_type,weight,description,keywords');
    expect(edgeRows.length - 1).toBe(edgeCount);
    for (const row of edgeRows.slice(1)) {
      const [, source, target] = row.split(',');
      expect(visible).toContain(source);
      expect(visible).toContain(target);
    }
    await legend.getByRole('button', { name: 'show all' }).click();
  });

  it('saves a named view on the service and reopens it: start node, depth, type filter, layout and camera', async () => {
    await openGraph('?start=BOB_SMITH');
    await page.getByLabel('Depth').fill('1');
    await page.getByRole('button', { name: 'Load' }).click();
    await page.getByTestId('graph-status').getByText('live').waitFor();
    await page.getByLabel('Layout').selectOption('circular');
    const legend = page.getByLabel('Entity types');
    await legend.getByRole('checkbox').first().uncheck();
    const hiddenType = (await legend.locator('li.off .grow').textContent())!;
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await waitUntil(async () => (await page.evaluate(() => window.kgragExplorer!.cameraRatio())) < 0.7, 5000, 'a zoomed-in camera');
    await page.waitForTimeout(300);
    const ratio = await page.evaluate(() => window.kgragExplorer!.cameraRatio());

    await page.locator('.graph-tools summary', { hasText: 'Views' }).click();
    const menu = page.getByTestId('saved-views');
    await menu.getByLabel('View name').fill('Bob circle');
    await menu.getByRole('button', { name: 'Save view' }).click();
    await menu.getByRole('button', { name: 'Bob circle', exact: true }).waitFor();
    const stored = (await (await app.request('/api/v1/graph/views')).json()) as {
      views: Array<{ name: string; view: Record<string, unknown> }>;
    };
    expect(stored.views).toEqual([
      expect.objectContaining({
        name: 'Bob circle',
        view: expect.objectContaining({ start_node: 'BOB_SMITH', depth: 1, layout: 'circular', hidden_types: [hiddenType] }),
      }),
    ]);

    await openGraph();
    expect(await page.getByLabel('Layout').inputValue()).toBe('force');
    await page.locator('.graph-tools summary', { hasText: 'Views' }).click();
    await page.getByTestId('saved-views').getByRole('button', { name: 'Bob circle', exact: true }).click();
    await page.waitForFunction(() => window.kgragGraphLoad?.settledAt != null || window.kgragExplorer!.layout().converged);
    await page.getByTestId('graph-status').getByText('live').waitFor();
    expect(await page.getByLabel('Start node').inputValue()).toBe('BOB_SMITH');
    expect(await page.getByLabel('Depth').inputValue()).toBe('1');
    expect(await page.getByLabel('Layout').inputValue()).toBe('circular');
    expect(await legend.locator('li.off .grow').allTextContents()).toEqual([hiddenType]);
    await waitUntil(
      async () => Math.abs((await page.evaluate(() => window.kgragExplorer!.cameraRatio())) - ratio) < 1e-6,
      10_000,
      'the saved camera',
    );

    await page.locator('.graph-tools summary', { hasText: 'Views' }).click();
    await page.getByRole('button', { name: 'Delete the view Bob circle' }).click();
    await page.getByTestId('saved-views').getByText('No saved views yet.').waitFor();
    await page.getByLabel('Layout').selectOption('force');
  });

  it('draws the labels of expanded and live-added nodes without overlap', async () => {
    await openGraph('?start=ACME_CORPORATION');
    await page.getByLabel('Depth').fill('0');
    await page.getByRole('button', { name: 'Load' }).click();
    await page.waitForFunction(() => window.kgragExplorer!.graph.order === 1);
    const checkLabels = async (fresh: string[]) => {
      await drawn();
      const boxes = await page.evaluate(() => window.kgragExplorer!.labelBoxes());
      for (let i = 0; i < boxes.length; i++)
        for (let j = i + 1; j < boxes.length; j++)
          expect({ pair: [boxes[i].node, boxes[j].node], overlap: overlaps(boxes[i], boxes[j]) }).toEqual({
            pair: [boxes[i].node, boxes[j].node],
            overlap: false,
          });
      expect(boxes.filter((b) => fresh.includes(b.node)).length).toBeGreaterThan(0);
      return boxes.length;
    };

    // Expanded neighbours start stacked next to the entity: their labels are measured at once and after the layout.
    const panel = page.getByTestId('node-panel');
    await page.getByLabel('Search entities').fill('Acme');
    await page.getByRole('option', { name: /Acme Corporation/ }).click();
    await panel.getByRole('button', { name: /Expand/ }).click();
    await page.waitForFunction(() => window.kgragExplorer!.graph.order > 3);
    const expanded = await page.evaluate(() => window.kgragExplorer!.graph.nodes());
    expect(await checkLabels(expanded)).toBeGreaterThan(1);
    await page.waitForFunction(() => !window.kgragExplorer!.layout().running, undefined, { timeout: 60_000 });
    await checkLabels(expanded);

    // Live additions: a document ingested while the page is open.
    await page.getByLabel('Depth').fill('3');
    await page.getByRole('button', { name: 'Load' }).click();
    await page.getByTestId('graph-status').getByText('live').waitFor();
    const before = await page.evaluate(() => window.kgragExplorer!.graph.nodes());
    const res = await app.request('/api/v1/documents', { method: 'POST', json: { title: 'more.txt', content: MORE } });
    expect(res.status).toBe(201);
    await page.waitForFunction((n) => window.kgragExplorer!.graph.order > n + 2, before.length, { timeout: 60_000 });
    const added = (await page.evaluate(() => window.kgragExplorer!.graph.nodes())).filter((id) => !before.includes(id));
    await checkLabels(added.concat(before));
    // Framed whole, while still marked new: the new nodes' own labels are drawn, still apart.
    await page.getByRole('button', { name: 'Fit' }).click();
    await page.waitForTimeout(600);
    await checkLabels(added);
  });

  it('keeps the tools, view buttons, legend, panels and nav clear of one another on a phone', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, extraHTTPHeaders: app.headers });
    const phone = await context.newPage();
    try {
      for (const query of ['', '?start=BOB_SMITH']) {
        await phone.goto(`${app.url}/graph${query}`);
        await phone.getByTestId('graph-status').getByText('live').waitFor();
        if (query) await phone.getByTestId('node-panel').waitFor();
        const layout = await phone.evaluate(() => {
          const box = (selector: string) => document.querySelector(selector)?.getBoundingClientRect() ?? null;
          const nav = document.querySelector('.topbar nav')!;
          const links = Array.from(document.querySelectorAll('.topbar nav a')).map((a) => a.getBoundingClientRect());
          return {
            controls: box('.graph-controls'),
            legend: box('.legend'),
            tools: box('.graph-tools'),
            panel: box('.panel'),
            stage: box('.graph-stage'),
            navClipped: nav.scrollWidth > nav.clientWidth,
            linksOutside: links.filter((l) => l.right > 390 || l.left < 0).length,
          };
        });
        expect(layout.navClipped).toBe(false);
        expect(layout.linksOutside).toBe(0);
        expect(layout.controls && layout.legend && layout.tools && layout.stage).toBeTruthy();
        expect(overlaps(layout.controls!, layout.legend!)).toBe(false);
        expect(layout.tools!.bottom).toBeLessThanOrEqual(layout.stage!.top);
        expect(layout.tools!.right).toBeLessThanOrEqual(390);
        if (layout.panel) {
          expect(overlaps(layout.controls!, layout.panel)).toBe(false);
          expect(overlaps(layout.legend!, layout.panel)).toBe(false);
        }
      }
      // The sheet folds to its head, giving the canvas back, and unfolds with its content where it was.
      const panel = phone.getByTestId('node-panel');
      const open = (await panel.boundingBox())!;
      await panel.getByRole('button', { name: 'Fold the panel' }).click();
      await panel.getByRole('button', { name: 'Unfold the panel' }).waitFor();
      const folded = await phone.evaluate(() => {
        const box = (selector: string) => {
          const { top, bottom, left, right, width, height } = document.querySelector(selector)!.getBoundingClientRect();
          return { top, bottom, left, right, width, height };
        };
        return { panel: box('.panel'), stage: box('.graph-stage'), controls: box('.graph-controls'), legend: box('.legend') };
      });
      expect(folded.panel.height).toBeLessThan(open.height / 3);
      expect(folded.stage.bottom - folded.panel.top).toBeLessThan(folded.stage.height / 5);
      expect(overlaps(folded.controls, folded.panel)).toBe(false);
      expect(overlaps(folded.legend, folded.panel)).toBe(false);
      const expand = panel.getByRole('button', { name: EXPAND });
      expect(await expand.isVisible()).toBe(false);
      await panel.getByRole('button', { name: 'Unfold the panel' }).click();
      expect(await expand.isVisible()).toBe(true);
    } finally {
      await context.close();
    }
  });

  it('keeps the fold button for narrow screens only', async () => {
    await page.goto(`${app.url}/graph?start=BOB_SMITH`);
    await page.getByTestId('node-panel').waitFor();
    const panel = page.getByTestId('node-panel');
    expect(await panel.getByRole('button', { name: EXPAND }).isVisible()).toBe(true);
    expect(await panel.getByRole('button', { name: 'Fold the panel' }).isVisible()).toBe(false);
  });
});
