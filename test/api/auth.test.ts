import { SignJWT } from 'jose';
import OpenAI from 'openai';
import { accessOf } from '../../src/http/api';
import { type TestApp, startTestApp } from '../helpers/app';

/**
 * Authentication (docs/api.md §5): every credential path over real HTTP, fail-closed by default, with the answers
 * a client sees: 401 for missing or bad credentials, 403 for a role that does not reach, 429 for throttled logins.
 */

const SECRET = 'a test secret of at least thirty-two characters';
const ISSUER = 'kgrag';
const AUDIENCE = 'kgrag-api';
const json = async (res: Response) => (await res.json()) as Record<string, any>;
const post = (body: unknown, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/** A path of the route table with its parameters filled by placeholder UUIDs. */
const concrete = (path: string) => path.replace(/:(\w+)/g, '00000000-0000-4000-8000-000000000000');

describe('authentication', () => {
  let app: TestApp;
  const raw = (path: string, init: RequestInit = {}) => fetch(app.url + path, init);

  beforeAll(async () => {
    app = await startTestApp({ SERVICE_JWT_SECRET: SECRET, SERVICE_ACCESS_TOKEN_TTL_S: '60' });
  });
  afterAll(() => app.close());

  async function user(role: 'admin' | 'editor' | 'viewer', name = `u${Math.random().toString(36).slice(2, 10)}`) {
    const res = await raw(
      '/api/v1/users',
      post({ username: name, email: `${name}@example.com`, password: 'password of the user', role }, { 'X-API-Key': app.masterKey }),
    );
    expect(res.status).toBe(201);
    return { ...(await json(res)), password: 'password of the user' } as { id: string; username: string; password: string };
  }

  async function login(username: string, password: string) {
    return raw('/api/v1/auth/login', post({ username, password }));
  }

  it('answers 401 without credentials on every route outside the public list, walking the route table', async () => {
    const open: string[] = [];
    for (const { prefix, spec } of app.routes) {
      const { access } = accessOf(spec);
      const path = concrete(prefix + spec.path);
      const res = await raw(path, { method: spec.method.toUpperCase(), signal: AbortSignal.timeout(10_000) });
      const body = await res.text();
      if (access === 'public') {
        if (res.status === 401) open.push(`${spec.method} ${path} is public but answered 401`);
        continue;
      }
      if (access === 'credentials') continue; // login, refresh, logout carry their credentials in the body
      if (res.status !== 401) open.push(`${spec.method} ${path}: ${res.status}`);
      else if (/^\/(v1|api)\//.test(path) && !path.startsWith('/api/v1/')) {
        // The compatibility APIs refuse in their own shapes (docs/api.md §4.12).
        expect(JSON.parse(body)).toHaveProperty('error');
      } else {
        expect(res.headers.get('content-type')).toContain('application/problem+json');
        expect(res.headers.get('www-authenticate')).toMatch(/Bearer/);
        expect(JSON.parse(body)).toMatchObject({ status: 401 });
      }
    }
    expect(open).toEqual([]);
    const publicPaths = app.routes.filter((r) => accessOf(r.spec).access === 'public').map((r) => r.prefix + r.spec.path);
    expect(publicPaths.sort()).toEqual(['/api/version', '/health', '/health/live', '/health/ready', '/live', '/ready']);
    for (const path of ['/api-docs/openapi.json', '/swagger-ui/']) expect((await raw(path)).status).toBe(200);
  });

  it('accepts the master key as X-API-Key and as Bearer, and an API key both ways', async () => {
    for (const headers of [{ 'X-API-Key': app.masterKey }, { Authorization: `Bearer ${app.masterKey}` }] as Array<Record<string, string>>) {
      expect(await json(await raw('/api/v1/auth/me', { headers }))).toMatchObject({ kind: 'master', tenant_id: null, operator: true });
    }
    const key = await app.createApiKey({ role: 'viewer' });
    for (const headers of [{ 'X-API-Key': key }, { Authorization: `Bearer ${key}` }] as Array<Record<string, string>>) {
      expect(await json(await raw('/api/v1/auth/me', { headers }))).toMatchObject({ kind: 'api_key', role: 'viewer' });
      expect((await raw('/api/v1/documents', { headers: { ...headers, 'X-Workspace-ID': app.workspace } })).status).toBe(200);
    }
    for (const headers of [
      { 'X-API-Key': 'kgr_made-up' },
      { Authorization: 'Bearer kgr_made-up' },
      { Authorization: `Basic ${key}` },
    ] as Array<Record<string, string>>) {
      const res = await raw('/api/v1/documents', { headers });
      expect(res.status).toBe(401);
      expect((await json(res)).detail).not.toContain(key);
    }
  });

  it('refuses an empty or malformed credential in either header, even beside a valid one', async () => {
    const valid: Array<Record<string, string>> = [{ 'X-API-Key': app.masterKey }, { Authorization: `Bearer ${app.masterKey}` }];
    const broken: Array<Record<string, string>> = [
      { 'X-API-Key': '' },
      { 'X-API-Key': '   ' },
      { Authorization: '' },
      { Authorization: 'Bearer' },
      { Authorization: 'Basic abc' },
    ];
    for (const good of valid) {
      for (const bad of broken) {
        if (Object.keys(bad)[0] === Object.keys(good)[0]) continue;
        const res = await raw('/api/v1/graph/stats', { headers: { ...good, ...bad } });
        expect({ sent: bad, status: res.status }).toEqual({ sent: bad, status: 401 });
        expect(res.headers.get('www-authenticate')).toMatch(/Bearer/);
      }
      expect((await raw('/api/v1/graph/stats', { headers: good })).status).toBe(200);
    }
  });

  it('lets a viewer chat on every chat path, as it queries', async () => {
    const key = await app.createApiKey({ role: 'viewer' });
    const headers = { 'X-API-Key': key, 'X-Workspace-ID': app.workspace };
    const turns: Array<[string, unknown]> = [
      ['/api/v1/query', { query: 'Who?', mode: 'naive' }],
      ['/api/v1/chat/completions', { message: 'Who?', mode: 'naive' }],
      ['/api/v1/chat/completions/stream', { message: 'Who?', mode: 'naive' }],
      ['/api/chat', { model: 'kgrag:naive', messages: [{ role: 'user', content: 'Who?' }], stream: false }],
      ['/api/generate', { model: 'kgrag:naive', prompt: 'Who?', stream: false }],
      ['/v1/chat/completions', { model: 'kgrag:naive', messages: [{ role: 'user', content: 'Who?' }] }],
    ];
    for (const [path, body] of turns) {
      const res = await raw(path, post(body, headers));
      await res.text();
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
    }
    // Writing the workspace's knowledge stays with editors.
    expect((await raw('/api/v1/documents', post({ content: 'A viewer writes.' }, headers))).status).toBe(403);
  });

  it('logs in with a password: a JWT that works until refresh, and a refresh token that works once', async () => {
    const u = await user('editor');
    const res = await login(u.username, u.password);
    expect(res.status).toBe(200);
    const session = await json(res);
    expect(session).toMatchObject({ token_type: 'Bearer', expires_in: 60, user: { id: u.id, role: 'editor' } });
    expect(session.user.password_hash).toBeUndefined();
    const bearer = { Authorization: `Bearer ${session.access_token}` };
    expect(await json(await raw('/api/v1/auth/me', { headers: bearer }))).toMatchObject({
      kind: 'user',
      role: 'editor',
      user: { username: u.username },
    });
    // The default workspace of the user's tenant, with no header.
    expect((await raw('/api/v1/documents', { headers: bearer })).status).toBe(200);

    const refreshed = await raw('/api/v1/auth/refresh', post({ refresh_token: session.refresh_token }));
    expect(refreshed.status).toBe(200);
    const next = await json(refreshed);
    expect(next.refresh_token).not.toBe(session.refresh_token);
    expect((await raw('/api/v1/auth/refresh', post({ refresh_token: session.refresh_token }))).status).toBe(401);
    expect((await raw('/api/v1/auth/logout', post({ refresh_token: next.refresh_token }))).status).toBe(204);
    expect((await raw('/api/v1/auth/refresh', post({ refresh_token: next.refresh_token }))).status).toBe(401);
    expect((await login(u.username, 'wrong password')).status).toBe(401);
    expect((await login('nobody-at-all', 'whatever')).status).toBe(401);
  });

  it("logs out without a body on a user's access token: every refresh token of that user ends", async () => {
    const u = await user('viewer');
    const first = await json(await login(u.username, u.password));
    const second = await json(await login(u.username, u.password));
    const other = await user('viewer');
    const others = await json(await login(other.username, other.password));
    const bearer = { Authorization: `Bearer ${first.access_token}` };
    const res = await app.request('/api/v1/auth/logout', { method: 'POST', headers: bearer });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ user_id: u.id, revoked_sessions: 2 });
    for (const s of [first, second]) {
      expect((await raw('/api/v1/auth/refresh', post({ refresh_token: s.refresh_token }))).status).toBe(401);
    }
    // Another user's session is untouched; the access token itself lives until it expires.
    expect((await raw('/api/v1/auth/refresh', post({ refresh_token: others.refresh_token }))).status).toBe(200);
    expect((await app.request('/api/v1/auth/me', { headers: bearer })).status).toBe(200);
    const again = await json(await app.request('/api/v1/auth/logout', { method: 'POST', headers: bearer }));
    expect(again).toEqual({ user_id: u.id, revoked_sessions: 0 });

    // Without a body, only a user's valid access token will do.
    const byKey = await app.request('/api/v1/auth/logout', { method: 'POST' });
    expect(byKey.status).toBe(403);
    expect((await json(byKey)).detail).toMatch(/only a user's access token ends sessions/);
    expect((await raw('/api/v1/auth/logout', { method: 'POST' })).status).toBe(401);
    expect((await raw('/api/v1/auth/logout', { method: 'POST', headers: { Authorization: 'Bearer not-a-token' } })).status).toBe(401);
    // A body that is there must be JSON and valid, as before.
    expect((await app.request('/api/v1/auth/logout', { method: 'POST', headers: bearer, body: 'x' })).status).toBe(400);
    expect((await app.request('/api/v1/auth/logout', { method: 'POST', headers: bearer, json: {} })).status).toBe(422);
  });

  it('refuses expired, tampered, alg none, wrong-algorithm, wrong issuer or audience, and malformed tokens', async () => {
    const u = await user('viewer');
    const valid = (await json(await login(u.username, u.password))).access_token as string;
    const key = new TextEncoder().encode(SECRET);
    const claims = { tid: app.rt.tenancy.operatorTenantId, role: 'admin' };
    const sign = (alg: string, change: (jwt: SignJWT) => SignJWT = (j) => j) =>
      change(
        new SignJWT(claims).setProtectedHeader({ alg }).setSubject(u.id).setIssuer(ISSUER).setAudience(AUDIENCE).setIssuedAt().setJti('x'),
      )
        .setExpirationTime('1h')
        .sign(key);
    const [header, payload, signature] = valid.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), role: 'admin' })).toString(
      'base64url',
    );
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
    const expired = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(u.id)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setJti('y')
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(key);
    const bad = {
      expired,
      tampered: `${header}.${forged}.${signature}`,
      'alg none': none,
      HS512: await sign('HS512'),
      issuer: await sign('HS256', (j) => j.setIssuer('someone-else')),
      audience: await sign('HS256', (j) => j.setAudience('another-api')),
      malformed: 'not.a.jwt',
      'other secret': await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(u.id)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setJti('z')
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode('x'.repeat(40))),
    };
    const statuses = Object.fromEntries(
      await Promise.all(
        Object.entries(bad).map(async ([name, token]) => [
          name,
          (await raw('/api/v1/auth/me', { headers: { Authorization: `Bearer ${token}` } })).status,
        ]),
      ),
    );
    expect(statuses).toEqual(Object.fromEntries(Object.keys(bad).map((name) => [name, 401])));
    // A correctly signed token of this service with a stronger role claim still carries the stored role.
    expect(await json(await raw('/api/v1/auth/me', { headers: { Authorization: `Bearer ${await sign('HS256')}` } }))).toMatchObject({
      role: 'viewer',
    });
  });

  it('stops a deleted user’s token and keys, and a disabled user’s login, at once', async () => {
    const u = await user('editor');
    const token = (await json(await login(u.username, u.password))).access_token as string;
    const made = await json(await raw('/api/v1/api-keys', post({ name: 'mine' }, { Authorization: `Bearer ${token}` })));
    expect(made.key).toMatch(/^kgr_/);
    expect((await raw('/api/v1/auth/me', { headers: { 'X-API-Key': made.key } })).status).toBe(200);
    const master = { 'X-API-Key': app.masterKey };
    expect((await raw(`/api/v1/users/${u.id}`, { method: 'DELETE', headers: master })).status).toBe(204);
    expect((await raw('/api/v1/auth/me', { headers: { Authorization: `Bearer ${token}` } })).status).toBe(401);
    expect((await raw('/api/v1/auth/me', { headers: { 'X-API-Key': made.key } })).status).toBe(401);

    const v = await user('viewer');
    const patch = await raw(`/api/v1/users/${v.id}`, {
      method: 'PATCH',
      headers: { ...master, 'Content-Type': 'application/json' },
      body: JSON.stringify({ disabled: true }),
    });
    expect(patch.status).toBe(200);
    expect((await login(v.username, v.password)).status).toBe(401);
  });

  it('answers 404, not 500, to a change of a user deleted while the change was under way', async () => {
    const u = await user('viewer');
    const users = app.rt.stores.accounts.users;
    // The delete lands between the change's read of the user and its write (a new password is hashed in between).
    const update = jest.spyOn(users, 'update').mockImplementationOnce(async (id, changes) => {
      await users.delete(id);
      return users.update(id, changes); // the store's own update, on a user that is gone
    });
    try {
      const res = await raw(`/api/v1/users/${u.id}`, {
        method: 'PATCH',
        headers: { 'X-API-Key': app.masterKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ password: 'another password of the user' }),
      });
      expect(res.status).toBe(404);
      expect((await json(res)).detail).toBe(`user '${u.id}' was not found`);
    } finally {
      update.mockRestore();
    }
  });

  it('creates, lists and revokes API keys: shown once, stored as a hash, with prefix and last use', async () => {
    const u = await user('editor');
    const bearer = { Authorization: `Bearer ${(await json(await login(u.username, u.password))).access_token}` };
    const created = await raw('/api/v1/api-keys', post({ name: 'ci', role: 'viewer' }, bearer));
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const key = await json(created);
    expect(key).toMatchObject({ name: 'ci', role: 'viewer', user_id: u.id, revoked_at: null, last_used_at: null });
    expect(key.key.startsWith(key.prefix)).toBe(true);
    expect(key.key_hash).toBeUndefined();
    const stored = await app.rt.stores.accounts.apiKeys.get(key.id);
    expect(JSON.stringify(stored)).not.toContain(key.key);
    expect((await raw('/api/v1/graph/stats', { headers: { 'X-API-Key': key.key } })).status).toBe(200);
    const listed = await json(await raw('/api/v1/api-keys', { headers: bearer }));
    expect(listed.api_keys).toHaveLength(1);
    expect(listed.api_keys[0].last_used_at).not.toBeNull();
    expect(JSON.stringify(listed)).not.toContain(key.key);
    // An editor cannot mint an admin key; a viewer key cannot write.
    expect((await raw('/api/v1/api-keys', post({ name: 'up', role: 'admin' }, bearer))).status).toBe(403);
    expect((await raw('/api/v1/documents', post({ content: 'x' }, { 'X-API-Key': key.key }))).status).toBe(403);
    const revoked = await raw(`/api/v1/api-keys/${key.id}`, { method: 'DELETE', headers: bearer });
    expect((await json(revoked)).revoked_at).not.toBeNull();
    expect((await raw('/api/v1/graph/stats', { headers: { 'X-API-Key': key.key } })).status).toBe(401);
  });

  it("accepts EdgeQuake's request names: role `user` is an editor, `expires_in` sets expires_at; bad values are 422", async () => {
    const name = `u${Math.random().toString(36).slice(2, 10)}`;
    const made = await app.request('/api/v1/users', {
      method: 'POST',
      json: { username: name, email: `${name}@example.com`, password: 'password of the user', role: 'user' },
    });
    expect(made.status).toBe(201);
    const u = await json(made);
    expect(u.role).toBe('editor');
    expect((await json(await app.request(`/api/v1/users/${u.id}`))).role).toBe('editor');
    const bearer = { Authorization: `Bearer ${(await json(await login(name, 'password of the user'))).access_token}` };
    const created = await json(
      await app.request('/api/v1/api-keys', { method: 'POST', headers: bearer, json: { name: 'ttl', expires_in: 120 } }),
    );
    const lifetime = Date.parse(created.expires_at) - Date.parse(created.created_at);
    expect(lifetime).toBeGreaterThan(115_000);
    expect(lifetime).toBeLessThanOrEqual(120_000);
    const listed = await json(await app.request('/api/v1/api-keys', { headers: bearer }));
    expect(listed.keys).toEqual(listed.api_keys);
    expect(listed.keys[0]).toMatchObject({ id: created.id, last_used: listed.keys[0].last_used_at });
    for (const [body, detail] of [
      [{ name: 'k', expires_in: 0 }, /^expires_in: must be at least 1/],
      [{ name: 'k', expires_in: 1.5 }, /^expires_in: must be an integer/],
      [{ name: 'k', expires_in: 60, expires_at: '2999-01-01T00:00:00Z' }, /^expires_in: give expires_at or expires_in, not both/],
    ] as const) {
      const res = await app.request('/api/v1/api-keys', { method: 'POST', headers: bearer, json: body });
      expect(res.status).toBe(422);
      expect((await json(res)).detail).toMatch(detail);
    }
    const bad = await app.request('/api/v1/users', {
      method: 'POST',
      json: { username: 'x1', email: 'x1@example.com', password: 'long enough', role: 'owner' },
    });
    expect(bad.status).toBe(422);
    expect((await json(bad)).detail).toMatch(/^role: /);
    expect((await json(await app.request('/api/v1/api-keys', { headers: bearer }))).total).toBe(1);
  });

  it('gives a viewer 403 on every write and an editor 403 on every administration route', async () => {
    const viewer = await app.createApiKey({ role: 'viewer' });
    const editor = await app.createApiKey({ role: 'editor' });
    const wrong: string[] = [];
    for (const { prefix, spec } of app.routes) {
      const { access } = accessOf(spec);
      if (access === 'public' || access === 'credentials') continue;
      const path = concrete(prefix + spec.path);
      for (const [role, key] of [
        ['viewer', viewer],
        ['editor', editor],
      ] as const) {
        const allowed = access === 'viewer' || (access === 'editor' && role === 'editor');
        if (allowed) continue;
        const res = await raw(path, { method: spec.method.toUpperCase(), headers: { 'X-API-Key': key } });
        if (res.status !== 403) wrong.push(`${role} ${spec.method} ${path}: ${res.status}`);
        await res.arrayBuffer();
      }
    }
    expect(wrong).toEqual([]);
  });

  it('throttles failed logins per user name with 429 and Retry-After, and a right password does not get through meanwhile', async () => {
    const u = await user('viewer');
    for (let i = 0; i < 5; i++) expect((await login(u.username, `wrong ${i}`)).status).toBe(401);
    const locked = await login(u.username, u.password);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await json(locked)).type).toMatch(/rate-limited$/);
  });

  it('never shows a secret: not the master key, a password, a hash or the JWT secret', async () => {
    const u = await user('admin');
    const session = await json(await login(u.username, u.password));
    const bodies = [
      await (await raw('/health')).text(),
      await (await raw('/api/v1/users', { headers: { 'X-API-Key': app.masterKey } })).text(),
      await (await raw(`/api/v1/users/${u.id}`, { headers: { Authorization: `Bearer ${session.access_token}` } })).text(),
      await (await raw('/api/v1/auth/login', post({ username: u.username, password: app.masterKey }))).text(),
      await (await raw('/api-docs/openapi.json')).text(),
    ].join('\n');
    for (const secret of [app.masterKey, u.password, SECRET, '$argon2']) expect(bodies).not.toContain(secret);
  });

  it('declares the security schemes and leaves only the public operations without them', async () => {
    const doc = await json(await raw('/api-docs/openapi.json'));
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['ApiKeyHeader', 'Bearer']);
    expect(doc.security).toEqual([{ ApiKeyHeader: [] }, { Bearer: [] }]);
    const open = Object.entries(doc.paths as Record<string, Record<string, { security?: unknown[] }>>).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => Array.isArray(op.security) && op.security.length === 0)
        .map(([method]) => `${method} ${path}`),
    );
    expect(open.sort()).toEqual(
      [
        'get /api/version',
        'get /health',
        'get /health/live',
        'get /health/ready',
        'get /live',
        'get /ready',
        'post /api/v1/auth/login',
        'post /api/v1/auth/logout',
        'post /api/v1/auth/refresh',
      ].sort(),
    );
  });
});

