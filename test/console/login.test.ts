import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { consoleContext, launchChromium, screenshotPath } from '../../scripts/web/browser';
import { type TestApp, startTestApp } from '../helpers/app';

/**
 * Sign-in in a real browser with authentication on and no credentials sent by the browser itself: a page sends
 * the visitor to /login, a wrong password shows the service's refusal, the right one lands on the page, and its
 * API calls carry the access token.
 */

const ROOT = path.resolve(__dirname, '../..');

describe('web console sign-in', () => {
  let app: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    const build = spawnSync('node', ['scripts/web/console.mjs', 'build'], { cwd: ROOT, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`console build failed:\n${build.stderr}`);
    app = await startTestApp();
    browser = await launchChromium();
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('sends a visitor to the login page, refuses a wrong password, and signs in with the right one', async () => {
    const username = `console-${Math.random().toString(36).slice(2, 8)}`;
    const created = await app.request('/api/v1/users', {
      method: 'POST',
      json: { username, email: `${username}@example.com`, password: 'console password', role: 'editor' },
    });
    expect(created.status).toBe(201);
    const context = await consoleContext(browser, {});
    const page = await context.newPage();
    const authorized: string[] = [];
    page.on('request', (req) => {
      if (req.url().includes('/api/v1/documents') && req.headers().authorization?.startsWith('Bearer ')) authorized.push(req.url());
    });
    await page.goto(`${app.url}/documents`);
    await page.getByLabel('Username').waitFor();
    expect(new URL(page.url()).pathname).toBe('/login');
    expect((await app.request('/api/v1/documents', { headers: { Authorization: 'Bearer nothing' } })).status).toBe(401);

    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('user name or password is wrong').waitFor();
    await page.screenshot({ path: screenshotPath('login-refused') });

    await page.getByLabel('Password').fill('console password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Documents' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/documents');
    await page.getByTestId('dropzone').waitFor();
    expect(authorized.length).toBeGreaterThan(0);
    // The refresh token is out of a script's reach: an httpOnly, SameSite=Strict cookie for /api/v1/auth only.
    const stored = (await page.evaluate('JSON.stringify(Object.assign({}, localStorage))')) as string;
    expect(stored).not.toMatch(/refresh/i);
    const cookies = await context.cookies();
    expect(cookies.map((c) => ({ name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite, path: c.path }))).toEqual([
      { name: 'kgrag_refresh', httpOnly: true, sameSite: 'Strict', path: '/api/v1/auth' },
    ]);
    expect(await page.evaluate('document.cookie')).toBe('');
    // An expired access token is renewed through the cookie alone.
    await page.evaluate(`(() => {
      const session = JSON.parse(localStorage.getItem('kgrag.session'));
      localStorage.setItem('kgrag.session', JSON.stringify({ ...session, expiresAt: 0 }));
    })()`);
    const refreshed = page.waitForResponse((res) => res.url().endsWith('/api/v1/auth/refresh'));
    await page.reload();
    expect((await refreshed).status()).toBe(200);
    await page.getByRole('heading', { name: 'Documents' }).waitFor();
    // Signed in, the header offers the tenant's workspaces.
    await page.goto(`${app.url}/workspace`);
    await page.getByRole('heading', { name: 'Workspace' }).first().waitFor();
    await page.screenshot({ path: screenshotPath('login-signed-in-workspace') });
    await context.close();
  }, 120_000);
});
