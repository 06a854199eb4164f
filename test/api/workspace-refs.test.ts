import { randomUUID } from 'node:crypto';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { type TestApp, startTestApp } from '../helpers/app';

/**
 * A workspace is named by its UUID or by its slug wherever a request names one (docs/api.md §4.6, §5.1): the
 * X-Workspace-ID header, `/workspaces/{id}` paths and the compatibility model names (`kgrag:hybrid@research`), as
 * the README's own examples and EdgeQuake's `workspace_id="default"` do.
 */

let app: TestApp;
/** The slug of this run's workspace: the test database may outlive a run, and slugs are unique per tenant. */
const slug = `research-${randomUUID().slice(0, 8)}`;
let workspaceId: string;
let credentials: Record<string, string>;

const CONTENT = 'Grace Hopper built the first compiler at Remington Rand in Philadelphia.';

beforeAll(async () => {
  app = await startTestApp();
  credentials = { 'X-API-Key': app.masterKey };
  const created = await fetch(`${app.url}/api/v1/workspaces`, {
    method: 'POST',
    headers: { ...credentials, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Research', slug }),
  });
  expect(created.status).toBe(201);
  workspaceId = ((await created.json()) as { id: string }).id;
});

afterAll(async () => {
  await app?.close();
});

/** A request with the master key and the given X-Workspace-ID (none when null). */
function call(path: string, workspace: string | null, init: { method?: string; json?: unknown } = {}): Promise<Response> {
  const headers: Record<string, string> = { ...credentials, ...(workspace === null ? {} : { 'X-Workspace-ID': workspace }) };
  if (init.json !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(`${app.url}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
}

describe('a workspace named by its slug', () => {
  it('is the workspace of X-Workspace-ID: what is stored under the slug is read under the UUID', async () => {
    const stored = await call('/api/v1/documents', slug, { method: 'POST', json: { content: CONTENT } });
    expect(stored.status).toBe(201);
    const { id } = (await stored.json()) as { id: string };
    expect((await call(`/api/v1/documents/${id}`, workspaceId)).status).toBe(200);
    // The default workspace does not hold it.
    expect((await call(`/api/v1/documents/${id}`, 'default')).status).toBe(404);
  });

  it("names the tenant's default workspace as 'default', as /health reports it", async () => {
    const health = (await (await fetch(`${app.url}/health`)).json()) as { workspace_id: string };
    expect(health.workspace_id).toBe('default');
    const byHeader = await call('/api/v1/workspaces/default', null);
    expect(byHeader.status).toBe(200);
    expect(await byHeader.json()).toMatchObject({ slug: 'default', is_default: true });
    expect((await call('/api/v1/graph/stats', 'default')).status).toBe(200);
  });

  it("keeps the default workspace's slug: clients name it 'default'", async () => {
    const renamed = await call('/api/v1/workspaces/default', null, { method: 'PATCH', json: { slug: `moved-${slug}` } });
    expect(renamed.status).toBe(409);
    expect(((await renamed.json()) as { detail: string }).detail).toContain("its slug stays 'default'");
    const same = await call('/api/v1/workspaces/default', null, { method: 'PATCH', json: { slug: 'default' } });
    expect(same.status).toBe(200);
    expect((await call('/api/v1/workspaces/default', null)).status).toBe(200);
    expect((await call(`/api/v1/workspaces/moved-${slug}`, null)).status).toBe(404);
  });

  it('is a path id: /workspaces/{slug} and its sub-resources answer for the workspace', async () => {
    const detail = await call(`/api/v1/workspaces/${slug}`, null);
    expect(await detail.json()).toMatchObject({ id: workspaceId, slug });
    const stats = await call(`/api/v1/workspaces/${slug}/stats`, null);
    expect(stats.status).toBe(200);
    expect(await stats.json()).toMatchObject({ workspace_id: workspaceId });
    expect((await call(`/api/v1/workspaces/no-such-${slug}`, null)).status).toBe(404);
  });

  it('is the @workspace of a compatibility model name, through the official clients', async () => {
    const ollama = new Ollama({ host: app.url, headers: credentials });
    const shown = await ollama.show({ model: `kgrag:hybrid@${slug}` });
    expect((shown.model_info as unknown as Record<string, unknown>)['kgrag.workspace']).toBe(workspaceId);
    const openai = new OpenAI({ baseURL: `${app.url}/v1`, apiKey: app.masterKey, maxRetries: 0 });
    const reply = await openai.chat.completions.create({
      model: `kgrag:context@${slug}`,
      messages: [{ role: 'user', content: 'Who built the first compiler?' }],
    });
    expect(reply.choices[0].message.content).toContain('Grace Hopper');
  });

  it('agrees with X-Workspace-ID naming the same workspace by UUID, and refuses another', async () => {
    const same = await call('/api/show', workspaceId, { method: 'POST', json: { model: `kgrag:hybrid@${slug}` } });
    expect(same.status).toBe(200);
    const other = await call('/api/show', 'default', { method: 'POST', json: { model: `kgrag:hybrid@${slug}` } });
    expect(other.status).toBe(400);
    expect(((await other.json()) as { error: string }).error).toContain(`names workspace '${slug}'`);
  });

  it('binds an API key to the workspace its slug names', async () => {
    const res = await call('/api/v1/api-keys', null, {
      method: 'POST',
      json: { name: 'research key', role: 'viewer', workspace_id: slug },
    });
    expect(res.status).toBe(201);
    const made = (await res.json()) as { key: string; workspace_id: string };
    expect(made.workspace_id).toBe(workspaceId);
    const stats = await fetch(`${app.url}/api/v1/graph/stats`, { headers: { 'X-API-Key': made.key } });
    expect(stats.status).toBe(200);
    const other = await fetch(`${app.url}/api/v1/graph/stats`, { headers: { 'X-API-Key': made.key, 'X-Workspace-ID': 'default' } });
    expect(other.status).toBe(404);
    const unknown = await call('/api/v1/api-keys', null, { method: 'POST', json: { name: 'k', workspace_id: `no-${slug}` } });
    expect(unknown.status).toBe(404);
  });

  it("is looked up in the caller's tenant only: another tenant's slug names nothing", async () => {
    const tenant = await call('/api/v1/tenants', null, {
      method: 'POST',
      json: { name: 'Other', slug: `other-${randomUUID().slice(0, 8)}` },
    });
    const tenantId = ((await tenant.json()) as { id: string }).id;
    const key = await app.createApiKey({ role: 'admin', tenantId });
    const res = await fetch(`${app.url}/api/v1/graph/stats`, { headers: { 'X-API-Key': key, 'X-Workspace-ID': slug } });
    expect(res.status).toBe(404);
    // Its own default workspace answers to the same slug as every tenant's.
    const own = await fetch(`${app.url}/api/v1/graph/stats`, { headers: { 'X-API-Key': key, 'X-Workspace-ID': 'default' } });
    expect(own.status).toBe(200);
  });

  it('is unique in the tenant (409) and never shaped as a UUID (422)', async () => {
    expect((await call('/api/v1/workspaces', null, { method: 'POST', json: { name: 'Again', slug } })).status).toBe(409);
    const uuidShaped = await call('/api/v1/workspaces', null, { method: 'POST', json: { name: 'Odd', slug: randomUUID() } });
    expect(uuidShaped.status).toBe(422);
  });

  it("gives the first tenant EdgeQuake's default tenant id, so that X-Tenant-ID with that id reaches its default workspace", async () => {
    const tenants = (await (await fetch(`${app.url}/api/v1/tenants`, { headers: credentials })).json()) as {
      tenants: Array<{ id: string; slug: string }>;
    };
    expect(tenants.tenants.find((t) => t.slug === 'default')?.id).toBe('00000000-0000-0000-0000-000000000002');
    const res = await fetch(`${app.url}/api/v1/folders`, {
      headers: { ...credentials, 'X-Tenant-ID': '00000000-0000-0000-0000-000000000002' },
    });
    expect(res.status).toBe(200);
  });

  it('answers an unknown tenant as unknown, not as a tenant without a default workspace', async () => {
    const unknown = randomUUID();
    const res = await fetch(`${app.url}/api/v1/conversations`, { headers: { ...credentials, 'X-Tenant-ID': unknown } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { detail: string }).detail).toBe(`unknown tenant '${unknown}'`);
  });
});