describe('login throttle per client address', () => {
  it('locks an address out after 20 failed logins under any user names, the right password included', async () => {
    const app = await startTestApp();
    try {
      const made = await fetch(
        `${app.url}/api/v1/users`,
        post(
          { username: `addr-${Date.now()}`, email: 'a@example.com', password: 'the right password', role: 'viewer' },
          { 'X-API-Key': app.masterKey },
        ),
      );
      const { username } = await json(made);
      for (let i = 0; i < 20; i++) {
        expect((await fetch(`${app.url}/api/v1/auth/login`, post({ username: `guess-${i}`, password: 'wrong' }))).status).toBe(401);
      }
      const locked = await fetch(`${app.url}/api/v1/auth/login`, post({ username, password: 'the right password' }));
      expect(locked.status).toBe(429);
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
  });
});

describe('rate limits count per identity, and per address for requests without valid credentials', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ SERVICE_RATE_LIMIT_UPLOAD: '10' });
  });
  afterAll(() => app.close());

  it('limits a client that invents a new API key for every request', async () => {
    const statuses = [];
    for (let i = 0; i < 12; i++) {
      const res = await fetch(`${app.url}/api/v1/documents`, post({ content: 'x' }, { 'X-API-Key': `kgr_invented-${i}` }));
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
  });
});

