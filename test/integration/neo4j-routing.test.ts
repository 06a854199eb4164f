import type { Driver, Session, SessionConfig } from 'neo4j-driver';
import { json, prose } from '../fixtures/documents';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * Persistent mode through the routing driver (`neo4j://`), as a causal cluster or Aura is addressed: the service
 * runs on a single Community server that way too, and every session it opens in read access mode may go to a
 * follower. A session opened for writing must write: a statement that only reads, sent in a write session, would
 * load the leader with work a follower could do. Recorded over an ingest and the reads users make.
 */
jest.setTimeout(180_000);

interface Opened {
  mode: string;
  statements: string[];
}

/** A clause that changes data or schema, once comments and string literals are set aside. */
const WRITES = /\b(CREATE|MERGE|SET|DELETE|REMOVE|FOREACH|LOAD\s+CSV|IN\s+TRANSACTIONS)\b|\bCALL\s+db\.(create|index\.vector\.create)/i;
const writes = (statement: string) => WRITES.test(statement.replace(/\/\/[^\n]*/g, '').replace(/'(?:[^'\\]|\\.)*'/g, "''"));

let app: TestApp;
const opened: Opened[] = [];

beforeAll(async () => {
  const uri = process.env.TEST_NEO4J_URI!.replace(/^bolt:/, 'neo4j:');
  app = await startTestApp({ NEO4J_URI: uri });
  const driver = (app.rt.stores.chunks as unknown as { db: { driver: Driver } }).db.driver;
  const session = driver.session.bind(driver);
  driver.session = (config?: SessionConfig): Session => {
    const record: Opened = { mode: config?.defaultAccessMode ?? 'WRITE', statements: [] };
    opened.push(record);
    const s = session(config);
    const run = s.run.bind(s);
    s.run = ((text: string, ...rest: unknown[]) => {
      record.statements.push(text);
      return (run as (...a: unknown[]) => ReturnType<Session['run']>)(text, ...rest);
    }) as Session['run'];
    const begin = s.beginTransaction.bind(s);
    s.beginTransaction = ((...args: Parameters<Session['beginTransaction']>) => {
      const tx = begin(...args);
      const txRun = tx.run.bind(tx);
      tx.run = ((text: string, ...rest: unknown[]) => {
        record.statements.push(text);
        return (txRun as (...a: unknown[]) => ReturnType<typeof tx.run>)(text, ...rest);
      }) as typeof tx.run;
      return tx;
    }) as Session['beginTransaction'];
    return s;
  };
});

afterAll(async () => {
  await app?.close();
});

test('ingests and answers through neo4j://, with every read in a read session and every write session writing', async () => {
  expect(app.config.storage).toMatchObject({ mode: 'neo4j', uri: expect.stringMatching(/^neo4j:\/\//) });
  const made = await app.request('/api/v1/documents', { method: 'POST', json: { title: 'Routing', content: prose('routing', 10) } });
  expect(made.status).toBe(201);
  const document = await json(made);
  expect(document.status).toBe('completed');

  const reads = opened.length;
  for (const mode of ['naive', 'local', 'global', 'hybrid', 'mix', 'bypass']) {
    const res = await app.request('/api/v1/query', { method: 'POST', json: { query: 'Who works with whom?', mode } });
    expect(res.status).toBe(200);
  }
  for (const path of [
    '/api/v1/documents',
    '/api/v1/graph?limit=50',
    '/api/v1/graph/entities?limit=20',
    `/api/v1/documents/${document.id}`,
  ]) {
    expect((await app.request(path)).status).toBe(200);
  }
  expect(opened.length).toBeGreaterThan(reads);
  expect(opened.some((s) => s.mode === 'READ' && s.statements.length > 0)).toBe(true);
  expect(opened.some((s) => s.mode === 'WRITE' && s.statements.some(writes))).toBe(true);

  const idleWrites = opened.filter((s) => s.mode === 'WRITE' && s.statements.length > 0 && !s.statements.some(writes));
  expect(
    idleWrites.map((s) => s.statements.map((t) => t.split('\n').find((line) => line.trim() && !line.trim().startsWith('//')))),
  ).toEqual([]);
});
