import { type TestApp, startTestApp } from '../helpers/app';
import { isolatedProse } from '../fixtures/corpus';
import { json, upload } from '../fixtures/documents';
import { markerFailingProviders } from '../fixtures/providers';
import { settleEmbeddingRefreshes } from '../../src/ingest/merge/merge-stage';
import { countTokens } from '../../src/llm/tokens';

/**
 * Incremental updates (PUT /documents/:id, uploads with replace_existing): unchanged chunks keep their extraction,
 * the graph ends as after delete + re-ingest of the new text, updates of one document are serialised and a
 * failed update keeps the previous version.
 */

const MARKER = 'Zyxwvutsrq';
const SHARED = ['Ada Lovelace', 'Acme Research', 'Grace Hopper', 'Globex Labs'];

/**
 * One paragraph of 82 to 90 tokens, so one chunk at 100-token windows (a chunk ends on the paragraph end in the
 * last 20 tokens of its window): its own coined entities and one shared pair.
 */
function paragraph(n: number, extra = ''): string {
  const a = SHARED[n % SHARED.length];
  const b = SHARED[(n + 1) % SHARED.length];
  let text = `${isolatedProse(n, 2)} ${a} met ${b} there.${extra}`;
  while (countTokens(text) < 82) text += ' More notes follow.';
  return text;
}

function documentOf(numbers: number[]): string {
  return numbers.map((n) => paragraph(n)).join('\n\n');
}

interface GraphSnapshot {
  entities: Array<Record<string, unknown>>;
  relationships: Array<Record<string, unknown>>;
}

/** The workspace graph with chunk ids written as `<label>#<index>` (labels name documents), order-free. */
async function snapshot(app: TestApp, workspace: string, labels: Record<string, string>): Promise<GraphSnapshot> {
  const scope = { workspaceId: workspace };
  const { graph, chunks } = app.rt.stores;
  const docIds = Object.keys(labels);
  const index = new Map<string, string>();
  for (const id of docIds) for (const c of await chunks.listByDocument(scope, id)) index.set(c.id, `${labels[id]}#${c.index}`);
  const source = (ids: string[]) => ids.map((id) => index.get(id) ?? `missing:${id}`).sort();
  const lines = (text: string) => text.split('\n').sort();
  const entities = (await graph.listEntities(scope, { limit: 100_000, offset: 0 })).items.map((e) => ({
    id: e.id,
    name: e.name,
    type: e.entity_type,
    description: lines(e.description),
    sources: source(e.source_chunk_ids),
    documents: e.document_ids.map((d) => labels[d] ?? d).sort(),
  }));
  const relationships = (await graph.listRelationships(scope, { limit: 100_000, offset: 0 })).items.map((r) => ({
    id: r.id,
    source: r.source,
    target: r.target,
    type: r.relation_type,
    weight: r.weight,
    keywords: [...r.keywords].sort(),
    description: lines(r.description),
    sources: source(r.source_chunk_ids),
    documents: r.document_ids.map((d) => labels[d] ?? d).sort(),
  }));
  const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
  return { entities: entities.sort(byId), relationships: relationships.sort(byId) };
}

