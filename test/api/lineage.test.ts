import type { z } from 'zod';
import type { documentGraphLineageSchema, entityLineageSchema } from '../../src/routes/lineage/schema';
import { type TestApp, startTestApp } from '../helpers/app';

type DocumentGraphLineage = z.infer<typeof documentGraphLineageSchema>;
type EntityLineage = z.infer<typeof entityLineageSchema>;

const STORY = [
  '# Engines of Computation',
  '',
  'Ada Lovelace worked with Charles Babbage in London.',
  'Charles Babbage designed the Analytical Engine at Cambridge University.',
  'Ada Lovelace wrote the first published algorithm for the Analytical Engine.',
  '',
  'Mary Somerville introduced Ada Lovelace to Charles Babbage.',
  'Mary Somerville translated works of Pierre Laplace into English.',
  'The Royal Society in London honoured Mary Somerville.',
  '',
  'Alan Turing studied at Cambridge University and later worked at Bletchley Park.',
  'Alan Turing described a universal machine in London.',
  'Grace Hopper built compilers for the Harvard Mark I at Harvard University.',
  'Grace Hopper admired the Analytical Engine and the notes of Ada Lovelace.',
].join('\n');

interface DocumentLineage {
  document_id: string;
  chunks: Array<{ chunk_id: string; chunk_index: number; start_line: number; end_line: number; entity_count: number; tokens: number }>;
  entities: Array<{ entity_id: string; entity_name: string; entity_type: string; chunk_ids: string[] }>;
}
interface ChunkDetail {
  chunk_id: string;
  document_id: string;
  content: string;
  index: number;
  char_range: { start: number; end: number };
  start_line: number;
  end_line: number;
  entities: Array<{ id: string; name: string }>;
  relationships: Array<{ id: string; source: string; target: string; source_name: string; target_name: string }>;
  extraction_metadata: { llm_model: string | null; entity_count: number; gleaning_passes: number } | null;
}
interface Provenance {
  entity_id: string;
  entity_name: string;
  sources: Array<{
    document_id: string;
    document_name: string;
    chunks: Array<{ chunk_id: string; start_line: number; end_line: number; source_text: string }>;
    first_extracted_at: string | null;
  }>;
  total_extraction_count: number;
  related_entities: Array<{ entity_id: string; relationship_type: string; shared_documents: number }>;
}

/** Lines start..end (1-based, inclusive) of a text, each with its line break. */
const lines = (text: string, start: number, end: number) =>
  text
    .split('\n')
    .map((line) => `${line}\n`)
    .slice(start - 1, end)
    .join('');

