import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pointId, uuidV5 } from '../../src/store/qdrant/point-id';
import { QdrantVectorStore, collectionName } from '../../src/store/qdrant/vectors';
import { loadQdrantContract } from '../fixtures/qdrant-openapi';
import { cosine } from './fixtures';

/**
 * The Qdrant adapter against a local HTTP stub of Qdrant's REST API, for what a real server cannot be made to do
 * on demand: the exact requests the adapter sends, collections of another dimension, outages and error answers.
 * The stub is held to Qdrant's own contract (../shared/qdrant/openapi-v1.18.json): every request it receives and
 * every answer it gives is checked against the document, and a test fails on any difference. Everything else runs
 * against the real server (test/contract/qdrant.test.ts, test/api/qdrant-vectors.test.ts).
 */

const contract = loadQdrantContract();

interface SeenRequest {
  method: string;
  path: string;
  body: Record<string, unknown> | null;
  acceptEncoding: string | undefined;
}

interface StubCollection {
  size: number;
  points: Map<string, { vector: number[]; payload: Record<string, unknown> }>;
  indexes: Record<string, unknown>;
}

function matches(payload: Record<string, unknown>, filter: { must?: Array<{ key: string; match: { value?: string; any?: string[] } }> }) {
  return (filter?.must ?? []).every(({ key, match }) => {
    const value = payload[key];
    const values = Array.isArray(value) ? value.map(String) : [String(value)];
    if (match.any) return match.any.some((v) => values.includes(v));
    return values.includes(String(match.value));
  });
}

/** A CollectionInfo as Qdrant 1.18 describes a fresh single-vector collection. */
function collectionInfo(c: StubCollection) {
  return {
    status: 'green',
    optimizer_status: 'ok',
    indexed_vectors_count: 0,
    points_count: c.points.size,
    segments_count: 2,
    config: {
      params: {
        vectors: { size: c.size, distance: 'Cosine' },
        shard_number: 1,
        replication_factor: 1,
        write_consistency_factor: 1,
        on_disk_payload: true,
      },
      hnsw_config: { m: 16, ef_construct: 100, full_scan_threshold: 10000, max_indexing_threads: 0, on_disk: false },
      optimizer_config: {
        deleted_threshold: 0.2,
        vacuum_min_vector_number: 1000,
        default_segment_number: 0,
        max_segment_size: null,
        memmap_threshold: null,
        indexing_threshold: 10000,
        flush_interval_sec: 5,
        max_optimization_threads: null,
      },
      wal_config: { wal_capacity_mb: 32, wal_segments_ahead: 0, wal_retain_closed: 1 },
      quantization_config: null,
    },
    payload_schema: c.indexes,
    update_queue: { length: 0 },
  };
}

/** A fault the stub answers with instead of serving the next request. */
type Fault = { status: number; error: string } | 'hang' | 'close';

