import { type TestApp, startTestApp } from '../helpers/app';
import { isolatedProse } from '../fixtures/corpus';
import { json } from '../fixtures/documents';
import { markerFailingProviders } from '../fixtures/providers';
import { settleEmbeddingRefreshes } from '../../src/ingest/merge-stage';
import { normalizeEntityId } from '../../src/domain/ids';
import type { ChunkRecord } from '../../src/domain/types';

/**
 * What an edit costs (PUT /documents/:id): every LLM call of the update, of every kind, counted at the provider and
 * compared with a full ingest of the edited text; the graph after the update equals the graph of that ingest.
 */

const SHARED = ['Ada Lovelace', 'Acme Research', 'Grace Hopper', 'Globex Labs', 'Alan Turing', 'Bell Labs'];
const PARAGRAPHS = 90;

/** Paragraphs of 2 to 12 sentences, each with its own coined entities and three shared ones. */
function paragraph(n: number): string {
  const sentences = 2 + ((n * 7) % 11);
  return `${isolatedProse(n, sentences)} ${SHARED[n % 6]} met ${SHARED[(n + 1) % 6]} at ${SHARED[(n + 3) % 6]}.`;
}

const original = Array.from({ length: PARAGRAPHS }, (_, i) => paragraph(i));
const edit = (touched: (i: number) => boolean, sentence: (i: number) => string) =>
  original.map((p, i) => (touched(i) ? `${p} ${sentence(i)}` : p)).join('\n\n');
/** One sentence added to every paragraph of the tenth of the text from 45 % to 55 %. */
const tenth = edit(
  (i) => i >= 0.45 * PARAGRAPHS && i < 0.55 * PARAGRAPHS,
  (i) => `Margit Olafsdottir reviewed stage ${i}.`,
);
/** The edited text with a sentence added to its first paragraph. */
const atStart = `Preface notes by Ilse Brandauer. ${tenth}`;

const KINDS = {
  extract: 'extraction',
  glean: 'gleaning',
  summarize: 'summary',
  resolve: 'resolution',
  community_report: 'community_report',
};

/** A test app on 400-token chunks whose LLM calls are recorded. */
async function startRecordedApp(env: Record<string, string> = {}) {
  const app = await startTestApp({
    SERVICE_CHUNK_TOKENS: '400',
    SERVICE_CHUNK_OVERLAP_TOKENS: '40',
    SERVICE_ASYNC_THRESHOLD_BYTES: String(10 * 1024 * 1024),
    ...env,
  });
  const recorder = markerFailingProviders(app.rt.providers, 'never-in-the-text');
  recorder.state.failing = false;
  app.rt.providers = recorder.registry;
  return { app, recorder };
}

async function closeApp(app: TestApp): Promise<void> {
  await settleEmbeddingRefreshes();
  await app.close();
}

describe('the cost of an edit', () => {
  let app: TestApp;
  let recorder: ReturnType<typeof markerFailingProviders>;

  // Resolution off: its merges depend on the order names arrive in, and the graphs below are compared exactly.
  beforeAll(async () => ({ app, recorder } = await startRecordedApp({ SERVICE_ENTITY_RESOLUTION: 'false' })), 120_000);
  afterAll(() => closeApp(app), 120_000);

  /** Provider calls made by `work` and the community reports rebuilt after it, by kind. */
  const calls = async (workspace: string, work: () => Promise<Response>) => {
    recorder.state.calls = [];
    const res = await work();
    await settleEmbeddingRefreshes();
    await app.rt.communities.rebuild({ workspaceId: workspace });
    const byKind: Record<string, number> = {};
    for (const c of recorder.state.calls) {
      const kind = KINDS[c.task as keyof typeof KINDS] ?? c.task ?? 'other';
      byKind[kind] = (byKind[kind] ?? 0) + 1;
    }
    return { res, total: recorder.state.calls.length, byKind };
  };
  const create = (workspace: string, content: string) =>
    calls(workspace, () => app.request('/api/v1/documents', { method: 'POST', json: { content }, workspace }));
  const put = (workspace: string, id: string, content: string) =>
    calls(workspace, () => app.request(`/api/v1/documents/${id}`, { method: 'PUT', json: { content }, workspace }));

  it('pays at most 15 % of a full ingest for an edit of one tenth, and re-extracts at most 3 chunks for an edit at the start', async () => {
    const edited = await app.workspaceNamed('edited');
    const created = await create(edited, original.join('\n\n'));
    expect(created.res.status).toBe(201);
    const id = (await json(created.res)).id as string;

    const update = await put(edited, id, tenth);
    expect(update.res.status).toBe(200);
    const body = await json(update.res);

    const fresh = await app.workspaceNamed('fresh');
    const full = await create(fresh, tenth);
    const freshId = (await json(full.res)).id as string;
    expect(full.byKind.extraction).toBeGreaterThanOrEqual(50);
    expect(full.byKind.community_report).toBeGreaterThan(0);
    expect(body.update.chunks_total).toBe(full.byKind.extraction);

    // Every call the update made is in its account, by kind; the community reports it changed come on top.
    const { community_report: reports = 0, ...own } = update.byKind;
    expect(body.update.llm_calls).toBe(update.total - reports);
    for (const [kind, count] of Object.entries(own)) expect(body.update.llm_calls_by_kind[kind]).toBe(count);
    // The chunks holding the edit are re-extracted, and at most one on each side.
    const stored = await app.rt.stores.chunks.listByDocument({ workspaceId: edited }, id);
    const touched = stored.filter((c) => c.content.includes('Margit Olafsdottir')).length;
    expect(touched).toBeGreaterThan(0);
    expect(body.update.chunks_extracted).toBeLessThanOrEqual(touched + 2);
    expect(body.update.chunks_reused + body.update.chunks_extracted).toBe(body.update.chunks_total);
    expect(update.total).toBeGreaterThan(0);
    expect(update.total).toBeLessThanOrEqual(0.15 * full.total);

    // The graph equals the one a fresh ingest of the edited text gives.
    expect(await graphOf(app, edited, id)).toEqual(await graphOf(app, fresh, freshId));

    const start = await put(edited, id, atStart);
    expect(start.res.status).toBe(200);
    const startBody = await json(start.res);
    expect(startBody.update.chunks_extracted).toBeGreaterThan(0);
    expect(startBody.update.chunks_extracted).toBeLessThanOrEqual(3);

    const history = await json(await app.request(`/api/v1/documents/${id}/history`, { workspace: edited }));
    expect(history.history.map((h: { version: number }) => h.version)).toEqual([2, 3]);
    expect(history.history[0]).toMatchObject({ ...body.update, version: 2 });
    expect(history.history[1]).toMatchObject({ ...startBody.update, version: 3 });
    expect((await app.request('/api/v1/documents/no-such-document/history', { workspace: edited })).status).toBe(404);
  }, 600_000);
});

