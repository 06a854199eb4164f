/**
 * The console as an analyst walks it, in a real browser against the real service: loading a start node frames the
 * new view, empty and failed states say what happened, answers render Markdown safely with linked citations,
 * dialogs keep the focus, entity chips lead to the graph, chat lists its sources, and phones get a usable layout.
 */
import type { Browser, Page } from 'playwright-core';
import type { TestApp } from '../helpers/app';
import { screenshotPath } from '../../scripts/web/browser';
import { type InPage, startConsole, waitUntil, closeConsoleAfterAll } from './page';

declare const window: InPage & { kgragInjected?: number };
declare const getComputedStyle: (element: unknown) => { backgroundColor: string };
declare const document: {
  activeElement: { closest(selector: string): unknown } | null;
  documentElement: { scrollWidth: number };
  querySelector(selector: string): {
    classList: { contains(name: string): boolean };
    getBoundingClientRect(): { left: number; right: number; top: number; bottom: number };
  } | null;
};

declare const requestAnimationFrame: (callback: () => void) => number;

const TEAM = [
  'Alice Johnson works with Bob Smith at Acme Corporation in Berlin.',
  'Acme Corporation builds the Falcon Engine, a database technology.',
  'Bob Smith leads the Berlin Research Lab, part of Acme Corporation.',
].join('\n');
// Sentences a model could echo: Markdown emphasis and raw HTML that must reach the page as text.
const PROFILE = [
  'Carol White is the **chief engineer** of Globex Labs in Paris.',
  'Carol White signs her notes with <img src="x" onerror="window.kgragInjected = 1"> and a smile.',
].join('\n');

interface Doc {
  id: string;
  title: string;
}

