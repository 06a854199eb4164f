/**
 * Headless Debian chromium for the console's browser tests and benchmark (playwright-core; no browser download),
 * and the graph explorer measurements both of them print.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';

/** Debian's chromium package; `.ci/run` installs it. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where the browser flows save their screenshots (git-ignored). */
export const SCREENSHOTS = path.resolve(__dirname, '../../build/screenshots');

/** Headless chromium with WebGL through SwiftShader (test machines have no GPU). */
export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium; .ci/run does) or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'],
  });
}

/** A browser context whose every request carries the given headers (the test app's workspace and credentials). */
export function consoleContext(browser: Browser, headers: Record<string, string>): Promise<BrowserContext> {
  return browser.newContext({ viewport: { width: 1440, height: 900 }, extraHTTPHeaders: headers });
}

export function screenshotPath(name: string): string {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  return path.join(SCREENSHOTS, `${name}.png`);
}

export interface ExplorerMeasurement {
  nodes: number;
  edges: number;
  /** From asking for the graph to its first drawn frame. */
  firstRenderMs: number;
  /** From asking to the stream's first event (the server built the view), and the time spent adding it to the graph. */
  serverMs: number;
  insertMs: number;
  /** From asking to the whole snapshot received and added. */
  snapshotMs: number;
  /** From asking for the graph to the layout settling (or reaching its iteration bound). */
  settledMs: number;
  layoutIterations: number;
  layoutConverged: boolean;
  /** Interval between animation frames while panning, and sigma's render time per frame. */
  pan: FrameTimes;
  /** The same while zooming in and out with the mouse wheel. */
  zoom: FrameTimes;
}

export interface FrameTimes {
  frames: number;
  intervalP50: number;
  intervalP95: number;
  intervalMax: number;
  renderP50: number;
  renderP95: number;
  renderedFrames: number;
}

/** What the explorer page exposes to scripts (see web/src/graph/GraphCanvas.tsx and GraphPage.tsx). */
export interface ExplorerGlobals {
  kgragGraphLoad?: LoadTimings;
  kgragExplorer?: {
    layout(): { iterations: number; converged: boolean; running: boolean };
    frames: { start(): void; stop(): FrameTimes };
    nodePagePosition(id: string): { x: number; y: number } | null;
    cameraRatio(): number;
    labelBoxes(): Array<{ node: string; left: number; top: number; right: number; bottom: number }>;
    graph: {
      order: number;
      size: number;
      hasNode(id: string): boolean;
      getNodeAttribute(id: string, name: string): unknown;
      nodes(): string[];
      edge(source: string, target: string): string | undefined;
    };
    sigma: {
      getNodeDisplayData(id: string): { x: number; y: number; color: string; label: string | null; highlighted?: boolean } | undefined;
      getEdgeDisplayData(id: string): { color: string; hidden: boolean } | undefined;
    };
  };
}
// Evaluated in the page, where these are the explorer's globals.
declare const window: ExplorerGlobals;

interface LoadTimings {
  requestedAt: number;
  metadataAt: number | null;
  insertMs: number;
  snapshotAt: number | null;
  firstRenderAt: number | null;
  settledAt: number | null;
  nodes: number;
  edges: number;
}

/**
 * Loads the explorer at `maxNodes`, waits for the first frame and the settled layout, then pans the view with
 * the mouse for `panMs` while counting frames. The page must already be on `/graph`.
 */
export async function measureExplorer(page: Page, maxNodes: number, panMs = 3000): Promise<ExplorerMeasurement> {
  await page.getByLabel('Max nodes').selectOption(String(maxNodes));
  const before = await page.evaluate(() => window.kgragGraphLoad?.requestedAt ?? 0);
  await page.getByRole('button', { name: 'Load' }).click();
  await page.waitForFunction((t) => (window.kgragGraphLoad?.requestedAt ?? 0) > t && window.kgragGraphLoad?.firstRenderAt != null, before, {
    timeout: 120_000,
  });
  await page.waitForFunction(() => window.kgragGraphLoad?.settledAt != null, undefined, { timeout: 300_000, polling: 250 });
  const load = (await page.evaluate(() => window.kgragGraphLoad)) as LoadTimings;
  const layout = (await page.evaluate(() => window.kgragExplorer!.layout())) as { iterations: number; converged: boolean };

  const box = (await page.getByTestId('graph-canvas').boundingBox())!;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  // One continuous drag around a circle, as a user pans: frames are counted while the button is held.
  await page.mouse.move(cx + 150, cy);
  await page.mouse.down();
  await page.evaluate(() => window.kgragExplorer!.frames.start());
  const started = Date.now();
  for (let step = 1; Date.now() - started < panMs; step++) {
    const angle = (step / 40) * 2 * Math.PI;
    await page.mouse.move(cx + 150 * Math.cos(angle), cy + 150 * Math.sin(angle), { steps: 2 });
  }
  const pan = await page.evaluate(() => window.kgragExplorer!.frames.stop());
  await page.mouse.up();
  // Wheel zoom around the centre, in and out in turns, for as long again.
  await page.mouse.move(cx, cy);
  await page.evaluate(() => window.kgragExplorer!.frames.start());
  const zoomStarted = Date.now();
  for (let step = 0; Date.now() - zoomStarted < panMs; step++) {
    await page.mouse.wheel(0, step % 16 < 8 ? -120 : 120);
    await page.waitForTimeout(30);
  }
  const zoom = await page.evaluate(() => window.kgragExplorer!.frames.stop());
  return {
    nodes: load.nodes,
    edges: load.edges,
    firstRenderMs: load.firstRenderAt! - load.requestedAt,
    serverMs: load.metadataAt! - load.requestedAt,
    insertMs: Math.round(load.insertMs),
    snapshotMs: load.snapshotAt! - load.requestedAt,
    settledMs: load.settledAt! - load.requestedAt,
    layoutIterations: layout.iterations,
    layoutConverged: layout.converged,
    pan,
    zoom,
  };
}

export function describeMeasurement(label: string, m: ExplorerMeasurement): string {
  const f = (n: number) => n.toFixed(1);
  return (
    `${label}: ${m.nodes} nodes / ${m.edges} edges; first render ${m.firstRenderMs} ms (first event ${m.serverMs} ms, ` +
    `graph inserts ${m.insertMs} ms, snapshot complete ${m.snapshotMs} ms); layout settled after ${m.settledMs} ms ` +
    `(${m.layoutIterations} iterations, ${m.layoutConverged ? 'converged' : 'iteration bound'}); panning: ${m.pan.frames} frames, ` +
    `frame interval p50 ${f(m.pan.intervalP50)} ms / p95 ${f(m.pan.intervalP95)} ms / max ${f(m.pan.intervalMax)} ms, ` +
    `sigma render p50 ${f(m.pan.renderP50)} ms / p95 ${f(m.pan.renderP95)} ms over ${m.pan.renderedFrames} rendered frames; ` +
    `wheel zoom: ${m.zoom.frames} frames, frame interval p50 ${f(m.zoom.intervalP50)} ms / p95 ${f(m.zoom.intervalP95)} ms, ` +
    `sigma render p50 ${f(m.zoom.renderP50)} ms / p95 ${f(m.zoom.renderP95)} ms over ${m.zoom.renderedFrames} rendered frames`
  );
}