/** Just enough of Qdrant 1.18 for the adapter, in Qdrant's `{result, status, time}` envelope, checked against its contract. */
function startStub(): Promise<{
  url: string;
  seen: SeenRequest[];
  violations: string[];
  faults: Fault[];
  collections: Map<string, StubCollection>;
  close(): Promise<void>;
}> {
  const seen: SeenRequest[] = [];
  const violations: string[] = [];
  const faults: Fault[] = [];
  const collections = new Map<string, StubCollection>();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stub');
      const method = req.method ?? '';
      const body = raw ? (JSON.parse(raw) as Record<string, any>) : null;
      seen.push({ method, path: url.pathname + url.search, body, acceptEncoding: req.headers['accept-encoding'] });
      const send = (status: number, payload: unknown) => {
        for (const problem of contract.checkResponse(method, url.pathname, status, payload))
          violations.push(`stub ${method} ${url.pathname}: ${problem}`);
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      const reply = (status: number, result: unknown) =>
        send(status, status < 300 ? { result, status: 'ok', time: 0 } : { status: { error: String(result) }, time: 0 });
      const refused = contract.checkRequest(method, url, body);
      if (refused.length > 0) {
        violations.push(...refused.map((p) => `adapter ${method} ${url.pathname}${url.search}: ${p}`));
        return reply(400, `Format error in JSON body: ${refused[0]}`);
      }
      const fault = faults.shift();
      if (fault === 'hang') return;
      if (fault === 'close') return req.socket.destroy();
      if (fault) return reply(fault.status, fault.error);
      const parts = url.pathname.split('/').filter(Boolean);
      const collection = parts[1] ? collections.get(parts[1]) : undefined;
      const key = `${method} ${parts.length > 2 ? `/${parts.slice(2).join('/')}` : parts.length === 2 ? '/:name' : '/'}`;
      switch (key) {
        case 'GET /:name':
          if (!collection) return reply(404, `Not found: Collection \`${parts[1]}\` doesn't exist!`);
          return reply(200, collectionInfo(collection));
        case 'GET /':
          return reply(200, { collections: [...collections.keys()].map((name) => ({ name })) });
        case 'GET /exists':
          return reply(200, { exists: collection !== undefined });
        case 'PUT /:name':
          collections.set(parts[1], { size: body!.vectors.size, points: new Map(), indexes: {} });
          return reply(200, true);
        case 'PUT /index': {
          if (!collection) return reply(404, 'Not found');
          const schema = body!.field_schema;
          collection.indexes[body!.field_name] =
            typeof schema === 'string' ? { data_type: schema, points: 0 } : { data_type: schema.type, params: schema, points: 0 };
          return reply(200, { operation_id: 1, status: 'completed' });
        }
        case 'PUT /points':
          if (!collection) return reply(404, 'Not found');
          for (const p of body!.points) {
            if (p.vector.length !== collection.size)
              return reply(400, `Wrong input: Vector dimension error: expected dim: ${collection.size}, got ${p.vector.length}`);
          }
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
        violations,
        faults,
        collections,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

describe("the Qdrant stub's contract check", () => {
  it('refuses requests and answers that Qdrant 1.18 does not allow', () => {
    const url = (path: string) => new URL(path, 'http://stub');
    expect(
      contract.checkRequest('PUT', url('/collections/c/points?wait=true'), { points: [{ id: 'p1', vector: [1], payload: {} }] }),
    ).toContain('body /points/0/id must match format "uuid"');
    expect(contract.checkRequest('POST', url('/collections/c/points/query?limit=3'), { query: [1] })).toContain(
      'query parameter limit is not documented',
    );
    expect(
      contract.checkRequest('POST', url('/collections/c/points/count'), {
        filter: { must: [{ key: 'k', match: { value: 'v' } }] },
        exact: true,
      }),
    ).toEqual([]);
    expect(contract.checkResponse('GET', '/collections/c/exists', 200, { result: { exists: 'yes' }, status: 'ok', time: 0 })).toContain(
      'answer 200: /result/exists must be boolean',
    );
    expect(
      contract.checkResponse('GET', '/collections/c', 200, {
        result: { config: { params: { vectors: { size: 4 } } } },
        status: 'ok',
        time: 0,
      }),
    ).toContain("answer 200: /result must have required property 'optimizer_status'");
    expect(contract.checkResponse('POST', '/collections/c/points/query', 404, { status: { error: 'Not found' }, time: 0 })).toEqual([]);
  });
});

describe('Qdrant vector store adapter (against a local REST stub)', () => {
  let stub: Awaited<ReturnType<typeof startStub>>;
  beforeEach(async () => {
    stub = await startStub();
  });
  afterEach(async () => {
    await stub.close();
    expect(stub.violations).toEqual([]);
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
    // Compressed answers come about 45 ms late from Qdrant 1.18 to Node's fetch: every request asks for them plain.
    expect(stub.seen.every((r) => r.acceptEncoding === 'identity')).toBe(true);
    expect((await store.search({ workspaceId: 'ws-b' }, 'chunk', [1, 0, 0], 5)).length).toBe(0);
    expect(await store.search(scope, 'chunk', [1, 0, 0, 0], 5)).toEqual([]);
  });

  it('fails start-up with one line naming SERVICE_EMBEDDING_DIMENSION when a collection has another dimension', async () => {
    stub.collections.set(collectionName('entity', 256), { size: 384, points: new Map(), indexes: {} });
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

  it('maps 5xx answers of Qdrant to 503-mapped errors and passes 4xx answers through', async () => {
    const store = QdrantVectorStore.create(stub.url, null);
    await store.prepare(2);
    stub.faults.push({ status: 503, error: 'Service unavailable: too many requests' });
    await expect(store.count({ workspaceId: 'a' }, 'chunk')).rejects.toMatchObject({
      code: 'ServiceUnavailable',
      message: 'Qdrant answered HTTP 503',
    });
    stub.faults.push({ status: 500, error: 'Service internal error: disk full' });
    await expect(store.upsert({ workspaceId: 'a' }, 'chunk', [{ id: 'x', vector: [1, 0], document_ids: [] }])).rejects.toMatchObject({
      code: 'ServiceUnavailable',
    });
    stub.faults.push({ status: 400, error: 'Bad request: malformed' });
    const refused = await store.count({ workspaceId: 'a' }, 'chunk').catch((err: unknown) => err);
    expect(refused).toMatchObject({ status: 400 });
    expect(refused).not.toMatchObject({ code: 'ServiceUnavailable' });
    expect(await store.count({ workspaceId: 'a' }, 'chunk')).toBe(0);
  });

  it('sends a request again, up to three times, when the server closed the connection it went out on', async () => {
    const store = QdrantVectorStore.create(stub.url, null);
    const scope = { workspaceId: 'a' };
    await store.upsert(scope, 'chunk', [{ id: 'x', vector: [1, 0], document_ids: ['d'] }]);
    stub.faults.push('close');
    expect((await store.search(scope, 'chunk', [1, 0], 3)).map((h) => h.id)).toEqual(['x']);
    stub.faults.push('close', 'close', 'close');
    await store.upsert(scope, 'chunk', [{ id: 'y', vector: [0, 1], document_ids: ['d'] }]);
    expect(await store.count(scope, 'chunk')).toBe(2);
    // Closed four times in a row: the server is going away, and the caller hears it as an outage.
    stub.faults.push('close', 'close', 'close', 'close');
    await expect(store.count(scope, 'chunk')).rejects.toMatchObject({ code: 'ServiceUnavailable' });
  });

  it('reports a server that accepts connections but does not answer as down within the ping timeout', async () => {
    const store = QdrantVectorStore.create(stub.url, null);
    await store.prepare(2);
    stub.faults.push('hang');
    expect(await store.ping(200)).toBe(false);
    expect(await store.ping(2_000)).toBe(true);
  });
});