describe('lineage API', () => {
  let app: TestApp;
  let documentId: string;
  const get = async <T>(path: string, status = 200): Promise<T> => {
    const res = await app.request(`/api/v1${path}`);
    expect({ path, status: res.status }).toEqual({ path, status });
    return (await res.json()) as T;
  };

  beforeAll(async () => {
    app = await startTestApp({ SERVICE_CHUNK_TOKENS: '60', SERVICE_CHUNK_OVERLAP_TOKENS: '10' });
    const res = await app.request('/api/v1/documents', { method: 'POST', json: { content: STORY, title: 'Engines' } });
    expect(res.status).toBe(201);
    documentId = ((await res.json()) as { id: string }).id;
  });
  afterAll(() => app.close());

  it('round-trips document -> chunks -> entities -> provenance -> the same chunk text', async () => {
    const lineage = await get<DocumentLineage>(`/documents/${documentId}/lineage`);
    expect(lineage.document_id).toBe(documentId);
    expect(lineage.chunks.length).toBeGreaterThan(1);
    expect(lineage.entities.length).toBeGreaterThan(3);

    const chunks = new Map<string, ChunkDetail>();
    for (const summary of lineage.chunks) {
      const chunk = await get<ChunkDetail>(`/chunks/${summary.chunk_id}`);
      expect(chunk).toMatchObject({ chunk_id: summary.chunk_id, document_id: documentId, index: summary.chunk_index });
      expect(STORY.slice(chunk.char_range.start, chunk.char_range.end)).toBe(chunk.content);
      expect(lines(STORY, chunk.start_line, chunk.end_line)).toContain(chunk.content);
      for (const e of chunk.entities) await get(`/graph/entities/${encodeURIComponent(e.id)}`);
      for (const r of chunk.relationships) {
        expect(chunk.entities.map((e) => e.id)).toEqual(expect.arrayContaining([r.source, r.target]));
      }
      chunks.set(chunk.chunk_id, chunk);
    }

    for (const entity of lineage.entities) {
      expect(entity.chunk_ids.every((id) => chunks.has(id))).toBe(true);
      const provenance = await get<Provenance>(`/entities/${encodeURIComponent(entity.entity_id)}/provenance`);
      expect(provenance).toMatchObject({ entity_id: entity.entity_id, entity_name: entity.entity_name });
      const [source] = provenance.sources;
      expect(source).toMatchObject({ document_id: documentId, document_name: 'Engines' });
      expect(source.chunks.map((c) => c.chunk_id).sort()).toEqual([...entity.chunk_ids].sort());
      expect(provenance.total_extraction_count).toBe(entity.chunk_ids.length);
      for (const passage of source.chunks) {
        const chunk = chunks.get(passage.chunk_id) as ChunkDetail;
        expect(chunk.content).toContain(passage.source_text);
        expect(lines(STORY, passage.start_line, passage.end_line)).toContain(passage.source_text);
        expect(passage.source_text.toLowerCase()).toContain(entity.entity_name.toLowerCase());
        expect(chunk.entities.map((e) => e.id)).toContain(entity.entity_id);
      }
      for (const related of provenance.related_entities) {
        await get(`/entities/${encodeURIComponent(related.entity_id)}/provenance`);
        expect(related.shared_documents).toBe(1);
      }
    }
  });

  it('gives chunk detail with extraction metadata and a chunk lineage whose ids resolve', async () => {
    const lineage = await get<DocumentLineage>(`/documents/${documentId}/lineage`);
    const first = lineage.chunks[0].chunk_id;
    const detail = await get<ChunkDetail>(`/chunks/${first}`);
    expect(detail.extraction_metadata).toMatchObject({ llm_model: expect.any(String), gleaning_passes: expect.any(Number) });
    expect(detail.extraction_metadata?.entity_count).toBeGreaterThanOrEqual(detail.entities.length > 0 ? 1 : 0);
    const chunkLineage = await get<Record<string, unknown>>(`/chunks/${first}/lineage`);
    expect(chunkLineage).toMatchObject({
      chunk_id: first,
      document_id: documentId,
      document_name: 'Engines',
      document_type: expect.any(String),
      chunk_index: 0,
      start_line: detail.start_line,
      end_line: detail.end_line,
      start_offset: detail.char_range.start,
      end_offset: detail.char_range.end,
      entity_count: detail.entities.length,
      relationship_count: detail.relationships.length,
      embedding_dimension: expect.any(Number),
    });
    expect(chunkLineage.entity_names).toEqual(detail.entities.map((e) => e.name));
    await get(`/documents/${chunkLineage.document_id as string}`);
  });

  it('returns document graph lineage holding both documented shapes, every id resolving', async () => {
    const body = await get<DocumentGraphLineage>(`/lineage/documents/${documentId}`);
    const lineage = await get<DocumentLineage>(`/documents/${documentId}/lineage`);
    expect(body.document).toEqual({ id: documentId, title: 'Engines', status: 'completed' });
    expect(body.chunk_count).toBe(lineage.chunks.length);
    expect(body.extraction_stats.unique_entities).toBe(lineage.entities.length);
    expect(body.extraction_stats.total_entities).toBe(lineage.chunks.reduce((n, c) => n + c.entity_count, 0));
    expect(body.entities.map((e) => e.id).sort()).toEqual(lineage.entities.map((e) => e.entity_id).sort());
    expect(body.entities_contributed.every((e) => e.is_primary_source)).toBe(true);
    expect(body.entities.every((e) => !e.is_shared)).toBe(true);
    for (const c of body.chunks) await get(`/chunks/${c.id}`);
    for (const r of body.relationships) {
      expect(r.source_chunks.length).toBeGreaterThan(0);
      for (const end of [r.source, r.target]) await get(`/graph/entities/${encodeURIComponent(end)}`);
    }
    expect(body.relationships_contributed).toHaveLength(body.extraction_stats.unique_relationships);
  });

  it('returns entity lineage holding both documented shapes, with line ranges of real chunks', async () => {
    const body = await get<EntityLineage>('/lineage/entities/ada%20lovelace');
    expect(body.entity).toMatchObject({ id: 'ADA_LOVELACE', name: 'Ada Lovelace', type: expect.any(String) });
    expect(body).toMatchObject({ entity_name: 'Ada Lovelace', entity_type: body.entity.type, merge_history: [] });
    expect(body.source_count).toBe(body.sources.length);
    expect(body.description_versions.length).toBeGreaterThan(0);
    const [doc] = body.source_documents;
    expect(doc.document_id).toBe(documentId);
    for (const range of doc.line_ranges) {
      const chunk = await get<ChunkDetail>(`/chunks/${range.chunk_id}`);
      expect([range.start_line, range.end_line]).toEqual([chunk.start_line, chunk.end_line]);
    }
    for (const source of body.sources) {
      expect(source).toMatchObject({ document_id: documentId, document_title: 'Engines', confidence: 1 });
      expect(doc.chunk_ids).toContain(source.chunk_id);
    }
  });

  it('follows a merge: the old name leads to the survivor, chunks name it, and deleting the document leaves nothing', async () => {
    const workspace = `${app.workspace}-merge`;
    const call = (path: string, init: RequestInit & { json?: unknown } = {}) => app.request(`/api/v1${path}`, { ...init, workspace });
    const created = await call('/documents', { method: 'POST', json: { content: STORY, title: 'Engines' } });
    expect(created.status).toBe(201);
    const docId = ((await created.json()) as { id: string }).id;
    const merged = await call('/graph/entities/merge', {
      method: 'POST',
      json: { source_ids: ['Charles Babbage'], target_id: 'Ada Lovelace', reason: 'test' },
    });
    expect(merged.status).toBe(200);

    const lineage = (await (await call('/lineage/entities/charles%20babbage')).json()) as EntityLineage;
    expect(lineage.entity.id).toBe('ADA_LOVELACE');
    expect(lineage.merge_history).toEqual([{ date: expect.any(String), merged_from: ['CHARLES_BABBAGE'], reason: 'test' }]);
    expect(lineage.description_versions.map((v) => v.name)).toEqual(expect.arrayContaining(['Ada Lovelace', 'Charles Babbage']));
    expect((await call('/entities/CHARLES_BABBAGE/provenance')).status).toBe(404);
    const provenance = (await (await call('/entities/ADA_LOVELACE/provenance')).json()) as Provenance;
    for (const passage of provenance.sources[0].chunks) {
      const chunk = (await (await call(`/chunks/${passage.chunk_id}`)).json()) as ChunkDetail;
      expect(chunk.entities.map((e) => e.id)).toContain('ADA_LOVELACE');
      expect(chunk.entities.map((e) => e.id)).not.toContain('CHARLES_BABBAGE');
      expect(chunk.content).toContain(passage.source_text);
    }

    expect((await call(`/documents/${docId}`, { method: 'DELETE' })).status).toBe(204);
    expect(await (await call('/graph/stats')).json()).toMatchObject({ total_nodes: 0, total_edges: 0 });
    const scope = { workspaceId: workspace };
    expect(await app.rt.stores.vectors.count(scope, 'entity')).toBe(0);
    expect(await app.rt.stores.vectors.count(scope, 'relationship')).toBe(0);
  });

  it('answers unknown ids with 404 problem details that also carry error and message', async () => {
    for (const path of [
      '/documents/nope/lineage',
      '/chunks/nope-chunk-0',
      '/chunks/nope-chunk-0/lineage',
      '/entities/NOBODY/provenance',
      '/lineage/entities/nobody',
      '/lineage/documents/nope',
    ]) {
      const body = await get<Record<string, unknown>>(path, 404);
      expect(body).toMatchObject({ status: 404, type: expect.stringMatching(/not-found$/), error: 'NotFound' });
      expect(body.message).toBe(body.detail);
    }
    const elsewhere = await app.request('/api/v1/entities/ADA_LOVELACE/provenance', { workspace: `${app.workspace}-other` });
    expect(elsewhere.status).toBe(404);
    const chunkElsewhere = await app.request(`/api/v1/chunks/${documentId}-chunk-0`, { workspace: `${app.workspace}-other` });
    expect(chunkElsewhere.status).toBe(404);
  });
});
