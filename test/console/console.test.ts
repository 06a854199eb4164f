/**
 * The web console in a real browser: headless Debian chromium (WebGL through SwiftShader) driven by playwright-core
 * against the real service on port 0. Every request the browser makes carries the test app's headers. Each flow
 * saves a screenshot under build/screenshots/.
 */
import type { Browser, Page } from 'playwright-core';
import { buildPdf, corruptPdf } from '../fixtures/pdf';
import type { TestApp } from '../helpers/app';
import { screenshotPath } from '../../scripts/web/browser';
import { type InPage, countSaturatedPixels, dropFiles, startConsole, waitUntil, closeConsoleAfterAll } from './page';

declare const window: InPage;

const TEAM = [
  'Alice Johnson works with Bob Smith at Acme Corporation in Berlin.',
  'Acme Corporation builds the Falcon Engine, a database technology.',
  'Bob Smith leads the Berlin Research Lab, part of Acme Corporation.',
].join('\n');
const PARTNERS = ['Carol White joined Globex Labs in Paris.', 'Globex Labs partners with Acme Corporation on the Falcon Engine.'];
const NOTES = '# Notes\n\nDave Brown works with Alice Johnson at Globex Labs in Paris.\n';

interface Doc {
  id: string;
  title: string;
  status: string;
}

