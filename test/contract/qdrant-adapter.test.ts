import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pointId, uuidV5 } from '../../src/store/qdrant/point-id';
import { QdrantVectorStore, collectionName } from '../../src/store/qdrant/vectors';
import { cosine } from './fixtures';

/**
 * The Qdrant adapter against a local HTTP stub of Qdrant's REST API: the requests it sends (collections with a
 * tenant-keyed payload index, upserts with deterministic ids, filtered queries) and how it reads the answers.
 * The real server runs the vector-store contract in test/contract/qdrant.test.ts when QDRANT_URL is set.
 */

interface SeenRequest {
  method: string;
  path: string;
  body: Record<string, unknown> | null;
}

interface StubCollection {
  size: number;
  points: Map<string, { vector: number[]; payload: Record<string, unknown> }>;
}

function matches(payload: Record<string, unknown>, filter: { must?: Array<{ key: string; match: { value?: string; any?: string[] } }> }) {
  return (filter?.must ?? []).every(({ key, match }) => {
    const value = payload[key];
    const values = Array.isArray(value) ? value.map(String) : [String(value)];
    if (match.any) return match.any.some((v) => values.includes(v));
    return values.includes(String(match.value));
  });
}

/** Just enough of Qdrant 1.x for the adapter, answering in Qdrant's `{result, status, time}` envelope. */
function startStub(): Promise<{ url: string; seen: SeenRequest[]; collections: Map<string, StubCollection>; close(): Promise<void> }> {
  const seen: SeenRequest[] = [];
  const collections = new Map<string, StubCollection>();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stub');
      const body = raw ? (JSON.parse(raw) as Record<string, any>) : null;
      seen.push({ method: req.method ?? '', path: url.pathname + url.search, body });
      const reply = (status: number, result: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(status < 300 ? { result, status: 'ok', time: 0 } : { status: { error: String(result) }, time: 0 }));
      };
      const parts = url.pathname.split('/').filter(Boolean);
      const collection = parts[1] ? collections.get(parts[1]) : undefined;
      const key = `${req.method} ${parts.length > 2 ? `/${parts.slice(2).join('/')}` : parts.length === 2 ? '/:name' : '/'}`;
      switch (key) {
        case 'GET /:name':
          if (parts[0] === 'collections' && !collection) return reply(404, 'Not found');
          if (parts[0] === 'collections')
            return reply(200, { config: { params: { vectors: { size: collection!.size, distance: 'Cosine' } } } });
          return reply(200, { collections: [...collections.keys()].map((name) => ({ name })) });
        case 'GET /':
          return reply(200, { collections: [...collections.keys()].map((name) => ({ name })) });
        case 'GET /exists':
          return reply(200, { exists: collection !== undefined });
        case 'PUT /:name':
          collections.set(parts[1], { size: body!.vectors.size, points: new Map() });
          return reply(200, true);
        case 'PUT /index':
          return reply(200, { operation_id: 1, status: 'completed' });
        case 'PUT /points':
          if (!collection) return reply(404, 'Not found');
          for (const p of body!.points) collection.points.set(p.id, { vector: p.vector, payload: p.payload });
          return reply(200, { operation_id: 2, status: 'completed' });
        case 'POST /points/query': {
          if (!collection) return reply(404, 'Not found');
          const points = [...collection.points]
            .filter(([, p]) => matches(p.payload, body!.filter))
            .map(([id, p]) => ({ id, version: 1, score: cosine(p.vector, body!.query), payload: { record_id: p.payload.record_id } }))
            .sort((a, b) => b.score - a.score)
            .slice(0, body!.limit);
          return reply(200, { points });
        }
        case 'POST /points/count': {
          if (!collection) return reply(404, 'Not found');
          return reply(200, { count: [...collection.points.values()].filter((p) => matches(p.payload, body!.filter)).length });
        }
        case 'POST /points/delete':
          if (!collection) return reply(404, 'Not found');
          for (const [id, p] of collection.points) {
            if (body!.points?.includes(id) || (body!.filter && matches(p.payload, body!.filter))) collection.points.delete(id);
          }
          return reply(200, { operation_id: 3, status: 'completed' });
        default:
          return reply(404, `no stub for ${key}`);
      }
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        seen,
        collections,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

