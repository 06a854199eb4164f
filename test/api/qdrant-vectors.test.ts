import type { TestApp } from '../helpers/app';
import { startTestApp } from '../helpers/app';
import { QUERY_MODES } from '../../src/retrieval/recipes';
import { QdrantVectorStore } from '../../src/store/qdrant/vectors';

/**
 * Persistent mode as deployed: Neo4j for the graph (TEST_NEO4J_URI) and a real Qdrant for the vectors
 * (TEST_QDRANT_URL). Points are counted through Qdrant's own REST API, not through the adapter under test.
 */
jest.setTimeout(120_000);

let app: TestApp;
const qdrant = process.env.TEST_QDRANT_URL as string;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app.close();
});

/** Points of the test workspace in one collection, straight from Qdrant (0 when the collection does not exist). */
async function points(kind: 'chunk' | 'entity' | 'relationship', workspace = app.workspace): Promise<number> {
  const name = `kgrag_${kind}_${app.config.embedding.dimension}`;
  const res = await fetch(`${qdrant}/collections/${name}/points/count`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ filter: { must: [{ key: 'workspace_id', match: { value: workspace } }] }, exact: true }),
  });
  if (res.status === 404) return 0;
  expect(res.status).toBe(200);
  return ((await res.json()) as { result: { count: number } }).result.count;
}

const ACME =
  'Alice Johnson works with Bob Smith at Acme Corporation in Berlin. Acme Corporation builds the Falcon Engine, a ' +
  'database technology. Bob Smith leads the Berlin Research Lab, part of Acme Corporation.';
const GLOBEX = 'Globex Corporation in Paris researches quantum computing. Carol White directs Globex research in Paris.';

describe('Neo4j graph + Qdrant vectors', () => {
  const ids: string[] = [];

  it('runs on the Neo4j stores with vectors in Qdrant', async () => {
    expect(app.config.storage.mode).toBe('neo4j');
    expect(app.rt.stores.vectors).toBeInstanceOf(QdrantVectorStore);
    const health = (await (await app.request('/health')).json()) as { components?: Record<string, unknown> };
    expect(JSON.stringify(health)).toMatch(/vector/);
  });

  it('ingests documents and writes a point per chunk, entity and relationship', async () => {
    let chunks = 0;
    for (const content of [ACME, GLOBEX]) {
      const res = await app.request('/api/v1/documents', { method: 'POST', json: { content } });
      expect(res.status).toBe(201);
      const doc = (await res.json()) as {
        id: string;
        status: string;
        chunk_count: number;
        entity_count: number;
        relationship_count: number;
      };
      expect(doc.status).toBe('completed');
      ids.push(doc.id);
      chunks += doc.chunk_count;
    }
    expect(await points('chunk')).toBe(chunks);
    expect(await points('entity')).toBeGreaterThan(0);
    expect(await points('relationship')).toBeGreaterThan(0);
  });

  it.each(QUERY_MODES)('answers in %s mode', async (mode) => {
    const res = await app.request('/api/v1/query', {
      method: 'POST',
      json: { query: 'What does Acme Corporation build in Berlin?', mode },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { answer: string; mode: string; sources: Array<{ source_type: string; document_id?: string }> };
    expect(body.mode).toBe(mode);
    expect(body.answer.length).toBeGreaterThan(0);
    if (mode !== 'bypass') expect(body.sources.length).toBeGreaterThan(0);
    if (mode === 'naive' || mode === 'mix')
      expect(body.sources.some((s) => s.source_type === 'chunk' && s.document_id === ids[0])).toBe(true);
  });

  it('deleting every document leaves zero points of the workspace', async () => {
    for (const id of ids) {
      const res = await app.request(`/api/v1/documents/${id}`, { method: 'DELETE' });
      expect(res.status).toBeLessThan(300);
    }
    expect(await points('chunk')).toBe(0);
    expect(await points('entity')).toBe(0);
    expect(await points('relationship')).toBe(0);
  });
});
