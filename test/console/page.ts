import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type ExplorerGlobals, consoleContext, launchChromium } from '../../scripts/web/browser';
import { type TestApp, startTestApp } from '../helpers/app';

const ROOT = path.resolve(__dirname, '../..');

/** The page's globals as the tests read them inside `page.evaluate`. */
export type InPage = ExplorerGlobals;

export interface DroppedFile {
  name: string;
  type: string;
  data: Buffer;
}

/** Drops files on an element the way a user's drag and drop does: a `drop` event carrying a DataTransfer. */
export async function dropFiles(page: Page, selector: string, files: DroppedFile[]): Promise<void> {
  const payload = files.map((f) => ({ name: f.name, type: f.type, base64: f.data.toString('base64') }));
  const dataTransfer = await page.evaluateHandle(`(() => {
    const transfer = new DataTransfer();
    for (const f of ${JSON.stringify(payload)}) {
      const bytes = Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0));
      transfer.items.add(new File([bytes], f.name, { type: f.type }));
    }
    return transfer;
  })()`);
  await page.dispatchEvent(selector, 'dragover', { dataTransfer });
  await page.dispatchEvent(selector, 'drop', { dataTransfer });
}

/** Pixels of a PNG whose colour is saturated (the node palette), counted in the page's own image decoder. */
export async function countSaturatedPixels(page: Page, png: Buffer): Promise<number> {
  return (await page.evaluate(`(async () => {
    const image = new Image();
    image.src = 'data:image/png;base64,${png.toString('base64')}';
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
    let count = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (Math.max(data[i], data[i + 1], data[i + 2]) - Math.min(data[i], data[i + 1], data[i + 2]) > 60) count++;
    }
    return count;
  })()`)) as number;
}

/** Polls until the condition holds (or fails after `timeoutMs`). */
export async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 30_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Builds the console (web/dist) unless it is up to date; every browser test file starts with it. */
export function buildConsole(): void {
  const build = spawnSync('node', ['scripts/web/console.mjs', 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`console build failed:\n${build.stderr}`);
}

/** The console built, the real service started with `env`, and a desktop-sized page whose script errors are kept. */
export async function startConsole(env: Record<string, string> = {}): Promise<ConsoleSession> {
  buildConsole();
  const app = await startTestApp(env);
  const browser = await launchChromium();
  const context = await consoleContext(browser, app.headers);
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  return { app, browser, context, page, pageErrors };
}

/**
 * Registers a test file's teardown of its console session, and fails each test after which the page reported a
 * script error. `session` reads the file's variables as they are when the hooks run.
 */
export function closeConsoleAfterAll(session: () => Partial<Pick<ConsoleSession, 'app' | 'browser' | 'pageErrors'>>): void {
  afterAll(async () => {
    await session().browser?.close();
    await session().app?.close();
  });
  afterEach(() => {
    expect(session().pageErrors ?? []).toEqual([]);
  });
}

export interface ConsoleSession {
  app: TestApp;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  pageErrors: string[];
}
