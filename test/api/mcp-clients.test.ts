import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type TestApp, startTestApp } from '../helpers/app';
import { pythonVenv } from '../helpers/venv';

/**
 * Other official MCP clients against the real endpoint: the Python SDK (PyPI `mcp`, in a virtual environment the
 * suite makes under build/), the MCP Inspector's CLI mode, and the TypeScript SDK through the `kgrag-mcp` stdio
 * relay (src/mcp-stdio.ts) that desktop clients launch.
 */

jest.setTimeout(300_000);

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
/**
 * The Inspector's CLI mode: the program `npx @modelcontextprotocol/inspector --cli` runs, from its own package (the
 * whole Inspector adds a web client of some 160 MB that CLI mode never loads). It finds its package.json relative to
 * the working directory, so it runs from its build directory.
 */
const INSPECTOR = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'inspector-cli', 'build', 'cli.js');

/** The Inspector's CLI against the test app with `key`: `method` and its options. */
function inspector(key: string, method: string, ...options: string[]) {
  const args = [INSPECTOR, '--cli', `${app.url}/mcp`, '--transport', 'http', '--method', method, ...options];
  args.push('--header', `X-API-Key: ${key}`, '--header', `X-Workspace-ID: ${app.workspace}`);
  return run(process.execPath, args, { cwd: path.dirname(INSPECTOR), timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
}

const ALPHA = ['# Alpha notes', '', 'Alice Moreau leads Orion Labs in Lisbon.', 'Orion Labs builds Helios Engine with Bruno Costa.'].join(
  '\n',
);

let python = '';

let app: TestApp;
let editorKey: string;
let viewerKey: string;
let otherKey: string;

beforeAll(async () => {
  const sdk = pythonVenv('mcp-venv', 'mcp==2.3.0', ['python', '-c', 'import mcp.client.streamable_http, httpx2']).then(
    (bin) => (python = path.join(bin, 'python')),
  );
  app = await startTestApp();
  editorKey = await app.createApiKey({ role: 'editor' });
  viewerKey = await app.createApiKey({ role: 'viewer' });
  const other = await app.rt.tenancy.createTenant({ name: `mcp python other ${randomUUID().slice(0, 8)}` });
  otherKey = await app.createApiKey({ role: 'admin', tenantId: other.tenant.id });
  // A document of its own for the Inspector and the relay; the Python session ingests another through MCP.
  const res = await app.request('/api/v1/documents', {
    method: 'POST',
    json: { content: 'Greta Holm directs Nordlys Institute in Tromso.', title: 'Nordlys' },
  });
  expect(res.status).toBe(201);
  await sdk;
});

afterAll(async () => {
  await app?.close();
});

type Outcome = { is_error: boolean; structured: Record<string, unknown> | null; text: string };

interface PythonSession {
  editor: {
    server: { name: string };
    protocol_version: string;
    tools: Record<string, { type: string; properties: Record<string, unknown> }>;
    progress: Array<{ progress: number; total: number | null; message: string | null }>;
    calls: Record<string, Outcome>;
    resources: string[];
    templates: string[];
    document: { contents: Array<{ uri: string; text: string; mimeType: string }> } | null;
    entity: { contents: Array<{ text: string }> } | null;
    prompts: string[];
    prompt: { messages: Array<{ role: string; content: { text: string } }> };
  };
  viewer_ingest: Outcome;
  other: Record<string, Outcome>;
  unauthenticated: {
    raw: { status: number; content_type: string; body: { status: number } };
    client: { refused: boolean; error?: string; statuses: number[] };
  };
}

describe('the Python MCP SDK', () => {
  let session: PythonSession;

  beforeAll(async () => {
    const config = {
      url: `${app.url}/mcp`,
      editor: { 'X-API-Key': editorKey, 'X-Workspace-ID': app.workspace },
      viewer: { 'X-API-Key': viewerKey, 'X-Workspace-ID': app.workspace },
      other: { 'X-API-Key': otherKey },
      alpha_text: ALPHA,
    };
    const script = path.join(__dirname, '../fixtures/mcp/python_session.py');
    const { stdout } = await run(python, [script, JSON.stringify(config)], { timeout: 240_000, maxBuffer: 64 * 1024 * 1024 });
    session = JSON.parse(stdout) as PythonSession;
  });

  it('initialises and lists tools, resources and prompts', () => {
    expect(session.editor.server.name).toBe('kgrag');
    expect(Object.keys(session.editor.tools)).toHaveLength(10);
    expect(session.editor.tools.query.properties).toHaveProperty('top_k');
    expect(session.editor.templates).toHaveLength(2);
    expect(session.editor.prompts).toEqual(['answer-with-citations']);
    expect(session.editor.resources.some((uri) => uri.includes('/entity/'))).toBe(true);
  });

  it('calls every tool', () => {
    const calls = session.editor.calls;
    expect(Object.keys(calls).sort()).toEqual(Object.keys(session.editor.tools).sort());
    for (const [name, outcome] of Object.entries(calls)) {
      expect([name, outcome.is_error]).toEqual([name, false]);
      expect(outcome.text).not.toBe('');
    }
    expect(calls.ingest_text.structured).toMatchObject({ status: 'completed', title: 'Alpha notes' });
    const sources = calls.query.structured!.sources as Array<Record<string, unknown>>;
    expect(sources.find((s) => s.source_type === 'chunk')).toMatchObject({ document_title: 'Alpha notes', start_line: expect.any(Number) });
    expect(calls.get_entity.structured).toMatchObject({
      id: 'ORION_LABS',
      sources: [expect.objectContaining({ document_title: 'Alpha notes' })],
    });
    expect(calls.shortest_path.structured).toMatchObject({ length: 1 });
    expect(calls.document_status.structured).toMatchObject({ status: 'completed' });
  });

  it('receives progress notifications for an ingestion', () => {
    const progress = session.editor.progress;
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[progress.length - 1]).toMatchObject({ progress: 100, total: 100 });
  });

  it('reads documents and entities as resources, and gets the citation prompt', () => {
    expect(session.editor.document!.contents[0]).toMatchObject({ text: ALPHA, mimeType: 'text/plain' });
    expect(JSON.parse(session.editor.entity!.contents[0].text)).toMatchObject({ id: 'ORION_LABS' });
    expect(session.editor.prompt.messages[0].content.text).toMatch(/\[1\] Alpha notes/);
  });

  it('sees a 401 without credentials and a refusal for a viewer calling ingest_text', () => {
    expect(session.unauthenticated.raw).toMatchObject({ status: 401, body: { status: 401 } });
    expect(session.unauthenticated.raw.content_type).toMatch(/application\/problem\+json/);
    expect(session.unauthenticated.client.refused).toBe(true);
    expect(session.unauthenticated.client.statuses).toEqual([401]);
    expect(session.viewer_ingest).toMatchObject({ is_error: true, structured: { status: 403 } });
  });

  it("never shows one tenant's entities to another", () => {
    const other = session.other;
    expect(other.search_entities).toMatchObject({ is_error: false, structured: { entities: [], total: 0 } });
    expect(other.get_entity).toMatchObject({ is_error: true, structured: { status: 404 } });
    expect(other.list_documents).toMatchObject({ is_error: false, structured: { documents: [], total: 0 } });
  });
});

describe('the MCP Inspector CLI', () => {
  it('lists the tools of the running service', async () => {
    const { stdout } = await inspector(editorKey, 'tools/list');
    const { tools } = JSON.parse(stdout) as { tools: Array<{ name: string; inputSchema: { type: string } }> };
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['query', 'get_entity', 'ingest_text', 'graph_stats']));
    expect(tools.every((t) => t.inputSchema.type === 'object')).toBe(true);
  });

  it('calls a tool with its arguments and reports a refusal', async () => {
    const search = ['--tool-name', 'search_entities', '--tool-arg', 'search=nordlys'];
    const { stdout } = await inspector(editorKey, 'tools/call', ...search);
    const result = JSON.parse(stdout) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.structuredContent)).toContain('NORDLYS_INSTITUTE');
    await expect(inspector('wrong-key', 'tools/call', ...search)).rejects.toThrow(/401/);
  });
});

