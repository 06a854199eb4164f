import { randomUUID } from 'node:crypto';
import type { GraphStatsView } from '../../src/graph/explore';
import type { WorkspaceStats } from '../../src/graph/workspace-stats';
import { type TestApp, startTestApp } from '../helpers/app';

const DOCS = [
  { title: 'Café notes', content: 'Zoë Ångström opened a café in Zürich.\nThe café served Émile Durand every morning.' },
  { title: 'Harbour', content: 'Kenji Sato sailed from Osaka to Busan with Mina Park.\n東京 was their next stop with Kenji Sato.' },
];

describe('workspace statistics API', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
    for (const doc of DOCS) {
      const res = await app.request('/api/v1/documents', { method: 'POST', json: doc });
      expect(res.status).toBe(201);
    }
  });
  afterAll(() => app.close());

  it('counts documents, chunks, entities, relationships and really computed storage bytes', async () => {
    const res = await app.request(`/api/v1/workspaces/${app.workspace}/stats`);
    expect(res.status).toBe(200);
    const stats = (await res.json()) as WorkspaceStats;
    const graph = (await (await app.request('/api/v1/graph/stats')).json()) as GraphStatsView;
    const list = (await (await app.request('/api/v1/documents')).json()) as { documents: Array<{ id: string; chunk_count: number }> };
    const chunkTotal = list.documents.reduce((n, d) => n + d.chunk_count, 0);
    let chunkBytes = 0;
    for (const doc of list.documents) {
      const lineage = (await (await app.request(`/api/v1/documents/${doc.id}/lineage`)).json()) as { chunks: Array<{ chunk_id: string }> };
      for (const c of lineage.chunks) {
        const chunk = (await (await app.request(`/api/v1/chunks/${c.chunk_id}`)).json()) as { content: string };
        chunkBytes += Buffer.byteLength(chunk.content, 'utf8');
      }
    }
    const contentBytes = DOCS.reduce((n, d) => n + Buffer.byteLength(d.content, 'utf8'), 0);
    const embeddings = await app.rt.stores.vectors.bytes({ workspaceId: app.workspace });

    expect(stats).toEqual({
      workspace_id: app.workspace,
      documents: { total: 2, completed: 2, processing: 0, failed: 0 },
      chunks: { total: chunkTotal, avg_per_document: chunkTotal / 2 },
      entities: { total: graph.total_nodes, by_type: graph.node_types },
      relationships: { total: graph.total_edges },
      storage: {
        documents_bytes: contentBytes + chunkBytes,
        embeddings_bytes: embeddings,
        total_bytes: contentBytes + chunkBytes + embeddings,
      },
      extraction: {
        documents_with_warnings: 0,
        documents_failed_extraction: 0,
        records_parsed: expect.any(Number),
        records_kept: expect.any(Number),
        records_dropped: 0,
        dropped: {},
        truncated_chunks: 0,
        timed_out_chunks: 0,
      },
      document_count: 2,
      chunk_count: chunkTotal,
      entity_count: graph.total_nodes,
      relationship_count: graph.total_edges,
      storage_size_bytes: contentBytes + chunkBytes + embeddings,
    });
    expect(graph.total_nodes).toBeGreaterThan(0);
    expect(embeddings).toBeGreaterThan(0);
    expect(contentBytes).toBeGreaterThan(DOCS.reduce((n, d) => n + d.content.length, 0));
  });

  it('reports the workspace named in the path, whatever the header says; an unused workspace is all zeros', async () => {
    const viaOther = await app.request(`/api/v1/workspaces/${app.workspace}/stats`, { workspace: 'someone-else' });
    expect(((await viaOther.json()) as { documents: { total: number } }).documents.total).toBe(2);
    const unused = await app.createWorkspace();
    const empty = (await (await app.request(`/api/v1/workspaces/${unused}/stats`)).json()) as Record<string, unknown>;
    expect(empty).toEqual({
      workspace_id: unused,
      documents: { total: 0, completed: 0, processing: 0, failed: 0 },
      chunks: { total: 0, avg_per_document: 0 },
      entities: { total: 0, by_type: {} },
      relationships: { total: 0 },
      storage: { documents_bytes: 0, embeddings_bytes: 0, total_bytes: 0 },
      extraction: {
        documents_with_warnings: 0,
        documents_failed_extraction: 0,
        records_parsed: 0,
        records_kept: 0,
        records_dropped: 0,
        dropped: {},
        truncated_chunks: 0,
        timed_out_chunks: 0,
      },
      document_count: 0,
      chunk_count: 0,
      entity_count: 0,
      relationship_count: 0,
      storage_size_bytes: 0,
    });
    expect((await app.request('/api/v1/workspaces/bad%20id!/stats')).status).toBe(404);
    expect((await app.request(`/api/v1/workspaces/${randomUUID()}/stats`)).status).toBe(404);
  });
});
