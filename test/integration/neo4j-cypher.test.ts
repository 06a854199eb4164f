import fs from 'node:fs';
import path from 'node:path';
import { openTestDriver } from '../fixtures/graph-integrity';
import { type TestApp, startTestApp } from '../helpers/app';

/**
 * Persistent mode: analysts' Cypher through POST /graph/cypher runs read-only (Neo4j refuses writes), bounded by a
 * server-side timeout and a row cap, and the ten examples of cypher/README.md run on an ingested workspace.
 */
jest.setTimeout(120_000);

const README = path.resolve(__dirname, '../../cypher/README.md');
const DOCUMENTS = [
  [
    'Engines',
    'Ada Lovelace worked with Charles Babbage in London. Charles Babbage designed the Analytical Engine at Cambridge University.',
  ],
  ['Notes', 'Ada Lovelace wrote notes about the Analytical Engine. Mary Somerville introduced Ada Lovelace to Charles Babbage in London.'],
];

/** The `// N. title` examples of the analysts' section, each ending at its semicolon. */
function readmeExamples(): Array<{ title: string; query: string }> {
  const text = fs.readFileSync(README, 'utf8');
  const section = text.slice(text.indexOf('## For analysts'));
  const block = /```cypher\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block
    .split(/;\s*\n/)
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [first, ...rest] = part.split('\n');
      return { title: first.replace(/^\/\/\s*/, ''), query: rest.join('\n') };
    });
}

describe('persistent mode: POST /graph/cypher', () => {
  let app: TestApp;
  const driver = openTestDriver();
  const since = new Date(Date.now() - 60_000).toISOString();

  async function cypher(query: string, params: Record<string, unknown> = {}, on: TestApp = app): Promise<Response> {
    return on.request('/api/v1/graph/cypher', { method: 'POST', json: { query, params } });
  }

  beforeAll(async () => {
    app = await startTestApp({ SERVICE_CYPHER_ENABLED: 'true', SERVICE_CYPHER_MAX_ROWS: '50' });
    for (const [title, content] of DOCUMENTS) {
      const res = await app.request('/api/v1/documents', { method: 'POST', json: { title, content } });
      expect(res.status).toBe(201);
    }
  });
  afterAll(() => app.close());

  it('answers rows with nodes and edges shaped as in /graph', async () => {
    const res = await cypher('MATCH (a:Entity {workspace_id: $w, id: $id})-[r]-(b:Entity) RETURN a, r, b.id AS other ORDER BY other', {
      w: app.workspace,
      id: 'ADA_LOVELACE',
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as {
      columns: string[];
      rows: Array<{ a: Record<string, unknown>; r: Record<string, unknown>; other: string }>;
      nodes: unknown[];
      edges: unknown[];
      is_truncated: boolean;
    };
    expect(answer.columns).toEqual(['a', 'r', 'other']);
    expect(answer.rows.length).toBeGreaterThan(0);
    const graph = (await (await app.request('/api/v1/graph?start_node=ADA_LOVELACE&depth=1')).json()) as {
      nodes: Array<{ id: string; degree: number; node_type: string; label: string }>;
    };
    const ada = graph.nodes.find((n) => n.id === 'ADA_LOVELACE')!;
    expect(answer.rows[0].a).toMatchObject({
      kind: 'node',
      id: 'ADA_LOVELACE',
      label: ada.label,
      node_type: ada.node_type,
      degree: ada.degree,
      workspace_id: app.workspace,
    });
    expect((answer.rows[0].a.labels as string[]).sort()).toEqual(['Entity', ada.node_type].sort());
    for (const row of answer.rows) {
      expect(row.r).toMatchObject({ kind: 'edge', workspace_id: app.workspace });
      expect([row.r.source, row.r.target].sort()).toEqual(['ADA_LOVELACE', row.other].sort());
    }
    expect(answer.nodes).toHaveLength(1);
    expect(answer.edges).toHaveLength(answer.rows.length);
    expect(answer.is_truncated).toBe(false);
  });

  it.each([
    ['CREATE', "CREATE (n:Probe {workspace_id: $w, id: 'probe'}) RETURN n"],
    ['MERGE', "MERGE (n:Probe {workspace_id: $w, id: 'probe'}) RETURN n"],
    ['SET', "MATCH (e:Entity {workspace_id: $w}) SET e.description = 'overwritten' RETURN count(e)"],
    ['DELETE', 'MATCH (e:Entity {workspace_id: $w}) DETACH DELETE e'],
  ])('has Neo4j refuse a write (%s) with 403 problem details and changes nothing', async (_, query) => {
    const count = async () =>
      (await driver.executeQuery('MATCH (n {workspace_id: $w}) RETURN count(n) AS n, collect(n.description) AS d', { w: app.workspace }))
        .records[0];
    const before = await count();
    const res = await cypher(query, { w: app.workspace });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(((await res.json()) as { detail: string }).detail).toContain('read-only');
    const after = await count();
    expect(after.get('n')).toBe(before.get('n'));
    expect(after.get('d')).toEqual(before.get('d'));
  });

  it.each([
    ['LOAD CSV from a file', "LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line", 'LOAD CSV'],
    ['LOAD CSV from a local URL', "LOAD CSV FROM 'http://127.0.0.1:1/x.csv' AS line RETURN line", 'LOAD CSV'],
    ['dbms.listConfig', 'CALL dbms.listConfig() YIELD name RETURN name', 'CALL dbms.listConfig'],
    ['SHOW USERS', 'SHOW USERS', 'SHOW'],
    ['SHOW TRANSACTIONS', 'SHOW TRANSACTIONS YIELD transactionId RETURN transactionId', 'SHOW'],
    ['TERMINATE TRANSACTIONS', "TERMINATE TRANSACTIONS 'neo4j-transaction-1'", 'TERMINATE'],
    ['CREATE USER', "CREATE USER eve SET PASSWORD 'a-long-password'", 'CREATE'],
  ])('refuses %s with a 403 problem naming it, before Neo4j runs it', async (_, query, construct) => {
    const res = await cypher(query);
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const problem = (await res.json()) as { detail: string; refused: string };
    expect(problem.refused).toBe(construct);
    expect(problem.detail).toContain('read-only');
  });

  it('runs on a Neo4j whose LOAD CSV may not read its own files (scripts/neo4j/neo4j.sh)', async () => {
    await expect(driver.executeQuery("LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line LIMIT 1")).rejects.toThrow(
      /allow_csv_import_from_file_urls|file url/i,
    );
  });

  it('runs the allowed read-only procedures', async () => {
    const res = await cypher('CALL db.labels() YIELD label RETURN label ORDER BY label');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { rows: Array<{ label: string }> }).rows.map((r) => r.label)).toContain('Entity');
  });

  it('answers an error Neo4j raises while running a query with a 422 problem, not a 500', async () => {
    const res = await cypher('UNWIND [1, 0] AS x RETURN 1 / x AS y');
    expect(res.status).toBe(422);
    const problem = (await res.json()) as { detail: string; errors: Array<{ field: string }>; neo4j_code: string };
    expect(problem.errors[0].field).toBe('query');
    expect(problem.neo4j_code).toMatch(/^Neo\./);
  });

  it('caps rows at SERVICE_CYPHER_MAX_ROWS and says the answer was truncated', async () => {
    const res = await cypher('UNWIND range(1, $n) AS x RETURN x', { n: 80 });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { rows: Array<{ x: number }>; row_count: number; is_truncated: boolean; max_rows: number };
    expect(answer.rows.map((r) => r.x)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(answer).toMatchObject({ row_count: 50, is_truncated: true, max_rows: 50 });
  });

  it('stops a query at the server-side timeout with a 422 problem', async () => {
    const slow = await startTestApp({ SERVICE_CYPHER_ENABLED: 'true', SERVICE_CYPHER_TIMEOUT_MS: '200' });
    try {
      const res = await cypher('UNWIND range(1, 500000000) AS x WITH x WHERE x % 7 = 3 RETURN count(x) AS n', {}, slow);
      expect(res.status).toBe(422);
      expect(((await res.json()) as { detail: string }).detail).toContain('200 ms');
    } finally {
      await slow.close();
    }
  });

  it('answers 422 for invalid Cypher or a missing parameter, and 403 to a non-operator', async () => {
    const bad = await cypher('MATCH (n RETURN n');
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { errors: Array<{ field: string }> }).errors[0].field).toBe('query');
    const missing = await cypher('MATCH (n {workspace_id: $nowhere}) RETURN n');
    expect(missing.status).toBe(422);
    expect(((await missing.json()) as { errors: Array<{ field: string }> }).errors[0].field).toBe('params');
    const key = await app.createApiKey({ role: 'editor' });
    const res = await app.request('/api/v1/graph/cypher', { method: 'POST', json: { query: 'RETURN 1' }, headers: { 'X-API-Key': key } });
    expect(res.status).toBe(403);
  });

  it('runs the ten examples of cypher/README.md on an ingested workspace, each with rows', async () => {
    const examples = readmeExamples();
    expect(examples).toHaveLength(10);
    const params = { workspace_id: app.workspace, entity_id: 'ADA_LOVELACE', from: 'MARY_SOMERVILLE', to: 'ANALYTICAL_ENGINE', since };
    const stats = (await (await app.request('/api/v1/graph/stats')).json()) as { node_types: Record<string, number> };
    for (const { title, query } of examples) {
      const res = await cypher(query, params);
      const answer = (await res.json()) as { rows: Array<Record<string, unknown>> };
      expect({ title, status: res.status, some: answer.rows?.length > 0 }).toEqual({ title, status: 200, some: true });
      if (title.startsWith('1.')) {
        expect(Object.fromEntries(answer.rows.map((r) => [r.type, r.entities]))).toEqual(stats.node_types);
      }
    }
  });
});