describe('incremental document updates', () => {
  let app: TestApp;
  let failing: ReturnType<typeof markerFailingProviders>;

  beforeAll(async () => {
    // Resolution off: its merges depend on the order names arrive in, and the equivalence below compares exact graphs.
    app = await startTestApp(
      {
        SERVICE_LLM_RETRIES: '0',
        SERVICE_CHUNK_TOKENS: '100',
        SERVICE_CHUNK_OVERLAP_TOKENS: '0',
        SERVICE_ENTITY_RESOLUTION: 'false',
      },
      { providers: (built) => (failing = markerFailingProviders(built, MARKER)).registry },
    );
    failing.state.failing = false;
  });
  afterAll(async () => {
    await settleEmbeddingRefreshes(app.rt);
    await app.close();
  });

  const create = async (content: string, workspace?: string, extra: Record<string, unknown> = {}) => {
    const res = await app.request('/api/v1/documents', { method: 'POST', json: { content, ...extra }, workspace });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body.status).toBe('completed');
    return body.id as string;
  };
  const put = (id: string, body: Record<string, unknown>, workspace?: string) =>
    app.request(`/api/v1/documents/${id}`, { method: 'PUT', json: body, workspace });
  const llmCalls = () => failing.state.calls.filter((c) => c.task !== 'embed').length;

  it('ends with the graph that delete + re-ingest of the new text gives, on shared entities too', async () => {
    const other = documentOf([100, 101, 102]);
    const before = documentOf([0, 1, 2, 3, 4, 5, 6, 7]);
    // Paragraph 2 changed, 5 removed, a new one inserted after 6 (later chunks move to other indexes).
    const after = [0, 1, 2, 3, 4, 6, 8, 7].map((n) => paragraph(n, n === 2 ? ' Claude Shannon joined them.' : '')).join('\n\n');
    const options = { use_llm_summarization: false };

    const updated = await app.workspaceNamed('updated');
    const otherU = await create(other, 'updated', options);
    const docU = await create(before, 'updated', options);
    const res = await put(docU, { content: after }, 'updated');
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ id: docU, status: 'completed', version: 2 });
    expect(body.update).toMatchObject({ chunks_total: 8, chunks_extracted: 2, chunks_reused: 6, chunks_removed: 2 });

    const rebuilt = await app.workspaceNamed('rebuilt');
    const otherR = await create(other, 'rebuilt', options);
    const oldR = await create(before, 'rebuilt', options);
    expect((await app.request(`/api/v1/documents/${oldR}`, { method: 'DELETE', workspace: 'rebuilt' })).status).toBe(204);
    const docR = await create(after, 'rebuilt', options);

    const left = await snapshot(app, updated, { [otherU]: 'other', [docU]: 'doc' });
    const right = await snapshot(app, rebuilt, { [otherR]: 'other', [docR]: 'doc' });
    expect(left.entities.length).toBeGreaterThan(10);
    expect(left.entities.some((e) => e.id === 'CLAUDE_SHANNON')).toBe(true);
    expect(JSON.stringify(left)).not.toContain('missing:');
    expect(left).toEqual(right);

    await settleEmbeddingRefreshes(app.rt);
    const count = async (workspace: string, kind: 'chunk' | 'entity' | 'relationship') =>
      app.rt.stores.vectors.count({ workspaceId: workspace }, kind);
    for (const kind of ['chunk', 'entity', 'relationship'] as const) expect(await count(updated, kind)).toBe(await count(rebuilt, kind));

    const detail = await json(await app.request(`/api/v1/documents/${docU}`, { workspace: 'updated' }));
    expect(detail).toMatchObject({ version: 2, content: after, chunk_count: 8 });
    expect(detail.updated_at > detail.created_at).toBe(true);
  }, 120_000);

  it('writes the new chunks before the old ones go: the document never has its graph without chunks', async () => {
    const workspace = await app.workspaceNamed('never-empty');
    const id = await create(documentOf([10, 11, 12]), 'never-empty', { use_llm_summarization: false });
    const scope = { workspaceId: workspace };
    const store = app.rt.stores.chunks;
    const deleteByDocument = store.deleteByDocument.bind(store);
    const left: number[] = [];
    const spy = jest.spyOn(store, 'deleteByDocument').mockImplementation(async (s, documentId, keep) => {
      const deleted = await deleteByDocument(s, documentId, keep);
      if (documentId === id) left.push((await store.listByDocument(s, documentId)).length);
      return deleted;
    });
    try {
      const res = await put(id, { content: documentOf([10, 12]) }, 'never-empty');
      expect(res.status).toBe(200);
      expect((await json(res)).update).toMatchObject({ chunks_total: 2, chunks_removed: 1 });
    } finally {
      spy.mockRestore();
    }
    // The one deletion of the update left the two new chunks in place.
    expect(left).toEqual([2]);
    expect((await store.listByDocument(scope, id)).map((c) => c.index)).toEqual([0, 1]);
  }, 60_000);

  it('pays at most 15 % of a full ingest in LLM calls for a 10 % edit of a 50-chunk document', async () => {
    const numbers = Array.from({ length: 50 }, (_, i) => 200 + i);
    const id = await create(documentOf(numbers));
    const edited = numbers.map((n, i) => paragraph(i % 10 === 3 ? n + 1000 : n)).join('\n\n');

    failing.state.calls = [];
    const res = await put(id, { content: edited });
    expect(res.status).toBe(200);
    const body = await json(res);
    const updateCalls = llmCalls();
    expect(body.update).toMatchObject({ chunks_total: 50, chunks_extracted: 5, chunks_reused: 45 });

    failing.state.calls = [];
    await create(edited, 'full-ingest');
    const fullCalls = llmCalls();
    expect(fullCalls).toBeGreaterThanOrEqual(100);
    expect(updateCalls).toBeGreaterThan(0);
    expect(updateCalls).toBeLessThanOrEqual(0.15 * fullCalls);
    expect(body.update.llm_calls).toBe(updateCalls);
  }, 300_000);

  it('serialises concurrent updates of one document: both apply, one after the other', async () => {
    const id = await create(documentOf([300, 301, 302]));
    const first = documentOf([300, 301, 303]);
    const second = documentOf([300, 304, 302]);
    const answers = await Promise.all([put(id, { content: first }), put(id, { content: second })]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    const bodies = await Promise.all(answers.map((r) => json(r)));
    expect(bodies.map((b) => b.version).sort()).toEqual([2, 3]);
    const last = bodies[0].version === 3 ? first : second;
    const detail = await json(await app.request(`/api/v1/documents/${id}`));
    expect(detail).toMatchObject({ version: 3, content: last });

    const scope = { workspaceId: app.workspace };
    const chunks = (await app.rt.stores.chunks.listByDocument(scope, id)).sort((a, b) => a.index - b.index);
    expect(chunks.map((c) => c.content.trim())).toEqual(last.split('\n\n'));
    // Entities only the other text named are gone; those of the last text are there.
    const names = (await app.rt.stores.graph.entitiesOfDocument(scope, id)).map((e) => e.name);
    const gone = last === first ? isolatedProse(304, 1) : isolatedProse(303, 1);
    const kept = last === first ? isolatedProse(303, 1) : isolatedProse(304, 1);
    const firstName = (text: string) => text.split(' worked')[0];
    expect(names).toContain(firstName(kept));
    expect(names).not.toContain(firstName(gone));
  });

  it('deletes a document only before or after an update of it, leaving nothing of either version', async () => {
    const id = await create(documentOf([700, 701]));
    const [updated, deleted] = await Promise.all([
      put(id, { content: documentOf([700, 702]) }),
      app.request(`/api/v1/documents/${id}`, { method: 'DELETE' }),
    ]);
    expect(deleted.status).toBe(204);
    expect([200, 404]).toContain(updated.status);
    expect((await app.request(`/api/v1/documents/${id}`)).status).toBe(404);
    const scope = { workspaceId: app.workspace };
    expect(await app.rt.stores.chunks.listByDocument(scope, id)).toEqual([]);
    expect(await app.rt.stores.graph.entitiesOfDocument(scope, id)).toEqual([]);
    expect(await app.rt.stores.graph.relationshipsOfDocument(scope, id)).toEqual([]);
  });

  it('keeps the previous version when an extraction fails half-way', async () => {
    const original = documentOf([400, 401, 402, 403]);
    const id = await create(original);
    const scope = { workspaceId: app.workspace };
    const graphBefore = await snapshot(app, app.workspace, { [id]: 'doc' });
    const chunksBefore = await app.rt.stores.chunks.listByDocument(scope, id);

    failing.state.failing = true;
    const broken = [
      paragraph(400, ' Hopper Nine arrived.'),
      paragraph(401),
      paragraph(402, ` ${MARKER} Corporation.`),
      paragraph(405),
    ].join('\n\n');
    const res = await put(id, { content: broken });
    failing.state.failing = false;
    expect(res.status).toBe(503);
    expect((await json(res)).detail).toMatch(/previous version/);

    const detail = await json(await app.request(`/api/v1/documents/${id}`));
    expect(detail).toMatchObject({ version: 1, content: original, status: 'completed' });
    expect(await app.rt.stores.chunks.listByDocument(scope, id)).toEqual(chunksBefore);
    expect(await snapshot(app, app.workspace, { [id]: 'doc' })).toEqual(graphBefore);
  });

  it('refuses what it cannot apply, and treats the same text as no change', async () => {
    const content = documentOf([500, 501]);
    const id = await create(content);
    expect((await put('no-such-document', { content: 'x' })).status).toBe(404);
    const empty = await put(id, { content: '   ' });
    expect(empty.status).toBe(422);
    const stale = await put(id, { content: documentOf([500, 502]), expected_version: 7 });
    expect(stale.status).toBe(409);

    const otherId = await create(documentOf([503]));
    const duplicate = await put(id, { content: documentOf([503]) });
    expect(duplicate.status).toBe(409);
    expect((await json(duplicate)).duplicate_of).toBe(otherId);

    const same = await put(id, { content, title: 'Renamed' });
    expect(same.status).toBe(200);
    expect(await json(same)).toMatchObject({ version: 1, title: 'Renamed', update: { chunks_extracted: 0, llm_calls: 0 } });
    const next = await put(id, { content: documentOf([500, 504]), expected_version: 1 });
    expect(next.status).toBe(200);
    expect((await json(next)).version).toBe(2);
  });

  it('replaces the document of the same file name on an upload with replace_existing', async () => {
    const v1 = documentOf([600, 601]);
    const first = await upload(app, { name: 'notes.txt', data: v1, type: 'text/plain' });
    expect(first.status).toBe(201);
    const created = await json(first);

    const v2 = documentOf([600, 602]);
    const replaced = await upload(app, { name: 'notes.txt', data: v2, type: 'text/plain' }, { replace_existing: 'true' });
    expect(replaced.status).toBe(200);
    const body = await json(replaced);
    expect(body).toMatchObject({ id: created.id, version: 2, update: { chunks_reused: 1, chunks_extracted: 1 } });
    const detail = await json(await app.request(`/api/v1/documents/${created.id}`));
    expect(detail).toMatchObject({ content: v2, version: 2, file_name: 'notes.txt' });

    const fresh = await upload(app, { name: 'other-notes.txt', data: documentOf([603]), type: 'text/plain' }, { replace_existing: 'true' });
    expect(fresh.status).toBe(201);
    expect((await json(fresh)).id).not.toBe(created.id);
    const bad = await upload(app, { name: 'notes.txt', data: documentOf([604]), type: 'text/plain' }, { replace_existing: 'maybe' });
    expect(bad.status).toBe(422);
  });
});