describe('the console for an analyst', () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];
  const docs: Record<string, Doc> = {};

  beforeAll(async () => {
    // Answers stream 40 ms a fragment, so that a generation takes seconds (its duration reads in seconds).
    ({ app, browser, page, pageErrors } = await startConsole({ SERVICE_MOCK_TOKEN_DELAY_MS: '40' }));
    for (const [title, content] of [
      ['team.txt', TEAM],
      ['profile.md', PROFILE],
    ]) {
      const res = await app.request('/api/v1/documents', { method: 'POST', json: { title, content } });
      expect(res.status).toBe(201);
      docs[title] = (await res.json()) as Doc;
    }
  }, 600_000);

  closeConsoleAfterAll(() => ({ app, browser, pageErrors }));

  const openGraph = async (query = '') => {
    await page.goto(`${app.url}/graph${query}`);
    await page.getByTestId('graph-status').getByText('live').waitFor();
  };
  const panel = () => page.getByTestId('node-panel');
  const ratio = () => page.evaluate(() => window.kgragExplorer!.cameraRatio());

  it('loads a start node unselected and framed whole after a zoomed-in selection, and offers zoom, fit and reset', async () => {
    await openGraph();
    const zoomIn = page.getByRole('button', { name: 'Zoom in' });
    for (let i = 0; i < 3; i++) await zoomIn.click();
    await waitUntil(async () => (await ratio()) < 0.4, 5000, 'a zoomed-in camera');
    await page.getByLabel('Search entities').fill('Alice');
    await page.getByRole('option', { name: /Alice Johnson/ }).click();
    await panel().getByRole('heading', { level: 2, name: 'Alice Johnson' }).waitFor();

    await page.getByLabel('Start node').fill('Carol White');
    await page.getByRole('button', { name: 'Load' }).click();
    await page.waitForFunction(
      () => window.kgragExplorer!.graph.hasNode('CAROL_WHITE') && !window.kgragExplorer!.graph.hasNode('BOB_SMITH'),
    );
    await page.getByTestId('graph-status').getByText('live').waitFor();
    await panel().waitFor({ state: 'detached' });
    await waitUntil(async () => (await ratio()) === 1, 5000, 'the camera reset');
    await page.waitForFunction(() => !window.kgragExplorer!.layout().running, undefined, { timeout: 60_000 });
    // Every node of the new view is drawn inside the canvas.
    const box = (await page.getByTestId('graph-canvas').boundingBox())!;
    // The frame that draws the final positions.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(null)))));
    for (const id of ['CAROL_WHITE', 'GLOBEX_LABS']) {
      const at = (await page.evaluate((node) => window.kgragExplorer!.nodePagePosition(node), id))!;
      expect(at.x).toBeGreaterThan(box.x);
      expect(at.x).toBeLessThan(box.x + box.width);
      expect(at.y).toBeGreaterThan(box.y);
      expect(at.y).toBeLessThan(box.y + box.height);
    }
    // The outermost nodes keep room for their labels at the canvas edge.
    const margin = await page.evaluate(() => {
      const explorer = window.kgragExplorer!;
      const canvas = document.querySelector('[data-testid=graph-canvas]')!.getBoundingClientRect();
      let least = Infinity;
      for (const id of ['CAROL_WHITE', 'GLOBEX_LABS', 'PARIS']) {
        const at = explorer.nodePagePosition(id)!;
        least = Math.min(least, at.x - canvas.left, canvas.right - at.x, at.y - canvas.top, canvas.bottom - at.y);
      }
      return least;
    });
    expect(margin).toBeGreaterThanOrEqual(55);
    await page.screenshot({ path: screenshotPath('console-graph-start-node') });

    await page.getByRole('button', { name: 'Zoom out' }).click();
    await waitUntil(async () => (await ratio()) > 1, 5000, 'a zoomed-out camera');
    await page.getByRole('button', { name: 'Fit' }).click();
    await waitUntil(async () => (await ratio()) <= 1, 5000, 'a fitted camera');
    await zoomIn.click();
    await page.getByRole('button', { name: 'Reset' }).click();
    await waitUntil(async () => (await ratio()) === 1, 5000, 'the camera reset');
  }, 120_000);

  it('tells an unknown start node, an unreachable service and a down health check apart from an empty graph', async () => {
    await page.goto(`${app.url}/graph?start=${encodeURIComponent('Nobody Atall')}`);
    const empty = page.getByTestId('graph-empty');
    await empty.waitFor();
    expect(await empty.getAttribute('data-reason')).toBe('unknown-start');
    expect(await empty.innerText()).toContain('No entity matches “Nobody Atall”');
    expect(await page.getByText('The graph is empty').count()).toBe(0);

    await page.route('**/api/v1/graph/stream**', (route) => route.abort('connectionrefused'));
    await page.goto(`${app.url}/graph`);
    await page.locator('[data-testid=graph-empty][data-reason=unreachable]').waitFor();
    expect(await page.getByTestId('graph-empty').innerText()).toContain('could not be reached');
    await page.unroute('**/api/v1/graph/stream**');

    // A 404 names neither the workspace nor the document's internal id.
    const missing = '0b7c4a52-5d1e-4c4f-9a8e-3f4c5d6e7f80';
    await page.goto(`${app.url}/documents/${missing}`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const text = await alert.innerText();
    expect(text).toContain('404');
    expect(text).not.toContain(missing);
    expect(text).not.toContain(app.workspace);

    // The header's dot follows the service: it turns red when /health stops answering.
    const dot = page.getByTestId('health-dot');
    expect(await dot.getAttribute('class')).toContain('healthy');
    await page.route('**/health', (route) => route.abort('connectionrefused'));
    await page.waitForFunction(() => document.querySelector('[data-testid=health-dot]')?.classList.contains('unreachable'), undefined, {
      timeout: 30_000,
    });
    await page.unroute('**/health');
  }, 90_000);

  it('keeps the focus in a modal dialog, closes it with Esc, then closes the entity panel with Esc', async () => {
    await openGraph(`?start=ALICE_JOHNSON`);
    await panel().getByRole('heading', { level: 2, name: 'Alice Johnson' }).waitFor();
    await panel().getByTestId('provenance').locator('.source-chunk').first().click();
    const dialog = page.getByTestId('chunk-dialog');
    await dialog.locator('.line').first().waitFor();
    expect(await dialog.getAttribute('aria-modal')).toBe('true');
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => Boolean(document.activeElement?.closest('[data-testid=chunk-dialog]')))).toBe(true);
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await panel().count()).toBe(1);
    await page.keyboard.press('Escape');
    await panel().waitFor({ state: 'detached' });
  }, 60_000);

  it('opens a relationship from the entity panel with its evidence sentences and chunk', async () => {
    await openGraph('?start=BOB_SMITH');
    await panel().getByRole('heading', { level: 2, name: 'Bob Smith' }).waitFor();
    await panel().getByRole('button', { name: 'Evidence for Alice Johnson' }).click();
    const edgePanel = page.getByTestId('edge-panel');
    await edgePanel.getByRole('heading', { level: 2 }).filter({ hasText: 'Alice Johnson' }).filter({ hasText: 'Bob Smith' }).waitFor();
    expect(await panel().count()).toBe(0);
    const evidence = edgePanel.getByTestId('edge-evidence');
    await evidence.waitFor();
    expect(await evidence.innerText()).toContain('Alice Johnson works with Bob Smith at Acme Corporation in Berlin.');
    expect(await evidence.innerText()).toContain('team.txt');
    await page.screenshot({ path: screenshotPath('console-graph-edge') });
    await evidence.locator('.source-chunk').first().click();
    await page.getByTestId('chunk-dialog').locator('.line.hit').first().waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('chunk-dialog').waitFor({ state: 'detached' });
    await page.keyboard.press('Escape');
    await edgePanel.waitFor({ state: 'detached' });
  }, 90_000);

  it('links the entity chips of the chunk dialog and of a document lineage to the graph', async () => {
    await page.goto(`${app.url}/documents/${docs['team.txt'].id}`);
    const chip = page.locator('.lineage-chunk .chips a', { hasText: 'Bob Smith' });
    await chip.click();
    await panel().getByRole('heading', { level: 2, name: 'Bob Smith' }).waitFor();
    expect(new URL(page.url()).searchParams.get('start')).toBe('BOB_SMITH');

    await panel().getByTestId('provenance').locator('.source-chunk').first().click();
    const dialog = page.getByTestId('chunk-dialog');
    await dialog.locator('.chips a', { hasText: 'Acme Corporation' }).click();
    await dialog.waitFor({ state: 'detached' });
    await panel().getByRole('heading', { level: 2, name: 'Acme Corporation' }).waitFor();
  }, 60_000);

  it('renders a Markdown answer with its raw HTML as text, links its citations, names entity sources, and reads durations', async () => {
    await page.goto(`${app.url}/query`);
    await page.getByLabel('Question').fill('Who is Carol White?');
    await page.getByRole('button', { name: 'Ask' }).click();
    const answer = page.locator('[data-testid=answer][data-state=done]');
    await answer.waitFor({ timeout: 60_000 });
    expect(await answer.locator('strong', { hasText: 'chief engineer' }).count()).toBeGreaterThan(0);
    expect(await answer.innerText()).not.toContain('**');
    expect(await answer.locator('img').count()).toBe(0);
    expect(await answer.innerText()).toContain('<img src="x"');
    expect(await page.evaluate(() => window.kgragInjected)).toBeUndefined();

    const entity = page.getByTestId('source-entity').locator('strong', { hasText: /^Carol White$/ });
    expect(await entity.count()).toBe(1);
    expect(await page.getByTestId('sources').innerText()).not.toContain('CAROL_WHITE');

    const stats = await page.getByTestId('stats').innerText();
    expect(stats).not.toMatch(/\d{4,} ms/);
    expect(stats).toMatch(/generation \d+(\.\d)? s/);

    await page.screenshot({ path: screenshotPath('console-query-markdown') });
    // A citation links to its source: a chunk opens in place, an entity in the graph.
    const cite = answer.locator('a.cite').first();
    const reference = await cite.getAttribute('data-cite');
    expect(await cite.getAttribute('href')).toBe(`#source-${reference}`);
    const source = page.locator(`#source-${reference}`);
    const isChunk = (await source.getByTestId('source-chunk').count()) > 0;
    await cite.click();
    if (isChunk) {
      await page.getByTestId('chunk-dialog').locator('.line').first().waitFor();
      await page.keyboard.press('Escape');
    } else {
      await panel().waitFor();
      expect(new URL(page.url()).searchParams.get('start')).toBeTruthy();
    }
  }, 120_000);

  it('lists the sources of a chat answer, counts its messages, and deletes a conversation only once confirmed', async () => {
    await page.goto(`${app.url}/chat`);
    await page.getByLabel('Message').fill('Who is Carol White?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByTestId('chat-answer').waitFor({ timeout: 60_000 });
    const sources = page.locator('.chat-sources [data-testid=sources]');
    await sources.getByTestId('source-chunk').first().waitFor();
    expect(await sources.innerText()).toContain('profile.md');
    await page.locator('.conversations li', { hasText: '2 messages' }).waitFor();
    await page.screenshot({ path: screenshotPath('console-chat-sources') });

    const remove = page.getByRole('button', { name: /^Delete the conversation/ });
    await remove.click();
    const confirm = page.getByTestId('delete-conversation');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(await page.locator('.conversations li').count()).toBe(1);
    await remove.click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await page.locator('.conversations li').first().waitFor({ state: 'detached' });
    const list = (await (await app.request('/api/v1/conversations')).json()) as { conversations: unknown[] };
    expect(list.conversations).toEqual([]);
  }, 120_000);

  it('lists tasks by document title and shows an upload as completed once its document is', async () => {
    await page.goto(`${app.url}/documents`);
    await page
      .getByTestId('file-input')
      .setInputFiles({ name: 'lab.txt', mimeType: 'text/plain', buffer: Buffer.from('Dana Lee runs the Oslo Lab.') });
    const outcome = page.getByTestId('upload-outcomes').locator('li', { hasText: 'lab.txt' });
    await outcome.waitFor();
    await page.locator('[data-testid=document-row][data-status=completed]', { hasText: 'lab.txt' }).waitFor({ timeout: 60_000 });
    await page.getByTestId('upload-outcomes').locator('li[data-status=completed]', { hasText: 'lab.txt' }).waitFor({ timeout: 5000 });

    await page.goto(`${app.url}/tasks`);
    const row = page.getByTestId('task-row').filter({ hasText: 'lab.txt' });
    await row.waitFor();
    expect(await row.getByRole('progressbar').getAttribute('aria-label')).toBe('Progress of lab.txt');
  }, 90_000);

  it('fits a phone screen: no page wider than 390 px, and the entity panel inside the screen', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, extraHTTPHeaders: app.headers });
    const small = await phone.newPage();
    small.on('pageerror', (err) => pageErrors.push(err.message));
    try {
      for (const route of [
        '/graph',
        '/query',
        '/chat',
        '/documents',
        `/documents/${docs['team.txt'].id}`,
        '/tasks',
        '/workspace',
        '/costs',
      ]) {
        await small.goto(`${app.url}${route}`);
        await small.locator('h1').first().waitFor({ state: 'attached' });
        await small.locator('.spinner').first().waitFor({ state: 'detached', timeout: 15_000 });
        const width = await small.evaluate(() => document.documentElement.scrollWidth);
        expect({ route, width }).toEqual({ route, width: 390 });
      }
      await small.goto(`${app.url}/graph?start=BOB_SMITH`);
      const sheet = small.getByTestId('node-panel');
      await sheet.getByRole('heading', { level: 2, name: 'Bob Smith' }).waitFor();
      const box = (await sheet.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      expect(box.y + box.height).toBeLessThanOrEqual(844);
      await small.screenshot({ path: screenshotPath('console-phone-graph') });
      await sheet.getByRole('button', { name: 'Close' }).click();
      await sheet.waitFor({ state: 'detached' });
    } finally {
      await phone.close();
    }
  }, 120_000);

  it('follows the system colour scheme and keeps the theme picked in the header', async () => {
    const background = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${app.url}/documents`);
    await page.getByTestId('documents-table').waitFor();
    expect(await background()).toBe('rgb(18, 21, 28)');
    await page.getByLabel('Colour theme').selectOption('light');
    expect(await background()).toBe('rgb(245, 246, 248)');
    await page.reload();
    await page.getByTestId('documents-table').waitFor();
    expect(await background()).toBe('rgb(245, 246, 248)');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByLabel('Colour theme').selectOption('dark');
    expect(await background()).toBe('rgb(18, 21, 28)');
    await page.screenshot({ path: screenshotPath('console-dark') });
    await page.getByLabel('Colour theme').selectOption('system');
    expect(await background()).toBe('rgb(245, 246, 248)');
  }, 60_000);
});