describe('summaries of an edit, with entity resolution merging names', () => {
  let app: TestApp;
  let recorder: ReturnType<typeof markerFailingProviders>;

  beforeAll(async () => ({ app, recorder } = await startRecordedApp()), 120_000);
  afterAll(() => closeApp(app), 120_000);

  it('summarises and rewrites only records that a chunk of one version alone names', async () => {
    // Resolution merges the coined names into survivors past the summary threshold that no merge summarised.
    const text = original.slice(0, 40).join('\n\n');
    const created = await app.request('/api/v1/documents', { method: 'POST', json: { content: text } });
    expect(created.status).toBe(201);
    const id = (await json(created)).id as string;
    await settleEmbeddingRefreshes();
    const scope = { workspaceId: app.workspace };
    const before = await app.rt.stores.chunks.listByDocument(scope, id);
    const descriptions = async () =>
      new Map((await app.rt.stores.graph.listEntities(scope, { limit: 100_000, offset: 0 })).items.map((e) => [e.id, e.description]));
    const described = await descriptions();

    recorder.state.calls = [];
    const res = await app.request(`/api/v1/documents/${id}`, {
      method: 'PUT',
      json: { content: `Preface notes by Ilse Brandauer. ${text}` },
    });
    expect(res.status).toBe(200);
    const { update } = await json(res);
    const after = await app.rt.stores.chunks.listByDocument(scope, id);
    expect(update.chunks_extracted).toBeLessThanOrEqual(2);

    const only = (chunks: ChunkRecord[], other: ChunkRecord[]) => {
      const texts = new Set(other.map((c) => c.content));
      return chunks.filter((c) => !texts.has(c.content)).flatMap((c) => [...c.entity_ids, ...c.relationship_ids]);
    };
    const named = new Set([...only(before, after), ...only(after, before)]);
    const subjects = recorder.state.calls
      .filter((c) => c.task === 'summarize')
      .map((c) => /^(Entity|Relationship): (.*)$/m.exec(c.prompt) as RegExpExecArray)
      .map(([, kind, name]) => (kind === 'Entity' ? normalizeEntityId(name) : name.split(' - ').join('|')));
    expect(update.llm_calls_by_kind.summary).toBe(subjects.length);
    for (const subject of subjects) expect(named).toContain(subject);

    // The other records keep their descriptions as they were, fragment order included.
    const rewritten = [...(await descriptions())].filter(([entity, text]) => described.get(entity) !== text).map(([entity]) => entity);
    for (const entity of rewritten) expect(named).toContain(entity);
    expect(described.size).toBeGreaterThan(30);
  }, 600_000);
});

/** A workspace's graph with chunk ids written as chunk indexes (the document ids differ), order-free. */
async function graphOf(app: TestApp, workspace: string, documentId: string) {
  const scope = { workspaceId: workspace };
  const { graph, chunks } = app.rt.stores;
  const index = new Map((await chunks.listByDocument(scope, documentId)).map((c) => [c.id, c.index]));
  const sources = (ids: string[]) => ids.map((id) => index.get(id) ?? `missing:${id}`).sort();
  const entities = (await graph.listEntities(scope, { limit: 100_000, offset: 0 })).items.map((e) => ({
    id: e.id,
    type: e.entity_type,
    sources: sources(e.source_chunk_ids),
  }));
  const relationships = (await graph.listRelationships(scope, { limit: 100_000, offset: 0 })).items.map((r) => ({
    id: r.id,
    ends: [r.source, r.target],
    weight: r.weight,
    keywords: [...r.keywords].sort(),
    sources: sources(r.source_chunk_ids),
  }));
  const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
  return { entities: entities.sort(byId), relationships: relationships.sort(byId) };
}
