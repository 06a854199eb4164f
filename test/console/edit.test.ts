/**
 * Editing the graph from the console, in a real browser against the real service: an entity's panel renames,
 * describes, merges, splits and deletes, each after a dialog that says what it changes, and a second open console
 * sees every change through the graph stream; a viewer is offered none of it. The resolution review queue accepts
 * and rejects candidate pairs; answers and documents open the graph with their entities highlighted; the documents
 * pages show the extraction health the service reports.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { consoleContext, screenshotPath } from '../../scripts/web/browser';
import type { TestApp } from '../helpers/app';
import { type InPage, startConsole, waitUntil, closeConsoleAfterAll } from './page';

declare const window: InPage;
declare const document: {
  activeElement: { closest(selector: string): unknown } | null;
};

const TEAM = [
  'Alice Johnson works with Bob Smith at Acme Corporation in Berlin.',
  'Acme Corporation builds the Falcon Engine, a database technology.',
  'Bob Smith leads the Berlin Research Lab, part of Acme Corporation.',
].join('\n');

interface Detail {
  id: string;
  name: string;
  description: string;
  source_count: number;
  relationships: Array<{ id: string; source: string; target: string }>;
}

describe('graph editing in the console', () => {
  let app: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let other: Page;
  let pageErrors: string[] = [];
  let teamId = '';

  beforeAll(async () => {
    ({ app, browser, context, page, pageErrors } = await startConsole());
    // The console shows the test's workspace (the stats it reads are named by the workspace id).
    await context.addInitScript(`localStorage.setItem('kgrag.workspace', ${JSON.stringify(app.workspace)})`);
    const res = await app.request('/api/v1/documents', { method: 'POST', json: { title: 'team.txt', content: TEAM } });
    expect(res.status).toBe(201);
    teamId = ((await res.json()) as { id: string }).id;
    other = await context.newPage();
    other.on('pageerror', (err) => pageErrors.push(err.message));
  }, 600_000);

  closeConsoleAfterAll(() => ({ app, browser, pageErrors }));

  const detail = async (id: string) => (await (await app.request(`/api/v1/graph/entities/${id}`)).json()) as Detail;
  const openGraph = async (on: Page, query = '') => {
    await on.goto(`${app.url}/graph${query}`);
    await on.getByTestId('graph-status').getByText('live').waitFor();
  };
  const panel = () => page.getByTestId('node-panel');
  const hasNode = (on: Page, id: string) => on.evaluate((node) => window.kgragExplorer!.graph.hasNode(node), id);
  const highlighted = (on: Page) =>
    on.evaluate(() => {
      const { graph, sigma } = window.kgragExplorer!;
      return graph
        .nodes()
        .filter((id) => sigma.getNodeDisplayData(id)?.highlighted)
        .sort();
    });
  const graphNodes = (on: Page) => on.evaluate(() => window.kgragExplorer!.graph.nodes().sort());

  it('opens the graph with a query answer’s entities highlighted, and a chat answer’s', async () => {
    await page.goto(`${app.url}/query`);
    await page.getByLabel('Question').fill('Who works at Acme Corporation?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.locator('[data-testid=answer][data-state=done]').waitFor({ timeout: 60_000 });
    const entities = await page.getByTestId('source-entity').count();
    expect(entities).toBeGreaterThan(1);
    await page.getByTestId('show-in-graph').click();
    await page.getByTestId('graph-status').getByText('live').waitFor();
    const ids = new URL(page.url()).searchParams.get('highlight')!.split(',').sort();
    expect(ids).toHaveLength(entities);
    expect(await page.getByTestId('graph-highlight').innerText()).toContain(`${entities} entities from an answer`);
    // Exactly the answer's entities are loaded, and each is drawn highlighted, with the relationships among them.
    expect(await graphNodes(page)).toEqual(ids);
    await waitUntil(async () => (await highlighted(page)).length === ids.length, 5000, 'the highlight');
    expect(await page.evaluate(() => window.kgragExplorer!.graph.size)).toBeGreaterThan(0);
    await page.screenshot({ path: screenshotPath('console-answer-in-graph') });
    // Back to the whole graph.
    await page.getByRole('button', { name: 'Show the whole graph' }).click();
    await page.getByTestId('graph-highlight').waitFor({ state: 'detached' });
    await waitUntil(async () => (await highlighted(page)).length === 0, 5000, 'no highlight');

    await page.goto(`${app.url}/chat`);
    await page.getByLabel('Message').fill('Who leads the Berlin Research Lab?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByTestId('chat-answer').waitFor({ timeout: 60_000 });
    const chatEntities = await page.getByTestId('source-entity').count();
    await page.getByTestId('show-in-graph').click();
    await page.getByTestId('graph-status').getByText('live').waitFor();
    const chatIds = new URL(page.url()).searchParams.get('highlight')!.split(',').sort();
    expect(chatIds).toHaveLength(chatEntities);
    expect(await graphNodes(page)).toEqual(chatIds);
    await waitUntil(async () => (await highlighted(page)).length === chatIds.length, 5000, 'the highlight');
  }, 120_000);

  it('opens the subgraph of a document from its detail', async () => {
    const lineage = (await (await app.request(`/api/v1/documents/${teamId}/lineage`)).json()) as { entities: Array<{ entity_id: string }> };
    const ids = lineage.entities.map((e) => e.entity_id).sort();
    expect(ids.length).toBeGreaterThan(3);
    await page.goto(`${app.url}/documents/${teamId}`);
    await page.getByTestId('show-subgraph').click();
    await page.getByTestId('graph-status').getByText('live').waitFor();
    expect(await page.getByTestId('graph-highlight').innerText()).toContain('from “team.txt”');
    expect(await graphNodes(page)).toEqual(ids);
    await waitUntil(async () => (await highlighted(page)).length === ids.length, 5000, 'the highlight');
  }, 60_000);

  it('describes, renames, merges, splits and deletes entities, each change reaching a second console', async () => {
    await openGraph(page);
    await openGraph(other);
    const pick = async (name: string) => {
      await page.getByLabel('Search entities').fill(name);
      await page.getByRole('option', { name: new RegExp(name) }).click();
      await panel().getByRole('heading', { level: 2, name }).waitFor();
    };

    // Description: the dialog keeps the focus, and the other console's node takes the new description.
    await pick('Falcon Engine');
    await panel().getByRole('button', { name: 'Edit description…' }).click();
    const describe = page.getByTestId('describe-dialog');
    await describe.getByLabel('Description').fill('A column store engine.');
    expect(await describe.getByTestId('edit-impact').innerText()).toContain('override');
    for (let i = 0; i < 6; i++) await page.keyboard.press('Tab');
    expect(await page.evaluate(() => Boolean(document.activeElement?.closest('[data-testid=describe-dialog]')))).toBe(true);
    await describe.getByRole('button', { name: 'Save' }).click();
    await describe.waitFor({ state: 'detached' });
    await panel().getByText('A column store engine.').waitFor();
    await other.waitForFunction(
      () => window.kgragExplorer!.graph.getNodeAttribute('FALCON_ENGINE', 'description') === 'A column store engine.',
    );

    // Rename: its id follows the name, in both consoles.
    await panel().getByRole('button', { name: 'Rename…' }).click();
    const rename = page.getByTestId('rename-dialog');
    await rename.getByLabel('New name').fill('Falcon Motor');
    await rename.getByTestId('edit-impact').getByText('Renames “Falcon Engine” to “Falcon Motor”').waitFor();
    await rename.getByRole('button', { name: 'Rename', exact: true }).click();
    await rename.waitFor({ state: 'detached' });
    await panel().getByRole('heading', { level: 2, name: 'Falcon Motor' }).waitFor();
    await other.waitForFunction(
      () => window.kgragExplorer!.graph.hasNode('FALCON_MOTOR') && !window.kgragExplorer!.graph.hasNode('FALCON_ENGINE'),
    );

    // Merge: the other entity picked by search; the impact counts what the absorbed entity brings.
    const lab = await detail('BERLIN_RESEARCH_LAB');
    await pick('Bob Smith');
    await panel().getByRole('button', { name: 'Merge…' }).click();
    const merge = page.getByTestId('merge-dialog');
    await merge.getByLabel('Entity to merge with').fill('Berlin Research');
    await merge.getByRole('option', { name: /Berlin Research Lab/ }).click();
    const impact = merge.getByTestId('edit-impact');
    await impact.getByText('Merges').waitFor();
    expect(await impact.innerText()).toContain(
      `Merges ${lab.relationships.length} relationship${lab.relationships.length === 1 ? '' : 's'}, ${lab.source_count} source${lab.source_count === 1 ? '' : 's'} of “Berlin Research Lab” into “Bob Smith”`,
    );
    await page.screenshot({ path: screenshotPath('console-merge-dialog') });
    await merge.getByRole('button', { name: 'Merge', exact: true }).click();
    await merge.waitFor({ state: 'detached' });
    await other.waitForFunction(() => !window.kgragExplorer!.graph.hasNode('BERLIN_RESEARCH_LAB'));
    expect((await app.request('/api/v1/graph/entities/BERLIN_RESEARCH_LAB')).status).toBe(404);

    // Split: the merged alias gets its own entity back.
    await panel().getByRole('button', { name: 'Split alias…' }).click();
    const split = page.getByTestId('split-dialog');
    await split.getByLabel('BERLIN_RESEARCH_LAB').check();
    expect(await split.getByTestId('edit-impact').innerText()).toContain('gets back its own entity');
    await split.getByRole('button', { name: 'Split off' }).click();
    await split.waitFor({ state: 'detached' });
    await other.waitForFunction(() => window.kgragExplorer!.graph.hasNode('BERLIN_RESEARCH_LAB'));

    // Delete: the dialog lists the relationships that go with it.
    const alice = await detail('ALICE_JOHNSON');
    await pick('Alice Johnson');
    await panel().getByRole('button', { name: 'Delete…' }).click();
    const remove = page.getByTestId('delete-entity-dialog');
    expect(await remove.getByTestId('edit-impact').innerText()).toContain(`Deletes ${alice.relationships.length} relationships`);
    expect(await remove.locator('.related-list li').count()).toBe(alice.relationships.length);
    await remove.getByRole('button', { name: 'Delete', exact: true }).click();
    await remove.waitFor({ state: 'detached' });
    await panel().waitFor({ state: 'detached' });
    await other.waitForFunction(() => !window.kgragExplorer!.graph.hasNode('ALICE_JOHNSON'));
    expect(await hasNode(page, 'ALICE_JOHNSON')).toBe(false);
    expect((await app.request('/api/v1/graph/entities/ALICE_JOHNSON')).status).toBe(404);
  }, 180_000);

  it('lists candidate pairs for review with their evidence, and accepts and rejects them', async () => {
    for (const [name, type] of [
      ['Acme Corp', 'ORGANIZATION'],
      ['Bob Smiths', 'PERSON'],
    ]) {
      expect((await app.request('/api/v1/graph/entities', { method: 'POST', json: { name, entity_type: type } })).status).toBe(201);
    }
    await page.goto(`${app.url}/graph`);
    await page.getByRole('link', { name: 'Review' }).click();
    const rows = page.getByTestId('review-row');
    const acme = rows.filter({ hasText: 'Acme Corp' });
    const bob = rows.filter({ hasText: 'Bob Smiths' });
    await acme.waitFor();
    await bob.waitFor();
    expect(await acme.innerText()).toContain('Acme Corporation');
    expect(await acme.innerText()).toMatch(/name 1\.00 · embedding \d\.\d\d/);
    await page.screenshot({ path: screenshotPath('console-review') });

    await bob.getByRole('button', { name: 'Reject' }).click();
    await bob.waitFor({ state: 'detached' });
    await page.getByText(/Rejected: “Bob Smiths?” and “Bob Smiths?” stay apart\./).waitFor();
    // The service keeps the pair apart: another visit (or browser) does not see it again.
    await page.reload();
    await acme.waitFor();
    expect(await bob.count()).toBe(0);
    const dry = await app.request('/api/v1/graph/resolution/dry-run', { method: 'POST', json: { entity_ids: ['BOB_SMITHS'] } });
    expect(((await dry.json()) as { proposals: unknown[] }).proposals).toEqual([]);

    await acme.getByRole('button', { name: 'Accept' }).click();
    await page.getByText('Merged “Acme Corp” into “Acme Corporation”.').waitFor();
    await acme.waitFor({ state: 'detached' });
    expect((await app.request('/api/v1/graph/entities/ACME_CORP')).status).toBe(404);
    expect((await app.request('/api/v1/graph/entities/BOB_SMITHS')).status).toBe(200);
  }, 120_000);

  it('shows the workspace’s extraction health on the documents page and the model’s on the detail', async () => {
    const res = await app.request('/api/v1/documents', {
      method: 'POST',
      json: { content: 'the rain fell all day and the river rose slowly over the fields.', title: 'rain notes' },
    });
    const { id } = (await res.json()) as { id: string };
    const stats = (await (await app.request(`/api/v1/workspaces/${app.workspace}/stats`)).json()) as {
      extraction: { documents_with_warnings: number; records_kept: number; records_parsed: number };
    };
    await page.goto(`${app.url}/documents`);
    const summary = page.getByTestId('extraction-summary');
    await summary.waitFor();
    const text = await summary.innerText();
    expect(text).toContain(`${stats.extraction.documents_with_warnings} document with warnings`);
    expect(text).toContain(`${stats.extraction.records_kept} of ${stats.extraction.records_parsed} records kept`);
    const metadata = (await (await app.request(`/api/v1/documents/${id}/metadata`)).json()) as { llm_model: string };
    await page.goto(`${app.url}/documents/${id}`);
    const card = page.getByTestId('extraction-health');
    await card.locator('li[data-code=no_entities]').waitFor();
    expect(await card.innerText()).toContain(`Model\n${metadata.llm_model}`);
  }, 60_000);

  it('offers no edit to a viewer', async () => {
    const key = await app.createApiKey({ role: 'viewer' });
    const viewer = await consoleContext(browser, { 'X-API-Key': key, 'X-Workspace-ID': app.workspace });
    try {
      const seen = await viewer.newPage();
      await seen.goto(`${app.url}/graph?start=BOB_SMITH`);
      await seen.getByTestId('node-panel').getByTestId('provenance').waitFor();
      expect(await seen.getByTestId('entity-actions').count()).toBe(0);
      await seen.goto(`${app.url}/review`);
      await seen.getByTestId('review-needs-editor').waitFor();
      expect(await seen.getByTestId('review-row').count()).toBe(0);
    } finally {
      await viewer.close();
    }
    // The same panel offers the edits to an editor.
    await openGraph(page, '?start=BOB_SMITH');
    await panel().getByTestId('entity-actions').waitFor();
  }, 60_000);
});
