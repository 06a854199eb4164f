import { type TestApp, startTestApp } from '../helpers/app';
import { isolatedProse } from '../fixtures/corpus';
import { json } from '../fixtures/documents';
import { markerFailingProviders } from '../fixtures/providers';
import { settleEmbeddingRefreshes } from '../../src/ingest/merge/merge-stage';
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
  let recorder!: ReturnType<typeof markerFailingProviders>;
  const app = await startTestApp(
    {
      SERVICE_CHUNK_TOKENS: '400',
      SERVICE_CHUNK_OVERLAP_TOKENS: '40',
      SERVICE_ASYNC_THRESHOLD_BYTES: String(10 * 1024 * 1024),
      ...env,
    },
    {
      providers(built) {
        recorder = markerFailingProviders(built, 'never-in-the-text');
        recorder.state.failing = false;
        return recorder.registry;
      },
    },
  );
  return { app, recorder };
}

async function closeApp(app: TestApp): Promise<void> {
  await settleEmbeddingRefreshes(app.rt);
  await app.close();
}

describe('the cost of an edit', () => {
  let app: TestApp;
  let recorder: ReturnType<typeof markerFailingProviders>;

  // Resolution off: its merges depend on the order names arrive in, and the graphs below are compared exactly.
  beforeAll(async () => ({ app, recorder } = await startRecordedApp({ SERVICE_ENTITY_RESOLUTION: 'false' })), 120_000);
  afterAll(() => closeApp(app), 120_000);

  /** Provider calls made by `work` and by the community run after it, by kind, and that run's summary. */
  const calls = async (workspace: string, work: () => Promise<Response>) => {
    recorder.state.calls = [];
    const res = await work();
    await settleEmbeddingRefreshes(app.rt);
    const run = await app.rt.communities.rebuild({ workspaceId: workspace });
    const byKind: Record<string, number> = {};
    for (const c of recorder.state.calls) {
      const kind = KINDS[c.task as keyof typeof KINDS] ?? c.task ?? 'other';
      byKind[kind] = (byKind[kind] ?? 0) + 1;
    }
    return { res, total: recorder.state.calls.length, byKind, run };
  };
  const create = (workspace: string, content: string) =>
    calls(workspace, () => app.request('/api/v1/documents', { method: 'POST', json: { content }, workspace }));
  const put = (workspace: string, id: string, content: string) =>
    calls(workspace, () => app.request(`/api/v1/documents/${id}`, { method: 'PUT', json: { content }, workspace }));
  const historyOf = async (workspace: string, id: string) =>
    (await json(await app.request(`/api/v1/documents/${id}/history`, { workspace }))).history as Array<Record<string, any>>;

  it('pays at most 15 % of a full ingest for an edit of one tenth, community reports included, and re-extracts at most 3 chunks for an edit at the start', async () => {
    const edited = await app.workspaceNamed('edited');
    const created = await create(edited, original.join('\n\n'));
    expect(created.res.status).toBe(201);
    const id = (await json(created.res)).id as string;

    const communitiesBefore = await communitiesOf(app, edited);
    const update = await put(edited, id, tenth);
    expect(update.res.status).toBe(200);
    const body = await json(update.res);

    const fresh = await app.workspaceNamed('fresh');
    const full = await create(fresh, tenth);
    const freshId = (await json(full.res)).id as string;
    expect(full.byKind.extraction).toBeGreaterThanOrEqual(50);
    expect(full.byKind.community_report).toBeGreaterThan(0);
    expect(body.update.chunks_total).toBe(full.byKind.extraction);

    // The update's own account, as its history keeps it: the community run that followed charged its reports to it.
    const [account] = await historyOf(edited, id);
    expect(update.run.charged).toEqual([{ document_id: id, version: 2, llm_calls: update.run.llm_calls }]);
    expect(account.llm_calls_by_kind.community_report).toBe(update.run.llm_calls);
    expect(account.llm_calls_by_kind.community_report).toBeGreaterThan(0);
    // That run rewrote only the reports of communities whose members or descriptions the edit changed, small ones
    // several to a call.
    expect(update.run.llm_calls).toBeLessThanOrEqual(update.run.reports_generated);
    expect(update.run.reports_reused).toBeGreaterThan(0);
    const was = new Map(communitiesBefore.map((c) => [c.members, c]));
    const rewritten = (await communitiesOf(app, edited)).filter((c) => !communitiesBefore.some((b) => b.hash === c.hash));
    expect(rewritten).toHaveLength(update.run.reports_generated);
    for (const community of rewritten) expect(was.get(community.members)?.described).not.toBe(community.described);
    // Every call the update caused is in its account, by kind: the account is the whole cost.
    expect(account.llm_calls).toBe(update.total);
    for (const [kind, count] of Object.entries(update.byKind)) expect(account.llm_calls_by_kind[kind]).toBe(count);
    expect(account.llm_calls).toBeGreaterThan(0);
    expect(account.llm_calls).toBeLessThanOrEqual(0.15 * full.total);
    // The answer to the PUT came before the reports: the same account but for them.
    const { community_report: reports, ...own } = account.llm_calls_by_kind;
    expect(body.update.llm_calls).toBe(account.llm_calls - reports);
    expect(body.update.llm_calls_by_kind).toEqual({ ...own, community_report: 0 });
    expect(account.usage.input_tokens).toBeGreaterThan(body.update.usage.input_tokens);
    // The chunks holding the edit are re-extracted, and at most one on each side.
    const stored = await app.rt.stores.chunks.listByDocument({ workspaceId: edited }, id);
    const touched = stored.filter((c) => c.content.includes('Margit Olafsdottir')).length;
    expect(touched).toBeGreaterThan(0);
    expect(body.update.chunks_extracted).toBeLessThanOrEqual(touched + 2);
    expect(body.update.chunks_reused + body.update.chunks_extracted).toBe(body.update.chunks_total);

    // The graph equals the one a fresh ingest of the edited text gives.
    expect(await graphOf(app, edited, id)).toEqual(await graphOf(app, fresh, freshId));

    const start = await put(edited, id, atStart);
    expect(start.res.status).toBe(200);
    const startBody = await json(start.res);
    expect(startBody.update.chunks_extracted).toBeGreaterThan(0);
    expect(startBody.update.chunks_extracted).toBeLessThanOrEqual(3);

    const history = await historyOf(edited, id);
    expect(history.map((h) => h.version)).toEqual([2, 3]);
    expect(history[0]).toEqual(account);
    expect(history[1].llm_calls).toBe(start.total);
    expect(history[1].llm_calls_by_kind.community_report).toBe(start.run.llm_calls);
    expect(history[1]).toMatchObject({
      ...startBody.update,
      llm_calls: start.total,
      llm_calls_by_kind: expect.any(Object),
      usage: expect.any(Object),
    });
    expect((await app.request('/api/v1/documents/no-such-document/history', { workspace: edited })).status).toBe(404);
  }, 600_000);

  it('splits the calls of a community run that follows two updates between them, and they add up to its calls', async () => {
    const workspace = await app.workspaceNamed('shared-run');
    const ids: string[] = [];
    for (const part of [original.slice(0, 12), original.slice(30, 42)]) {
      const created = await app.request('/api/v1/documents', { method: 'POST', json: { content: part.join('\n\n') }, workspace });
      expect(created.status).toBe(201);
      ids.push((await json(created)).id as string);
    }
    await settleEmbeddingRefreshes(app.rt);
    await app.rt.communities.rebuild({ workspaceId: workspace });

    for (const [i, id] of ids.entries()) {
      const part = original.slice(i * 30, i * 30 + 12);
      const content = part.map((p, k) => (k % 3 === 0 ? `${p} Margit Olafsdottir reviewed stage ${k}.` : p)).join('\n\n');
      const res = await app.request(`/api/v1/documents/${id}`, { method: 'PUT', json: { content }, workspace });
      expect(res.status).toBe(200);
    }
    await settleEmbeddingRefreshes(app.rt);
    recorder.state.calls = [];
    const run = await app.rt.communities.rebuild({ workspaceId: workspace });
    expect(run.llm_calls).toBe(recorder.state.calls.length);
    expect(run.llm_calls).toBeGreaterThan(0);
    expect(run.charged?.map((c) => [c.document_id, c.version])).toEqual(ids.map((id) => [id, 2]));
    const shares = run.charged?.map((c) => c.llm_calls) ?? [];
    expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
    const charged = await Promise.all(
      ids.map(async (id) => (await historyOf(workspace, id))[0].llm_calls_by_kind.community_report as number),
    );
    expect(charged).toEqual(shares);
    expect(charged.reduce((a, b) => a + b, 0)).toBe(run.llm_calls);

    // A run that covers no update (nothing changed since) is charged to none.
    const idle = await app.rt.communities.rebuild({ workspaceId: workspace });
    expect(idle).toMatchObject({ llm_calls: 0, charged: [] });
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
    await settleEmbeddingRefreshes(app.rt);
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

/** A workspace's communities: members, report hash, and what describes them (members' and inner relationships' descriptions). */
async function communitiesOf(app: TestApp, workspace: string) {
  const scope = { workspaceId: workspace };
  const { graph, communities } = app.rt.stores;
  const entities = new Map((await graph.listEntities(scope, { limit: 100_000, offset: 0 })).items.map((e) => [e.id, e.description]));
  const relationships = (await graph.listRelationships(scope, { limit: 100_000, offset: 0 })).items;
  return (await communities.all(scope)).map((c) => {
    const members = new Set(c.member_ids);
    const inner = relationships.filter((r) => members.has(r.source) && members.has(r.target)).map((r) => `${r.id}: ${r.description}`);
    const described = JSON.stringify([c.member_ids.map((id) => entities.get(id)), inner.sort()]);
    return { members: c.member_ids.join(','), hash: c.content_hash, described };
  });
}

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
