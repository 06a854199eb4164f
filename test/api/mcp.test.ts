import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { pathsQuerySchema } from '../../src/routes/analytics/schema';
import { queryBodySchema } from '../../src/routes/query/schema';
import { type TestApp, startTestApp } from '../helpers/app';

/**
 * The MCP endpoint driven by the official TypeScript SDK client over Streamable HTTP: tools, resources, prompts,
 * progress and cancellation of ingestion, credentials and roles, and workspace isolation between tenants.
 */

jest.setTimeout(120_000);

const ALPHA = [
  '# Alpha notes',
  '',
  'Alice Moreau leads Orion Labs in Lisbon.',
  'Orion Labs builds Helios Engine with Bruno Costa.',
  'Bruno Costa studied at Porto Institute.',
].join('\n');

let app: TestApp;
let editorKey: string;
let viewerKey: string;
const open: Client[] = [];

/** An SDK client of the MCP endpoint of `target` (the suite's app unless told), closed after the suite. */
async function connect(headers: Record<string, string>, target: TestApp = app): Promise<Client> {
  const client = new Client({ name: 'kgrag-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${target.url}/mcp`), { requestInit: { headers } }));
  open.push(client);
  return client;
}

/** The structured result of a successful tool call (fails with the problem of a tool error). */
async function call<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.structuredContent ?? result.content)}`);
  expect(result.content[0]).toMatchObject({ type: 'text' });
  return result.structuredContent as T;
}

async function refused(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError).toBe(true);
  return result.structuredContent as Record<string, unknown>;
}

let editor: Client;
let alphaId: string;

beforeAll(async () => {
  app = await startTestApp();
  editorKey = await app.createApiKey({ role: 'editor' });
  viewerKey = await app.createApiKey({ role: 'viewer' });
  editor = await connect({ 'X-API-Key': editorKey, 'X-Workspace-ID': app.workspace });
  const progress: Progress[] = [];
  const result = (await editor.callTool({ name: 'ingest_text', arguments: { content: ALPHA, title: 'Alpha notes' } }, undefined, {
    onprogress: (p) => progress.push(p),
  })) as CallToolResult;
  expect(result.isError).toBeFalsy();
  alphaId = (result.structuredContent as { document_id: string }).document_id;
  ingestProgress = progress;
});

let ingestProgress: Progress[] = [];

afterAll(async () => {
  for (const client of open) await client.close().catch(() => undefined);
  await app?.close();
});

describe('the MCP endpoint', () => {
  it('initialises with tools, resources and prompts', () => {
    expect(editor.getServerVersion()).toMatchObject({ name: 'kgrag' });
    expect(editor.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {} });
  });

  it('refuses a request without credentials with a 401 problem', async () => {
    const res = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(res.headers.get('www-authenticate')).toBeTruthy();
    await expect(connect({})).rejects.toThrow(/401/);
    await expect(connect({ 'X-API-Key': 'not-a-key' })).rejects.toThrow(/401/);
  });

  it('lists every tool with JSON Schemas generated from the REST schemas', async () => {
    const { tools } = await editor.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'document_status',
        'get_entity',
        'graph_stats',
        'ingest_file',
        'ingest_text',
        'list_documents',
        'neighbourhood',
        'query',
        'search_entities',
        'shortest_path',
      ].sort(),
    );
    const byName = new Map(tools.map((t) => [t.name, t]));
    const query = byName.get('query')!.inputSchema as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(query.properties)).toEqual(
      expect.arrayContaining(['query', 'mode', 'top_k', 'filters', 'context_only', 'workspace']),
    );
    expect(query.required).toEqual(['query']);
    const rest = z.toJSONSchema(queryBodySchema, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, unknown> };
    expect(query.properties.mode).toEqual(rest.properties.mode);
    const paths = z.toJSONSchema(pathsQuerySchema, { io: 'input' }) as { properties: Record<string, unknown> };
    expect((byName.get('shortest_path')!.inputSchema.properties as Record<string, unknown>).max_hops).toEqual(paths.properties.max_hops);
    expect(byName.get('ingest_text')!.annotations).toMatchObject({ readOnlyHint: false });
    expect(byName.get('get_entity')!.annotations).toMatchObject({ readOnlyHint: true });
  });

  it('reports the progress of an ingestion up to 100 percent', () => {
    expect(ingestProgress.length).toBeGreaterThan(0);
    const values = ingestProgress.map((p) => p.progress);
    expect([...values].sort((a, b) => a - b)).toEqual(values);
    expect(values[values.length - 1]).toBe(100);
    expect(ingestProgress[0].total).toBe(100);
  });

  it('answers a query with sources carrying document titles and line ranges, as structure and as text', async () => {
    const result = (await editor.callTool({
      name: 'query',
      arguments: { query: 'Who leads Orion Labs?', mode: 'mix', top_k: 5 },
    })) as CallToolResult;
    const answer = result.structuredContent as { answer: string; mode: string; sources: Array<Record<string, unknown>> };
    expect(answer.mode).toBe('mix');
    expect(answer.answer).not.toBe('');
    const chunk = answer.sources.find((s) => s.source_type === 'chunk')!;
    expect(chunk).toMatchObject({ document_id: alphaId, document_title: 'Alpha notes' });
    expect(chunk.start_line).toBeGreaterThanOrEqual(1);
    const text = (result.content[0] as { text: string }).text;
    expect(text).toContain('Sources:');
    expect(text).toContain(`Alpha notes`);
    expect(text).toMatch(/lines \d+-\d+/);
  });

  it('returns the context without an answer with context_only and applies filters', async () => {
    const context = await call<{ answer: string; context: string; sources: unknown[] }>(editor, 'query', {
      query: 'Orion Labs',
      context_only: true,
    });
    expect(context.answer).toBe('');
    expect(context.context).toContain('Orion Labs');
    const filtered = await call<{ sources: Array<{ source_type: string }> }>(editor, 'query', {
      query: 'Orion Labs',
      mode: 'naive',
      filters: { document_pattern: 'no such title' },
    });
    expect(filtered.sources.filter((s) => s.source_type === 'chunk')).toEqual([]);
  });

  it('searches entities, reads one with provenance, walks its neighbourhood and paths', async () => {
    const found = await call<{ entities: Array<{ id: string; name: string }>; total: number }>(editor, 'search_entities', {
      search: 'orion',
    });
    expect(found.entities.map((e) => e.id)).toContain('ORION_LABS');
    const entity = await call<{
      id: string;
      description: string;
      relationships: unknown[];
      sources: Array<{ document_id: string; document_title: string; chunks: Array<{ start_line: number; end_line: number }> }>;
    }>(editor, 'get_entity', { name: 'orion labs' });
    expect(entity.id).toBe('ORION_LABS');
    expect(entity.description).not.toBe('');
    expect(entity.relationships.length).toBeGreaterThan(0);
    expect(entity.sources[0]).toMatchObject({ document_id: alphaId, document_title: 'Alpha notes' });
    expect(entity.sources[0].chunks[0].start_line).toBeGreaterThanOrEqual(3);
    const near = await call<{ neighbours: Array<{ id: string; distance: number }> }>(editor, 'neighbourhood', {
      entity: 'Orion Labs',
      hops: 1,
    });
    expect(near.neighbours.map((n) => n.id)).toEqual(expect.arrayContaining(['ALICE_MOREAU']));
    const paths = await call<{ paths: Array<Array<{ id: string }>>; length: number }>(editor, 'shortest_path', {
      from: 'Alice Moreau',
      to: 'Orion Labs',
    });
    expect(paths.length).toBe(1);
    expect(paths.paths[0].map((e) => e.id)).toEqual(['ALICE_MOREAU', 'ORION_LABS']);
  });

  it('lists documents, reads a document status and the graph statistics', async () => {
    const list = await call<{ documents: Array<{ id: string; title: string }>; total: number }>(editor, 'list_documents', { limit: 10 });
    expect(list.documents.map((d) => d.id)).toContain(alphaId);
    const status = await call<{ status: string; entity_count: number; task: { status: string; progress: number } }>(
      editor,
      'document_status',
      {
        id: alphaId,
      },
    );
    expect(status).toMatchObject({ status: 'completed', task: { status: 'completed', progress: 100 } });
    expect(status.entity_count).toBeGreaterThan(2);
    const stats = await call<{ total_nodes: number; total_edges: number }>(editor, 'graph_stats');
    expect(stats.total_nodes).toBeGreaterThan(2);
  });

  it('ingests files as text and as base64, and queues one on request', async () => {
    const text = await call<{ status: string; title: string }>(editor, 'ingest_file', {
      filename: 'beta.md',
      content: '# Beta\n\nCarla Diaz founded Nimbus Works in Madrid.\n',
    });
    expect(text).toMatchObject({ status: 'completed', title: 'beta.md' });
    const encoded = await call<{ status: string; entity_count: number }>(editor, 'ingest_file', {
      filename: 'gamma.txt',
      content_base64: Buffer.from('Dmitri Volkov joined Polar Systems in Oslo.\n').toString('base64'),
      title: 'Gamma',
    });
    expect(encoded.status).toBe('completed');
    expect(encoded.entity_count).toBeGreaterThan(0);
    const queued = await call<{ status: string; task_id: string; document_id: string }>(editor, 'ingest_text', {
      content: 'Erik Lund works at Fjord Analytics in Bergen.',
      async_processing: true,
    });
    expect(queued.status).toBe('processing');
    expect(queued.task_id).toBeTruthy();
  });

  it('answers refusals as tool errors with problem details', async () => {
    const invalid = await refused(editor, 'query', { query: '', top_k: 0 });
    expect(invalid).toMatchObject({ status: 422, title: expect.any(String) });
    expect(JSON.stringify(invalid.errors)).toMatch(/query/);
    const missing = await refused(editor, 'get_entity', { name: 'Nobody Known' });
    expect(missing).toMatchObject({ status: 404 });
    const duplicate = await refused(editor, 'ingest_text', { content: ALPHA });
    expect(duplicate).toMatchObject({ status: 409, duplicate_of: alphaId });
    const both = await refused(editor, 'ingest_file', { filename: 'x.txt' });
    expect(both).toMatchObject({ status: 422 });
    const unknownWorkspace = await refused(editor, 'graph_stats', { workspace: 'no-such-workspace' });
    expect(unknownWorkspace).toMatchObject({ status: 404 });
  });

  it('refuses ingestion to a viewer and lets it read', async () => {
    const viewer = await connect({ 'X-API-Key': viewerKey, 'X-Workspace-ID': app.workspace });
    const problem = await refused(viewer, 'ingest_text', { content: 'Viewer text about Zeta Corp.' });
    expect(problem).toMatchObject({ status: 403 });
    expect(String(problem.detail)).toMatch(/editor/);
    const list = await call<{ documents: Array<{ title: string }> }>(viewer, 'list_documents');
    expect(list.documents.map((d) => d.title)).not.toContain('Viewer text about Zeta Corp.');
    const rest = (await (await app.request('/api/v1/documents?limit=100')).json()) as { documents: unknown[] };
    expect(rest.documents.length).toBe(list.documents.length);
  });

  it('names the workspace by slug in a tool argument and in the header', async () => {
    const ws = (await (await app.request(`/api/v1/workspaces/${app.workspace}`)).json()) as { slug: string };
    const bySlug = await call<{ total: number }>(editor, 'list_documents', { workspace: ws.slug });
    const byId = await call<{ total: number }>(editor, 'list_documents', { workspace: app.workspace });
    expect(bySlug.total).toBe(byId.total);
    const headerSlug = await connect({ 'X-API-Key': editorKey, 'X-Workspace-ID': ws.slug });
    expect((await call<{ total: number }>(headerSlug, 'list_documents')).total).toBe(byId.total);
  });
});

describe('MCP resources and prompts', () => {
  it('lists documents and entities by URI and reads them', async () => {
    const { resources } = await editor.listResources();
    const docUri = `kgrag://workspace/${app.workspace}/document/${alphaId}`;
    expect(resources.find((r) => r.uri === docUri)).toMatchObject({ name: 'Alpha notes', mimeType: 'text/plain' });
    let all = resources;
    let cursor: string | undefined = undefined;
    for (let page = (await editor.listResources()).nextCursor; page; page = cursor) {
      const next = await editor.listResources({ cursor: page });
      all = all.concat(next.resources);
      cursor = next.nextCursor;
    }
    const entityUri = `kgrag://workspace/${app.workspace}/entity/ORION_LABS`;
    expect(all.map((r) => r.uri)).toContain(entityUri);
    const doc = await editor.readResource({ uri: docUri });
    expect(doc.contents[0]).toMatchObject({ uri: docUri, mimeType: 'text/plain', text: ALPHA });
    const entity = await editor.readResource({ uri: `kgrag://workspace/${app.workspace}/entity/${encodeURIComponent('Orion Labs')}` });
    const body = JSON.parse((entity.contents[0] as { text: string }).text) as { id: string; sources: Array<{ document_title: string }> };
    expect(body.id).toBe('ORION_LABS');
    expect(body.sources[0].document_title).toBe('Alpha notes');
    const { resourceTemplates } = await editor.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'kgrag://workspace/{workspace}/document/{id}',
      'kgrag://workspace/{workspace}/entity/{name}',
    ]);
    await expect(editor.readResource({ uri: `kgrag://workspace/${app.workspace}/document/${randomUUID()}` })).rejects.toThrow(/not found/i);
  });

  it('offers a prompt that answers from the graph with citations', async () => {
    const { prompts } = await editor.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['answer-with-citations']);
    const prompt = await editor.getPrompt({ name: 'answer-with-citations', arguments: { question: 'Who leads Orion Labs?' } });
    const text = (prompt.messages[0].content as { text: string }).text;
    expect(text).toContain('Question: Who leads Orion Labs?');
    expect(text).toContain('Orion Labs');
    expect(text).toMatch(/\[1\] Alpha notes/);
  });
});

