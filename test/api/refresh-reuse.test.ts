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
});
