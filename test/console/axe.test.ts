/**
 * Accessibility of every console page, checked by axe-core in a real browser at a desktop (1440×900) and a phone
 * (390×844) size, and in the dark theme: no critical and no serious violation, on the pages as they load and with
 * their panels and dialogs open.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { type TestApp, startTestApp } from '../helpers/app';
import { launchChromium } from '../../scripts/web/browser';
import { buildConsole } from './page';

// Evaluated in the page over the DevTools protocol, which the page's Content-Security-Policy does not apply to.
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

declare const axe: { run(context: unknown, options: unknown): Promise<{ violations: Violation[] }> };
declare const document: unknown;

/** The serious and critical violations on the page as it is now, with the elements they concern. */
async function severeViolations(page: Page): Promise<Array<{ rule: string; impact: string | null; help: string; targets: string[] }>> {
  await page.evaluate(AXE);
  const { violations } = await page.evaluate(() => axe.run(document, { resultTypes: ['violations'] }));
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ rule: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
}

describe('console accessibility (axe-core)', () => {
  let app: TestApp;
  let browser: Browser;
  let documentId = '';

  beforeAll(async () => {
    buildConsole();
    app = await startTestApp();
    const res = await app.request('/api/v1/documents', {
      method: 'POST',
      json: {
        title: 'team.txt',
        content: 'Alice Johnson works with Bob Smith at Acme Corporation in Berlin.\nBob Smith leads the Berlin Research Lab.',
      },
    });
    expect(res.status).toBe(201);
    documentId = ((await res.json()) as { id: string }).id;
    // A likely duplicate, so that the review page lists a pair.
    const duplicate = await app.request('/api/v1/graph/entities', { method: 'POST', json: { name: 'Bob Smiths', entity_type: 'PERSON' } });
    expect(duplicate.status).toBe(201);
    const chat = await app.request('/api/v1/chat/completions', { method: 'POST', json: { message: 'Who is Bob Smith?' } });
    expect(chat.status).toBe(200);
    browser = await launchChromium();
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** Each page (or state of a page) with what shows it is ready. */
  const states: Array<{ name: string; open: (page: Page) => Promise<void> }> = [
    {
      name: 'graph',
      open: async (page) => {
        await page.goto(`${app.url}/graph`);
        await page.getByTestId('graph-status').getByText('live').waitFor();
      },
    },
    {
      name: 'graph with an entity open',
      open: async (page) => {
        await page.goto(`${app.url}/graph?start=BOB_SMITH`);
        await page.getByTestId('node-panel').getByTestId('provenance').waitFor();
      },
    },
    {
      name: 'chunk dialog',
      open: async (page) => {
        await page.getByTestId('provenance').locator('.source-chunk').first().click();
        await page.getByTestId('chunk-dialog').locator('.line').first().waitFor();
      },
    },
    {
      name: 'entity merge dialog',
      open: async (page) => {
        await page.goto(`${app.url}/graph?start=BOB_SMITH`);
        await page.getByTestId('entity-actions').getByRole('button', { name: 'Merge…' }).click();
        const dialog = page.getByTestId('merge-dialog');
        await dialog.getByLabel('Entity to merge with').fill('Acme');
        await dialog.getByRole('option', { name: /Acme Corporation/ }).click();
        await dialog.getByTestId('edit-impact').getByText('Merges').waitFor();
      },
    },
    {
      name: 'entity delete dialog',
      open: async (page) => {
        await page.getByTestId('merge-dialog').getByRole('button', { name: 'Cancel' }).click();
        await page.getByTestId('merge-dialog').waitFor({ state: 'detached' });
        await page.getByTestId('entity-actions').getByRole('button', { name: 'Delete…' }).click();
        await page.getByTestId('delete-entity-dialog').locator('.related-list').waitFor();
      },
    },
    {
      name: 'graph with a highlight',
      open: async (page) => {
        await page.goto(`${app.url}/graph?highlight=BOB_SMITH,ALICE_JOHNSON&from=an%20answer`);
        await page.getByTestId('graph-status').getByText('live').waitFor();
        await page.getByTestId('graph-highlight').waitFor();
      },
    },
    {
      name: 'resolution review',
      open: async (page) => {
        await page.goto(`${app.url}/review`);
        await page.getByTestId('review-row').first().waitFor();
      },
    },
    {
      name: 'graph with a shortest path and the saved views open',
      open: async (page) => {
        await page.goto(`${app.url}/graph`);
        await page.getByTestId('graph-status').getByText('live').waitFor();
        await page.getByRole('button', { name: 'Shortest path' }).click();
        await page.getByTestId('path-panel').getByLabel('From').fill('Alice Johnson');
        await page.getByTestId('path-panel').getByLabel('To').fill('Berlin Research Lab');
        await page.getByRole('button', { name: 'Find path' }).click();
        await page.getByTestId('path-list').waitFor();
        await page.locator('.graph-tools summary', { hasText: 'Views' }).click();
        await page.getByTestId('saved-views').getByText('No saved views yet.').waitFor();
      },
    },
    {
      name: 'graph export menu',
      open: async (page) => {
        await page.locator('.graph-tools summary', { hasText: 'Views' }).click();
        await page.locator('.graph-tools summary', { hasText: 'Export' }).click();
        await page.getByRole('button', { name: 'GraphML' }).waitFor();
      },
    },
    {
      name: 'query with an answer',
      open: async (page) => {
        await page.goto(`${app.url}/query`);
        await page.getByLabel('Question').fill('Who leads the Berlin Research Lab?');
        await page.getByRole('button', { name: 'Ask' }).click();
        await page.locator('[data-testid=answer][data-state=done]').waitFor({ timeout: 60_000 });
      },
    },
    {
      name: 'chat',
      open: async (page) => {
        await page.goto(`${app.url}/chat`);
        await page.locator('.conversations li').first().click();
        await page.getByTestId('chat-answer').waitFor();
      },
    },
    {
      name: 'documents',
      open: async (page) => {
        await page.goto(`${app.url}/documents`);
        await page.getByTestId('documents-table').waitFor();
      },
    },
    {
      name: 'document delete dialog',
      open: async (page) => {
        await page.getByRole('button', { name: 'Delete team.txt' }).click();
        await page.getByTestId('deletion-impact').waitFor();
      },
    },
    {
      name: 'document detail',
      open: async (page) => {
        await page.goto(`${app.url}/documents/${documentId}`);
        await page.locator('.lineage-chunk').first().waitFor();
      },
    },
    {
      name: 'tasks',
      open: async (page) => {
        await page.goto(`${app.url}/tasks`);
        await page.getByTestId('tasks-table').waitFor();
      },
    },
    {
      name: 'workspace',
      open: async (page) => {
        await page.goto(`${app.url}/workspace`);
        await page.locator('.workspace-page h1').waitFor();
        await page.locator('.workspace-page .spinner').waitFor({ state: 'detached' });
      },
    },
    {
      name: 'costs',
      open: async (page) => {
        await page.goto(`${app.url}/costs`);
        await page.locator('.costs-page, [data-testid=not-available]').first().waitFor();
      },
    },
  ];

  for (const { viewport, colorScheme } of [
    { viewport: { width: 1440, height: 900 }, colorScheme: 'light' as const },
    { viewport: { width: 390, height: 844 }, colorScheme: 'light' as const },
    { viewport: { width: 1440, height: 900 }, colorScheme: 'dark' as const },
  ]) {
    it(`finds no serious or critical violation on any page at ${viewport.width}×${viewport.height} in the ${colorScheme} theme`, async () => {
      const context = await browser.newContext({ viewport, colorScheme, extraHTTPHeaders: app.headers });
      const page = await context.newPage();
      const found: Record<string, unknown> = {};
      try {
        for (const state of states) {
          await state.open(page);
          const violations = await severeViolations(page);
          if (violations.length > 0) found[state.name] = violations;
        }
      } finally {
        await context.close();
      }
      expect(found).toEqual({});
    }, 300_000);
  }
});