/**
 * Start-up with an empty user table: these run on embedded stores in both passes (NEO4J_URI blank), because the
 * shared test database always holds users of other suites; the logic is the same for both stores (users.count).
 */
const EMPTY = { NEO4J_URI: '' };

describe('bootstrap and switches', () => {
  it('creates the configured bootstrap administrator, who can log in', async () => {
    const app = await startTestApp({
      ...EMPTY,
      SERVICE_MASTER_API_KEY: '',
      SERVICE_BOOTSTRAP_ADMIN_USERNAME: 'root-admin',
      SERVICE_BOOTSTRAP_ADMIN_PASSWORD: 'bootstrap password',
      SERVICE_BOOTSTRAP_ADMIN_EMAIL: 'root@example.com',
    });
    try {
      expect(app.rt.bootstrap.generatedAdmin).toBeNull();
      const res = await fetch(`${app.url}/api/v1/auth/login`, post({ username: 'root-admin', password: 'bootstrap password' }));
      expect(await json(res)).toMatchObject({ user: { username: 'root-admin', role: 'admin', email: 'root@example.com' } });
    } finally {
      await app.close();
    }
  });

  it('creates an administrator with a random password when there is no user, no bootstrap admin and no master key', async () => {
    const app = await startTestApp({ ...EMPTY, SERVICE_MASTER_API_KEY: '' });
    try {
      const admin = app.rt.bootstrap.generatedAdmin!;
      expect(admin.username).toBe('admin');
      expect(admin.password.length).toBeGreaterThanOrEqual(20);
      expect((await fetch(`${app.url}/api/v1/documents`)).status).toBe(401);
      const session = await json(await fetch(`${app.url}/api/v1/auth/login`, post({ username: 'admin', password: admin.password })));
      expect(session.user.role).toBe('admin');
      expect((await fetch(`${app.url}/api/v1/documents`, { headers: { Authorization: `Bearer ${session.access_token}` } })).status).toBe(
        200,
      );
    } finally {
      await app.close();
    }
  });

  it('opens the API in dev mode and says so in /health', async () => {
    const app = await startTestApp({ SERVICE_DEV_MODE: 'true' });
    try {
      expect(app.rt.bootstrap.generatedAdmin).toBeNull();
      expect((await fetch(`${app.url}/api/v1/documents`)).status).toBe(200);
      const health = await json(await fetch(`${app.url}/health`));
      expect(health.auth).toEqual({ enabled: true, dev_mode: true });
      expect(health.warnings.join(' ')).toMatch(/open/);
      // A credential that is not valid is ignored while the API is open, as local model servers ignore the
      // made-up key an SDK insists on; a valid one still acts as its own caller.
      expect((await fetch(`${app.url}/api/v1/documents`, { headers: { 'X-API-Key': 'kgr_invented' } })).status).toBe(200);
      const openai = new OpenAI({ baseURL: `${app.url}/v1`, apiKey: 'sk-made-up', maxRetries: 0 });
      expect((await openai.models.list()).data.map((m) => m.id)).toContain('kgrag:hybrid');
      const reply = await openai.chat.completions.create({ model: 'kgrag:bypass', messages: [{ role: 'user', content: 'Hello' }] });
      expect(reply.choices[0].message.role).toBe('assistant');
      const me = await fetch(`${app.url}/api/v1/auth/me`, { headers: { 'X-API-Key': app.masterKey } });
      expect(await json(me)).toMatchObject({ kind: 'master' });
    } finally {
      await app.close();
    }
  });

  it('opens the API when authentication is switched off', async () => {
    const app = await startTestApp({ SERVICE_AUTH_ENABLED: 'false' });
    try {
      expect((await fetch(`${app.url}/api/v1/graph/stats`)).status).toBe(200);
      expect((await json(await fetch(`${app.url}/health`))).auth).toEqual({ enabled: false, dev_mode: false });
      expect((await fetch(`${app.url}/api/v1/graph/stats`, { headers: { Authorization: 'Bearer invented' } })).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});