describe('Qdrant vector store adapter (against a local REST stub)', () => {
  let stub: Awaited<ReturnType<typeof startStub>>;
  beforeEach(async () => {
    stub = await startStub();
  });
  afterEach(async () => {
    await stub.close();
  });

  it('derives point ids as name-based UUIDs (version 5) of workspace, kind and id, tenants apart', () => {
    // The same value Python's uuid.uuid5(uuid.NAMESPACE_URL, 'ws/chunk/doc-1-chunk-0') gives.
    expect(uuidV5('ws/chunk/doc-1-chunk-0')).toBe('9bd37f38-0834-59ef-9b56-74d22fa05289');
    expect(pointId({ workspaceId: 'ws' }, 'chunk', 'doc-1-chunk-0')).toBe('9bd37f38-0834-59ef-9b56-74d22fa05289');
    expect(pointId({ workspaceId: 'ws', tenantId: 't1' }, 'chunk', 'doc-1-chunk-0')).toBe(uuidV5('t1/ws/chunk/doc-1-chunk-0'));
    expect(pointId({ workspaceId: 'ws' }, 'entity', 'doc-1-chunk-0')).not.toBe(pointId({ workspaceId: 'ws' }, 'chunk', 'doc-1-chunk-0'));
  });

  it('creates a cosine collection per kind and dimension with workspace_id as tenant key and indexed document_ids', async () => {
    const store = QdrantVectorStore.create(stub.url, null);
    await store.prepare(256);
    expect([...stub.collections.keys()].sort()).toEqual(['kgrag_chunk_256', 'kgrag_entity_256', 'kgrag_relationship_256']);
    const created = stub.seen.filter((r) => r.method === 'PUT' && r.path === '/collections/kgrag_chunk_256');
    expect(created.map((r) => r.body)).toEqual([{ vectors: { size: 256, distance: 'Cosine' } }]);
    const indexes = stub.seen.filter((r) => r.path.startsWith('/collections/kgrag_chunk_256/index')).map((r) => r.body);
    expect(indexes).toEqual(
      expect.arrayContaining([
        { field_name: 'workspace_id', field_schema: { type: 'keyword', is_tenant: true } },
        { field_name: 'tenant_id', field_schema: 'keyword' },
        { field_name: 'document_ids', field_schema: 'keyword' },
      ]),
    );
  });

  it('upserts points with deterministic ids and workspace payload, and searches with workspace and document filters', async () => {
    const store = QdrantVectorStore.create(stub.url, null);
    const scope = { workspaceId: 'ws-a' };
    await store.upsert(scope, 'chunk', [
      { id: 'c1', vector: [1, 0, 0], document_ids: ['d1'] },
      { id: 'c2', vector: [0, 1, 0], document_ids: ['d2'] },
    ]);
    const upsert = stub.seen.find((r) => r.method === 'PUT' && r.path.startsWith('/collections/kgrag_chunk_3/points'));
    expect(upsert?.path).toBe('/collections/kgrag_chunk_3/points?wait=true');
    expect(upsert?.body).toEqual({
      points: [
        {
          id: pointId(scope, 'chunk', 'c1'),
          vector: [1, 0, 0],
          payload: { tenant_id: '', workspace_id: 'ws-a', record_id: 'c1', document_ids: ['d1'] },
        },
        {
          id: pointId(scope, 'chunk', 'c2'),
          vector: [0, 1, 0],
          payload: { tenant_id: '', workspace_id: 'ws-a', record_id: 'c2', document_ids: ['d2'] },
        },
      ],
    });

    const hits = await store.search(scope, 'chunk', [1, 0.1, 0], 5, { documentIds: ['d1', 'd9'] });
    expect(hits.map((h) => h.id)).toEqual(['c1']);
    expect(hits[0].score).toBeCloseTo(cosine([1, 0, 0], [1, 0.1, 0]), 6);
    const query = stub.seen.find((r) => r.path === '/collections/kgrag_chunk_3/points/query');
    expect(query?.body).toEqual({
      query: [1, 0.1, 0],
      limit: 5,
      with_payload: ['record_id'],
      filter: {
        must: [
          { key: 'workspace_id', match: { value: 'ws-a' } },
          { key: 'tenant_id', match: { value: '' } },
          { key: 'document_ids', match: { any: ['d1', 'd9'] } },
        ],
      },
    });
    expect((await store.search({ workspaceId: 'ws-b' }, 'chunk', [1, 0, 0], 5)).length).toBe(0);
    expect(await store.search(scope, 'chunk', [1, 0, 0, 0], 5)).toEqual([]);
  });

  it('counts, deletes and drops a workspace across the collections of every dimension', async () => {
    const store = QdrantVectorStore.create(stub.url, null);
    const [a, b] = [{ workspaceId: 'a' }, { workspaceId: 'b' }];
    await store.upsert(a, 'chunk', [
      { id: 'x', vector: [1, 0], document_ids: [] },
      { id: 'y', vector: [0, 1], document_ids: [] },
    ]);
    await store.upsert(a, 'entity', [{ id: 'e', vector: [1, 0, 0, 0], document_ids: [] }]);
    await store.upsert(b, 'chunk', [{ id: 'x', vector: [1, 0], document_ids: [] }]);
    expect(await store.count(a, 'chunk')).toBe(2);
    expect(await store.bytes(a)).toBe(2 * 2 * 4 + 4 * 4);
    await store.delete(a, 'chunk', ['x']);
    expect(await store.count(a, 'chunk')).toBe(1);
    expect(await store.count(b, 'chunk')).toBe(1);
    await store.dropWorkspace(a);
    expect(await store.bytes(a)).toBe(0);
    expect(await store.count(b, 'chunk')).toBe(1);
  });

  it('refuses a batch whose dimension differs from the vectors the workspace already holds for that kind', async () => {
    const store = QdrantVectorStore.create(stub.url, null);
    const scope = { workspaceId: 'a' };
    await store.upsert(scope, 'chunk', [{ id: 'x', vector: [1, 0], document_ids: [] }]);
    await expect(store.upsert(scope, 'chunk', [{ id: 'y', vector: [1, 0, 0], document_ids: [] }])).rejects.toThrow(
      'vectors have dimension 3, the chunk index holds 2',
    );
    await store.upsert({ workspaceId: 'other' }, 'chunk', [{ id: 'y', vector: [1, 0, 0], document_ids: [] }]);
    expect(await store.count({ workspaceId: 'other' }, 'chunk')).toBe(1);
  });

  it('fails start-up with one line naming SERVICE_EMBEDDING_DIMENSION when a collection has another dimension', async () => {
    stub.collections.set(collectionName('entity', 256), { size: 384, points: new Map() });
    const store = QdrantVectorStore.create(stub.url, null);
    await expect(store.prepare(256)).rejects.toThrow(
      /^Qdrant collection kgrag_entity_256 holds 384-dimension vectors, not SERVICE_EMBEDDING_DIMENSION=256; [^\n]+$/,
    );
  });

  it('fails start-up with one line naming QDRANT_URL when nothing answers, and maps later outages to 503 errors', async () => {
    const store = QdrantVectorStore.create(stub.url, null);
    await store.prepare(4);
    await stub.close();
    await expect(QdrantVectorStore.create(stub.url, null).prepare(4)).rejects.toThrow(
      new RegExp(`^QDRANT_URL ${stub.url} is unreachable: ECONNREFUSED; start Qdrant or fix QDRANT_URL$`),
    );
    expect(await store.ping()).toBe(false);
    await expect(store.count({ workspaceId: 'a' }, 'chunk')).rejects.toMatchObject({ code: 'ServiceUnavailable' });
    stub = await startStub();
  });
});
