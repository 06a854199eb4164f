import { json } from '../fixtures/documents';
import { type TestApp, startTestApp } from '../helpers/app';

/**
 * Refresh-token rotation with reuse detection (OAuth 2.0 Security BCP §4.14): a refresh token already exchanged and
 * presented again revokes its whole family, every token rotated from the same sign-in, while other sign-ins of the
 * same user live on.
 */
describe('refresh token reuse', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  const post = (path: string, body: unknown) =>
    fetch(`${app.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const refresh = (token: string) => post('/api/v1/auth/refresh', { refresh_token: token });

  it('revokes every descendant of a rotated token presented again, and no other sign-in', async () => {
    const username = `r${Math.random().toString(36).slice(2, 10)}`;
    const password = 'the password of the user';
    const made = await app.request('/api/v1/users', {
      method: 'POST',
      json: { username, email: `${username}@example.com`, password, role: 'viewer' },
    });
    expect(made.status).toBe(201);
    const first = await json(await post('/api/v1/auth/login', { username, password }));
    const elsewhere = await json(await post('/api/v1/auth/login', { username, password }));

    const second = await json(await refresh(first.refresh_token));
    const third = await json(await refresh(second.refresh_token));
    expect(third.refresh_token).toBeTruthy();

    // The first token, rotated long ago, comes back: a copy was taken.
    expect((await refresh(first.refresh_token)).status).toBe(401);
    expect((await refresh(third.refresh_token)).status).toBe(401);
    expect((await refresh(second.refresh_token)).status).toBe(401);
    expect((await refresh(elsewhere.refresh_token)).status).toBe(200);
  });

  it('exchanges a token once when it is presented twice at the same moment, and treats the other as a reuse', async () => {
    const username = `d${Math.random().toString(36).slice(2, 10)}`;
    const password = 'the password of the user';
    await app.request('/api/v1/users', { method: 'POST', json: { username, email: `${username}@example.com`, password, role: 'viewer' } });
    const session = await json(await post('/api/v1/auth/login', { username, password }));
    const answers = await Promise.all(Array.from({ length: 6 }, () => refresh(session.refresh_token)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 401, 401, 401, 401, 401]);
    // The winner's token belongs to the family the reuse revoked.
    const winner = await json(answers.find((a) => a.status === 200)!);
    expect((await refresh(winner.refresh_token)).status).toBe(401);
  });

  it('sets the refresh token as an httpOnly, SameSite=Strict cookie for /api/v1/auth, and takes it without a body', async () => {
    const username = `c${Math.random().toString(36).slice(2, 10)}`;
    const password = 'the password of the user';
    await app.request('/api/v1/users', { method: 'POST', json: { username, email: `${username}@example.com`, password, role: 'viewer' } });
    const signedIn = await post('/api/v1/auth/login', { username, password });
    const cookie = signedIn.headers.get('set-cookie') ?? '';
    const session = await json(signedIn);
    expect(cookie).toContain(`kgrag_refresh=${session.refresh_token}`);
    expect(cookie).toMatch(/; path=\/api\/v1\/auth/i);
    expect(cookie).toMatch(/; httponly/i);
    expect(cookie).toMatch(/; samesite=strict/i);
    expect(cookie).not.toMatch(/; secure/i); // plain HTTP here; Secure over HTTPS

    const withCookie = (path: string, value: string) =>
      fetch(`${app.url}${path}`, { method: 'POST', headers: { Cookie: `kgrag_refresh=${value}` } });
    const renewed = await withCookie('/api/v1/auth/refresh', session.refresh_token);
    expect(renewed.status).toBe(200);
    const next = await json(renewed);
    expect(renewed.headers.get('set-cookie')).toContain(`kgrag_refresh=${next.refresh_token}`);
    const out = await withCookie('/api/v1/auth/logout', next.refresh_token);
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/kgrag_refresh=;/);
    expect((await refresh(next.refresh_token)).status).toBe(401);
    expect((await fetch(`${app.url}/api/v1/auth/refresh`, { method: 'POST' })).status).toBe(401);
  });
});