describe('MCP workspace isolation', () => {
  let other: Client;
  let otherWorkspace: string;

  beforeAll(async () => {
    const made = await app.rt.tenancy.createTenant({ name: `mcp other ${randomUUID().slice(0, 8)}` });
    otherWorkspace = made.default_workspace.id;
    const key = await app.createApiKey({ role: 'admin', tenantId: made.tenant.id });
    other = await connect({ 'X-API-Key': key });
    await call(other, 'ingest_text', { content: 'Zorblax Quintessa founded Vantablack Foundry in Qwertopolis.', title: 'Other tenant' });
  });

  it("never shows one tenant's entities to another through any tool, resource or prompt", async () => {
    const mine = `kgrag://workspace/${app.workspace}`;
    expect((await call<{ entities: Array<{ id: string }> }>(other, 'search_entities', { search: 'orion' })).entities).toEqual([]);
    expect(await refused(other, 'get_entity', { name: 'Orion Labs' })).toMatchObject({ status: 404 });
    expect(await refused(other, 'neighbourhood', { entity: 'Orion Labs' })).toMatchObject({ status: 404 });
    expect(await refused(other, 'shortest_path', { from: 'Alice Moreau', to: 'Orion Labs' })).toMatchObject({ status: 404 });
    expect(await refused(other, 'document_status', { id: alphaId })).toMatchObject({ status: 404 });
    const listed = await call<{ documents: Array<{ title: string }> }>(other, 'list_documents');
    expect(listed.documents.map((d) => d.title)).toEqual(['Other tenant']);
    const answer = await call<{ sources: Array<{ document_id?: string; id: string }> }>(other, 'query', {
      query: 'Who leads Orion Labs?',
      mode: 'mix',
    });
    expect(answer.sources.map((s) => s.document_id ?? s.id)).not.toContain(alphaId);
    expect(JSON.stringify(answer.sources)).not.toMatch(/Orion|ORION|Alice|Lisbon/);
    const stats = await call<{ total_nodes: number }>(other, 'graph_stats');
    expect(stats.total_nodes).toBeLessThan(6);
    // Naming the other tenant's workspace, by id or through a resource URI, finds nothing.
    for (const tool of ['graph_stats', 'list_documents', 'search_entities']) {
      expect(await refused(other, tool, { workspace: app.workspace })).toMatchObject({ status: 404 });
    }
    await expect(other.readResource({ uri: `${mine}/document/${alphaId}` })).rejects.toThrow(/not found/i);
    await expect(other.readResource({ uri: `${mine}/entity/ORION_LABS` })).rejects.toThrow(/not found/i);
    const resources = (await other.listResources()).resources.map((r) => r.uri);
    expect(resources.every((uri) => uri.startsWith(`kgrag://workspace/${otherWorkspace}/`))).toBe(true);
    await expect(
      other.getPrompt({ name: 'answer-with-citations', arguments: { question: 'Orion Labs?', workspace: app.workspace } }),
    ).rejects.toThrow(/not found/i);
    // 'default' is the caller's own tenant's default workspace.
    expect((await call<{ total: number }>(other, 'list_documents', { workspace: 'default' })).total).toBe(1);
  });

  it('keeps a session to the credential that opened it', async () => {
    const sessionId = (editor.transport as StreamableHTTPClientTransport).sessionId!;
    const res = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: {
        'X-API-Key': viewerKey,
        'Mcp-Session-Id': sessionId,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
  });
});

describe('MCP cancellation', () => {
  let slow: TestApp;

  beforeAll(async () => {
    slow = await startTestApp({ SERVICE_MOCK_LATENCY_MS: '300' });
  });
  afterAll(async () => slow?.close());

  it('cancels the ingestion task when the call is cancelled', async () => {
    const client = await connect(slow.headers, slow);
    const content = Array.from({ length: 30 }, (_, i) => `Report ${i}: Hana Sato met Ivan Petrov at Kestrel Dynamics in Kyoto.`).join(
      '\n\n',
    );
    const controller = new AbortController();
    const started = new Promise<void>((resolve) => {
      void client
        .callTool({ name: 'ingest_text', arguments: { content, title: 'Slow report' } }, undefined, {
          signal: controller.signal,
          onprogress: () => resolve(),
        })
        .catch(() => undefined);
    });
    await started;
    controller.abort('enough');
    let status = '';
    for (let i = 0; i < 100 && status !== 'cancelled'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const list = (await (await slow.request('/api/v1/tasks?limit=10')).json()) as { tasks: Array<{ status: string }> };
      status = list.tasks[0]?.status ?? '';
    }
    expect(status).toBe('cancelled');
  });
});

describe('MCP rate limits', () => {
  let limited: TestApp;

  beforeAll(async () => {
    limited = await startTestApp({ SERVICE_RATE_LIMIT_QUERY: '2' });
  });
  afterAll(async () => limited?.close());

  it('counts tool calls against the caller’s limits, shared with the REST routes', async () => {
    const key = await limited.createApiKey({ role: 'viewer' });
    const client = await connect({ 'X-API-Key': key }, limited);
    await call(client, 'query', { query: 'anything', mode: 'bypass' });
    const rest = await fetch(`${limited.url}/api/v1/query`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: 'anything', mode: 'bypass' }),
    });
    expect(rest.status).toBe(200);
    expect(await refused(client, 'query', { query: 'anything', mode: 'bypass' })).toMatchObject({ status: 429 });
    // Graph reads count against the graph limit, which is off here.
    await call(client, 'graph_stats');
  });
});
