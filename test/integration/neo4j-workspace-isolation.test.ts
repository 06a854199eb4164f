import fs from 'node:fs';
import path from 'node:path';
import { json, prose } from '../fixtures/documents';
import { openTestDriver } from '../fixtures/graph-integrity';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * Persistent mode end to end, checked with plain Cypher: every query is scoped by workspace, data outlives the
 * runtime, and deleting every document of a workspace leaves no graph, chunk or vector data behind.
 */
jest.setTimeout(120_000);

const CYPHER_DIR = path.resolve(__dirname, '../../cypher');

function cypherFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return cypherFiles(full);
    return entry.name.endsWith('.cypher') ? [full] : [];
  });
}

const driver = openTestDriver();

async function cypher(query: string, params: Record<string, unknown> = {}) {
  return (await driver.executeQuery(query, params)).records.map((r) => r.toObject());
}

/** Nodes of the workspace by label, and relationships touching them. */
async function holdings(workspace: string) {
  const nodes = await cypher('MATCH (n {workspace_id: $w}) UNWIND labels(n) AS label RETURN label, count(*) AS count ORDER BY label', {
    w: workspace,
  });
  const [rels] = await cypher('MATCH (n {workspace_id: $w})-[r]-() RETURN count(DISTINCT r) AS count', { w: workspace });
  return {
    labels: Object.fromEntries(nodes.map((r) => [r.label, r.count])) as Record<string, number>,
    relationships: rels.count as number,
  };
}

describe('persistent mode: workspace scoping of every query', () => {
  it('every Cypher file outside migrations/, schema/ and records/ that reads or writes the graph is scoped by workspace_id', () => {
    // records/ holds tenants, workspaces, users and credentials: account records above workspaces, whose
    // isolation is the tenancy service's (test/api/isolation.test.ts). A fragment that only shapes its
    // parameters into rows (retrieval/found) touches no stored data; the statement it opens is checked itself.
    const files = cypherFiles(CYPHER_DIR).filter((file) => !/[/\\](migrations|schema|records)[/\\]/.test(file));
    expect(files.length).toBeGreaterThan(40);
    const text = (file: string) => fs.readFileSync(file, 'utf8').replace(/^\s*\/\/.*$/gm, '');
    const touchesGraph = (cypher: string) => /\b(MATCH|MERGE|CREATE|DELETE|SET|REMOVE|CALL)\b/i.test(cypher);
    const fragments = files.filter((file) => !touchesGraph(text(file)));
    expect(fragments.map((file) => path.relative(CYPHER_DIR, file))).toEqual(['retrieval/found.cypher']);
    const unscoped = files.filter((file) => !/\bworkspace_id\b/.test(text(file)));
    expect(unscoped.map((file) => path.relative(CYPHER_DIR, file))).toEqual(['retrieval/found.cypher']);
  });
});

describe('persistent mode: restart and deletion', () => {
  let app: TestApp;
  afterEach(async () => {
    await app?.close();
  });

  it('keeps documents, graph and vectors across a runtime restart', async () => {
    app = await startTestApp();
    expect(app.config.storage.mode).toBe('neo4j');
    const workspace = app.workspace;
    const created = await app.request('/api/v1/documents', { method: 'POST', json: { content: prose('restart'), title: 'Kept' } });
    expect(created.status).toBe(201);
    const doc = await json(created);
    const statsBefore = await json(await app.request('/api/v1/graph/stats'));
    expect(statsBefore.total_nodes).toBeGreaterThan(0);
    await app.close();

    app = await startTestApp();
    const again = (p: string) => app.request(p, { workspace });
    const detail = await json(await again(`/api/v1/documents/${doc.id}`));
    expect(detail).toMatchObject({ id: doc.id, title: 'Kept', status: 'completed', chunk_count: doc.chunk_count });
    expect(await json(await again('/api/v1/graph/stats'))).toEqual(statsBefore);
    const answer = await app.request('/api/v1/query', {
      method: 'POST',
      workspace,
      json: { query: 'Who worked with Acme Research?', mode: 'naive' },
    });
    expect(answer.status).toBe(200);
    expect((await json(answer)).sources.length).toBeGreaterThan(0);
  });

  it('leaves no document, chunk, entity, relationship or vector of a workspace after deleting all its documents', async () => {
    app = await startTestApp();
    const ids: string[] = [];
    for (const seed of ['first', 'second', 'third']) {
      const res = await app.request('/api/v1/documents', { method: 'POST', json: { content: prose(seed, 8) } });
      expect(res.status).toBe(201);
      ids.push((await json(res)).id);
    }
    const full = await holdings(app.workspace);
    expect(full.labels).toMatchObject({ Document: 3, ChunkVector: expect.any(Number), EntityVector: expect.any(Number) });
    expect(full.labels.Entity).toBeGreaterThan(0);
    expect(full.relationships).toBeGreaterThan(0);

    for (const id of ids) expect((await app.request(`/api/v1/documents/${id}`, { method: 'DELETE' })).status).toBeLessThan(300);

    const left = await holdings(app.workspace);
    // Task history, the extraction cache and usage records (costs) are records of work done, not graph or vector
    // data; they go with the workspace itself.
    const graphLabels = Object.keys(left.labels).filter((label) => !['Task', 'KV', 'UsageRecord'].includes(label));
    expect({ labels: graphLabels, relationships: left.relationships }).toEqual({ labels: [], relationships: 0 });
  });
});
