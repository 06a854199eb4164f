import { json } from '../fixtures/documents';
import { type TestApp, startTestApp } from '../helpers/app';

/**
 * Failed logins lock a user name at the address that failed (5 in 15 minutes), the user name everywhere only past a
 * much higher count, and an address under any names at 20; every failure and every lock-out is logged, without the
 * password.
 */
describe('login throttle', () => {
  let app: TestApp;
  const logged: Array<{ fields: Record<string, unknown>; msg: string }> = [];

  beforeAll(async () => {
    // Behind a trusted proxy, X-Forwarded-For tells the client's address.
    app = await startTestApp({ SERVICE_TRUST_PROXY: 'true' });
    jest.spyOn(app.rt.log, 'warn').mockImplementation(((fields: Record<string, unknown>, msg: string) => {
      logged.push({ fields, msg });
    }) as never);
  });
  afterAll(() => app.close());

  const login = (username: string, password: string, address: string) =>
    fetch(`${app.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': address },
      body: JSON.stringify({ username, password }),
    });

  async function user(): Promise<{ username: string; password: string }> {
    const username = `t${Math.random().toString(36).slice(2, 10)}`;
    const password = 'the password of the user';
    const res = await app.request('/api/v1/users', {
      method: 'POST',
      json: { username, email: `${username}@example.com`, password, role: 'viewer' },
    });
    expect(res.status).toBe(201);
    return { username, password };
  }

  it('locks a user name out at the guessing address only: its owner elsewhere still signs in', async () => {
    const u = await user();
    for (let i = 0; i < 5; i++) expect((await login(u.username, `wrong ${i}`, '203.0.113.7')).status).toBe(401);
    const locked = await login(u.username, u.password, '203.0.113.7');
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await json(locked)).lock).toBe('user_at_address');
    expect((await login(u.username, u.password, '198.51.100.20')).status).toBe(200);
  });

  it('logs each failed login and the lock-out with user name and address, never the password', async () => {
    const u = await user();
    logged.length = 0;
    for (let i = 0; i < 5; i++) await login(u.username, `secret guess ${i}`, '203.0.113.8');
    const failures = logged.filter((l) => l.msg === 'login failed');
    expect(failures).toHaveLength(5);
    expect(failures[0].fields).toMatchObject({ username: u.username, address: '203.0.113.8', reason: 'wrong password' });
    const lockouts = logged.filter((l) => l.msg === 'login locked out');
    expect(lockouts.map((l) => l.fields)).toEqual([{ username: u.username, address: '203.0.113.8', lock: 'user_at_address' }]);
    expect(await login(u.username, u.password, '203.0.113.8').then((r) => r.status)).toBe(429);
    expect(logged.some((l) => l.msg === 'login refused: locked out')).toBe(true);
    expect(JSON.stringify(logged)).not.toContain('secret guess');
    expect(JSON.stringify(logged)).not.toContain(u.password);
  });

  it('still locks an address that guesses under many user names', async () => {
    for (let i = 0; i < 20; i++) expect((await login(`nobody-${i}`, 'wrong', '203.0.113.9')).status).toBe(401);
    const locked = await login('nobody-else', 'wrong', '203.0.113.9');
    expect(locked.status).toBe(429);
    expect((await json(locked)).lock).toBe('address');
  });
});

/** With REDIS_URL, failed logins are counted in Redis: a Redis that cannot be reached refuses logins, never lets them through uncounted. */
describe('login throttle counted in a Redis that is down', () => {
  let app: TestApp;
  beforeAll(async () => {
    // Nothing listens on port 1.
    app = await startTestApp({ REDIS_URL: 'redis://127.0.0.1:1' });
  });
  afterAll(() => app.close());

  it('answers 503 with Retry-After', async () => {
    const res = await fetch(`${app.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'someone', password: 'a guess' }),
    });
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await res.text()).not.toContain('127.0.0.1');
  });
});