describe('the kgrag-mcp stdio relay', () => {
  async function relay(env: Record<string, string>): Promise<Client> {
    const client = new Client({ name: 'desktop', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', path.join(ROOT, 'src', 'mcp-stdio.ts')],
      env: { PATH: process.env.PATH ?? '', KGRAG_URL: app.url, ...env },
      stderr: 'pipe',
      cwd: ROOT,
    });
    await client.connect(transport);
    return client;
  }

  it('relays a desktop client to the service with the key and workspace of its environment', async () => {
    const client = await relay({ KGRAG_API_KEY: editorKey, KGRAG_WORKSPACE: app.workspace });
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'kgrag' });
      expect((await client.listTools()).tools).toHaveLength(10);
      const result = (await client.callTool({ name: 'get_entity', arguments: { name: 'Nordlys Institute' } })) as CallToolResult;
      expect(result.structuredContent).toMatchObject({ id: 'NORDLYS_INSTITUTE' });
      const viewer = (await client.listResources()).resources;
      expect(viewer.some((r) => r.uri.startsWith(`kgrag://workspace/${app.workspace}/`))).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('answers the client with the service’s refusal of a wrong key', async () => {
    await expect(relay({ KGRAG_API_KEY: 'wrong-key' })).rejects.toThrow(/401/);
  });
});