describe('web console in a browser', () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];

  beforeAll(async () => {
    // Fragments of mock answers arrive 40 ms apart, so the stream can be watched filling the page.
    ({ app, browser, page, pageErrors } = await startConsole({ SERVICE_MOCK_TOKEN_DELAY_MS: '40' }));
  }, 600_000);

  closeConsoleAfterAll(() => ({ app, browser, pageErrors }));

  const documents = async (): Promise<Doc[]> =>
    ((await (await app.request('/api/v1/documents?limit=100')).json()) as { documents: Doc[] }).documents;

  // Either the server requires no sign-in, or the test app's headers already carry credentials it accepts.
  it('loads the pages without a login for a browser the service accepts, and serves client routes on reload', async () => {
    await page.goto(`${app.url}/documents`);
    await page.getByRole('heading', { name: 'Documents' }).waitFor();
    expect(await page.getByLabel('Username').count()).toBe(0);
    await page.reload();
    await page.getByTestId('dropzone').waitFor();
    expect(new URL(page.url()).pathname).toBe('/documents');
  }, 60_000);

  it('uploads a text file and a PDF by drag and drop and a Markdown file by the picker; all three reach completed in the table', async () => {
    const pdf = await buildPdf([PARTNERS]);
    await page.goto(`${app.url}/documents`);
    await dropFiles(page, '[data-testid=dropzone]', [
      { name: 'team.txt', type: 'text/plain', data: Buffer.from(TEAM) },
      { name: 'partners.pdf', type: 'application/pdf', data: pdf },
    ]);
    await page.getByTestId('upload-outcomes').locator('strong', { hasText: 'partners.pdf' }).waitFor();
    await page.getByTestId('file-input').setInputFiles({ name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from(NOTES) });
    await page.getByTestId('upload-outcomes').locator('strong', { hasText: 'notes.md' }).waitFor();

    const rows = page.getByTestId('document-row');
    const statuses = () => rows.evaluateAll((all: Array<{ dataset: { status?: string } }>) => all.map((row) => row.dataset.status));
    await waitUntil(async () => (await statuses()).join() === 'completed,completed,completed', 90_000, 'three completed rows');
    expect(await rows.count()).toBe(3);
    for (const title of ['team.txt', 'partners.pdf', 'notes.md']) await expect(rows.filter({ hasText: title }).count()).resolves.toBe(1);
    const stored = await documents();
    expect(stored.map((d) => [d.title, d.status]).sort()).toEqual([
      ['notes.md', 'completed'],
      ['partners.pdf', 'completed'],
      ['team.txt', 'completed'],
    ]);
    await page.screenshot({ path: screenshotPath('console-documents') });
  }, 120_000);

  it('shows an API refusal as the problem detail says it', async () => {
    const form = new FormData();
    form.set('file', new Blob([corruptPdf()]), 'broken.pdf');
    const refusal = await app.request('/api/v1/documents/upload', { method: 'POST', body: form });
    expect(refusal.status).toBe(422);
    const problem = (await refusal.json()) as { title: string; detail: string; errors: Array<{ field: string; message: string }> };

    await page.goto(`${app.url}/documents`);
    await page.getByTestId('file-input').setInputFiles({ name: 'broken.pdf', mimeType: 'application/pdf', buffer: corruptPdf() });
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const text = await alert.innerText();
    expect(text).toContain(`${problem.title} (422)`);
    expect(text).toContain(problem.errors[0].message);
    await page.screenshot({ path: screenshotPath('console-upload-refused') });
  }, 60_000);

  it('draws the graph with WebGL, shows as many nodes as /graph, finds an entity, and opens a clicked node with its provenance', async () => {
    const graph = (await (await app.request('/api/v1/graph?max_nodes=1000')).json()) as { nodes: Array<{ id: string }>; edges: unknown[] };
    expect(graph.nodes.length).toBeGreaterThan(5);
    await page.goto(`${app.url}/graph`);
    await page.getByTestId('graph-status').getByText('live').waitFor();
    expect(await page.getByTestId('graph-node-count').innerText()).toBe(String(graph.nodes.length));
    expect(await page.getByTestId('graph-edge-count').innerText()).toBe(String(graph.edges.length));
    await page.waitForFunction(() => !window.kgragExplorer!.layout().running, undefined, { timeout: 60_000 });

    // The WebGL layers alone (labels hidden) hold the nodes' colours. Styles are set on the elements: the page's
    // Content-Security-Policy refuses an injected <style>.
    const labels = (visibility: string) =>
      page.evaluate(`document.querySelectorAll('.sigma-labels, .sigma-hovers').forEach((e) => (e.style.visibility = '${visibility}'))`);
    await labels('hidden');
    const pixels = await countSaturatedPixels(page, await page.getByTestId('graph-canvas').screenshot());
    expect(pixels).toBeGreaterThan(200);
    await labels('visible');

    // A click on the canvas where a node is drawn opens that node (one that no overlay covers).
    const legend = (await page.locator('.legend').boundingBox())!;
    const covered = (p: { x: number; y: number }) => p.x <= legend.x + legend.width + 8 && p.y <= legend.y + legend.height + 8;
    let target: { id: string; name: string; x: number; y: number } | null = null;
    for (const [id, name] of [
      ['BOB_SMITH', 'Bob Smith'],
      ['ALICE_JOHNSON', 'Alice Johnson'],
      ['ACME_CORPORATION', 'Acme Corporation'],
    ]) {
      const position = await page.evaluate((node) => window.kgragExplorer!.nodePagePosition(node), id);
      if (position && !covered(position)) {
        target = { id, name, ...position };
        break;
      }
    }
    expect(target).not.toBeNull();
    await page.mouse.click(target!.x, target!.y);
    const panel = page.getByTestId('node-panel');
    await panel.getByRole('heading', { level: 2, name: target!.name }).waitFor();
    const provenance = panel.getByTestId('provenance');
    await provenance.getByText('team.txt').waitFor();
    await expect(provenance.getByText(/lines 1–3/).count()).resolves.toBeGreaterThan(0);
    await page.screenshot({ path: screenshotPath('console-graph') });

    await provenance.locator('.source-chunk').first().click();
    const dialog = page.getByTestId('chunk-dialog');
    await dialog.getByText('Bob Smith leads the Berlin Research Lab').waitFor();
    await page.screenshot({ path: screenshotPath('console-provenance-chunk') });
    await page.keyboard.press('Escape');
    await panel.getByRole('button', { name: 'Close' }).click();

    // Search by name with suggestions; picking one selects its node.
    await page.getByLabel('Search entities').fill('Alice');
    await page.getByRole('option', { name: /Alice Johnson/ }).click();
    await panel.getByRole('heading', { level: 2, name: 'Alice Johnson' }).waitFor();
    await page.screenshot({ path: screenshotPath('console-graph-search') });
  }, 120_000);

  it('adds and highlights the nodes of a document while it is ingested', async () => {
    await page.goto(`${app.url}/graph`);
    await page.getByTestId('graph-status').getByText('live').waitFor();
    expect(await page.evaluate(() => window.kgragExplorer!.graph.hasNode('ZOE_QUINN'))).toBe(false);
    const before = Number(await page.getByTestId('graph-node-count').innerText());
    const created = await app.request('/api/v1/documents', {
      method: 'POST',
      json: { title: 'Nimbus', content: 'Zoe Quinn founded Nimbus Robotics in Oslo. Zoe Quinn works with Alice Johnson.' },
    });
    expect(created.status).toBe(201);
    await page.waitForFunction(() => window.kgragExplorer!.graph.hasNode('ZOE_QUINN'), undefined, { timeout: 30_000 });
    const fresh = await page.evaluate(
      () => (window.kgragExplorer!.graph.getNodeAttribute('ZOE_QUINN', 'freshUntil') as number) > Date.now(),
    );
    expect(fresh).toBe(true);
    await waitUntil(async () => Number(await page.getByTestId('graph-node-count').innerText()) > before, 10_000, 'a larger node count');
    await page.screenshot({ path: screenshotPath('console-graph-live') });
  }, 60_000);

  it('streams an answer into the page token by token, lists its sources, and opens a cited chunk', async () => {
    await page.goto(`${app.url}/query`);
    await page.getByLabel('Question').fill('Who does Alice Johnson work with?');
    await page.getByRole('button', { name: 'Ask' }).click();
    const answer = page.getByTestId('answer');
    // One read of text, state and token count, taken while the answer is still streaming.
    const read = () =>
      answer.evaluate((el: { textContent: string | null; dataset: { state?: string; tokens?: string } }) => ({
        text: el.textContent ?? '',
        state: el.dataset.state,
        tokens: Number(el.dataset.tokens),
      }));
    let partial = { text: '', state: '', tokens: 0 } as Awaited<ReturnType<typeof read>>;
    await waitUntil(
      async () => {
        partial = await read();
        return partial.state === 'streaming' && partial.tokens >= 2;
      },
      30_000,
      'a partly streamed answer',
    );
    await page.locator('[data-testid=answer][data-state=done]').waitFor({ timeout: 60_000 });
    const final = await read();
    expect(partial.text.length).toBeGreaterThan(0);
    // The beginning seen while streaming is the beginning of the whole answer.
    expect(final.text.slice(0, 12)).toBe(partial.text.slice(0, 12));
    expect(final.text.length).toBeGreaterThan(partial.text.length);
    expect(final.tokens).toBeGreaterThan(partial.tokens);
    await page.getByTestId('stats').waitFor();

    const sources = page.getByTestId('source-chunk');
    expect(await sources.count()).toBeGreaterThan(0);
    await page.screenshot({ path: screenshotPath('console-query') });
    await sources.first().click();
    await page.getByTestId('chunk-dialog').locator('.line').first().waitFor();
    await page.keyboard.press('Escape');
  }, 120_000);

  it('deletes a document after showing the deletion impact the API computes', async () => {
    const notes = (await documents()).find((d) => d.title === 'notes.md')!;
    const impact = (await (await app.request(`/api/v1/documents/${notes.id}/deletion-impact`)).json()) as {
      entities_to_delete: number;
      entities_to_update: number;
    };
    await page.goto(`${app.url}/documents`);
    await page.getByRole('button', { name: 'Delete notes.md' }).click();
    const dialog = page.getByTestId('delete-dialog');
    const table = dialog.getByTestId('deletion-impact');
    await table.waitFor();
    const entities = await table.locator('tr').first().innerText();
    expect(entities).toContain(`${impact.entities_to_delete} deleted`);
    expect(entities).toContain(`${impact.entities_to_update} rewritten`);
    await page.screenshot({ path: screenshotPath('console-delete-impact') });
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByTestId('document-row').filter({ hasText: 'notes.md' }).waitFor({ state: 'detached' });
    expect((await app.request(`/api/v1/documents/${notes.id}`)).status).toBe(404);
  }, 60_000);

  it('shows the pipeline and the tasks of the uploads', async () => {
    await page.goto(`${app.url}/tasks`);
    const table = page.getByTestId('tasks-table');
    await table.waitFor();
    const tasks = (await (await app.request('/api/v1/tasks')).json()) as { total: number };
    expect(await table.locator('tbody tr').count()).toBe(tasks.total);
    await page.screenshot({ path: screenshotPath('console-tasks') });
  }, 60_000);

  it('marks a document whose extraction has warnings in the list, and shows its extraction health in the detail', async () => {
    const res = await app.request('/api/v1/documents', {
      method: 'POST',
      json: { content: 'the rain fell all day and the river rose slowly over the fields.', title: 'rain notes' },
    });
    const { id } = (await res.json()) as { id: string };
    await page.goto(`${app.url}/documents`);
    const row = page.getByTestId('document-row').filter({ hasText: 'rain notes' });
    await row.getByTestId('document-warnings').waitFor();
    expect(await row.getByTestId('document-warnings').innerText()).toBe('1 warning');
    await page.goto(`${app.url}/documents/${encodeURIComponent(id)}`);
    const card = page.getByTestId('extraction-health');
    await card.locator('li[data-code=no_entities]').waitFor();
    expect(await card.innerText()).toContain('0 kept of 0 written');
    await page.screenshot({ path: screenshotPath('console-extraction-health') });
  }, 60_000);

  it('shows the costs page when the server reports costs, and says it is not available otherwise', async () => {
    const summary = await app.request('/api/v1/costs/summary');
    await page.goto(`${app.url}/costs`);
    if (summary.status === 200) await page.getByText('Total this period').waitFor();
    else await page.getByTestId('not-available').getByText('Cost accounting not available').waitFor();
    await page.screenshot({ path: screenshotPath('console-costs') });
  }, 60_000);
});
