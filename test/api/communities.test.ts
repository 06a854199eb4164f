import { startTestApp, type TestApp } from '../helpers/app';

/** Communities built from ingested documents, their reports, and the global mode that answers from them. */

const DOCUMENTS = [
  {
    title: 'Acme annual report',
    content:
      'Alice Smith works at Acme Corporation with Carol White.\nCarol White and Alice Smith run Acme Corporation in Berlin.\n' +
      'Acme Corporation opened Berlin Labs with Carol White and Alice Smith.',
  },
  {
    title: 'Globex research notes',
    content:
      'Bob Jones leads Globex Laboratories with Dana Brown.\nDana Brown and Bob Jones study quantum computing at Globex Laboratories in Tokyo.\n' +
      'Globex Laboratories hired Dana Brown and Bob Jones in Tokyo.',
  },
];

interface Community {
  id: string;
  level: number;
  title: string;
  summary: string;
  size: number;
  member_ids: string[];
  content_hash: string;
}
interface Run {
  communities: number;
  reports_generated: number;
  reports_reused: number;
  error: string | null;
}

async function ingest(app: TestApp, doc: { title: string; content: string }): Promise<string> {
  const res = await app.request('/api/v1/documents', { method: 'POST', json: doc });
  expect(res.status).toBeLessThan(300);
  return ((await res.json()) as { id: string }).id;
}

async function query(app: TestApp, mode: string) {
  const res = await app.request('/api/v1/query', {
    method: 'POST',
    json: { query: 'What do Acme Corporation and Carol White work on in Berlin?', mode, context_only: true },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { context: string; stats: { global_source: string | null; community_reports: number } };
}

async function status(app: TestApp) {
  const res = await app.request('/api/v1/graph/communities/status');
  expect(res.status).toBe(200);
  return (await res.json()) as { state: string; communities: number; last_run: Run | null };
}

/** Polls the status until `done` holds (the recompute runs in the background). */
async function until(app: TestApp, done: (s: Awaited<ReturnType<typeof status>>) => boolean) {
  for (;;) {
    const s = await status(app);
    if (done(s)) return s;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('communities on request', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
    for (const doc of DOCUMENTS) await ingest(app, doc);
  });
  afterAll(async () => {
    await app.close();
  });

  it('falls back to relationship search while there are no communities, and says so', async () => {
    expect(await status(app)).toMatchObject({ state: 'idle', communities: 0, last_run: null });
    const global = await query(app, 'global');
    expect(global.stats).toMatchObject({ global_source: 'relationships', community_reports: 0 });
    expect(global.context).not.toContain('Community reports');
    expect((await query(app, 'local')).stats.global_source).toBeNull();
  });

  it('builds communities with reports, lists them and shows their members', async () => {
    const res = await app.request('/api/v1/graph/communities/rebuild?wait=true', { method: 'POST' });
    expect(res.status).toBe(200);
    const { status: state, run } = (await res.json()) as { status: string; run: Run };
    expect(state).toBe('completed');
    expect(run.communities).toBeGreaterThanOrEqual(2);
    expect(run).toMatchObject({ reports_generated: run.communities, reports_reused: 0, error: null });

    const list = (await (await app.request('/api/v1/graph/communities')).json()) as { communities: Community[]; total: number };
    expect(list.total).toBe(run.communities);
    const acme = list.communities.find((c) => c.member_ids.includes('ACME_CORPORATION'));
    expect(acme).toBeDefined();
    expect(acme!.member_ids).toEqual(expect.arrayContaining(['ALICE_SMITH', 'CAROL_WHITE']));
    expect(acme!.member_ids).not.toContain('BOB_JONES');
    expect(acme!.title).toMatch(/^Community of /);

    const detail = await app.request(`/api/v1/graph/communities/${acme!.id}`);
    expect(detail.status).toBe(200);
    const body = (await detail.json()) as { community: Community; members: Array<{ id: string; name: string }>; members_total: number };
    expect(body.community.id).toBe(acme!.id);
    expect(body.members.map((m) => m.id).sort()).toEqual([...acme!.member_ids].sort());
    expect(body.members_total).toBe(acme!.size);
    expect(await status(app)).toMatchObject({ state: 'idle', communities: run.communities, last_run: { communities: run.communities } });
  });

  it('answers global and hybrid questions from the community reports', async () => {
    for (const mode of ['global', 'hybrid']) {
      const { context, stats } = await query(app, mode);
      expect(stats.global_source).toBe('communities');
      expect(stats.community_reports).toBeGreaterThan(0);
      expect(context).toContain('-----Community reports (knowledge graph)-----');
      expect(context).toMatch(/## Community of .*(ACME|Acme|Carol|Alice)/);
    }
  });

  it('keeps every report when nothing changed, and rewrites only the changed community after an upload', async () => {
    const again = (await (await app.request('/api/v1/graph/communities/rebuild?wait=true', { method: 'POST' })).json()) as { run: Run };
    expect(again.run).toMatchObject({ reports_generated: 0, reports_reused: again.run.communities });
    await ingest(app, { title: 'Globex addendum', content: 'Globex Laboratories and Bob Jones moved to Osaka with Dana Brown.' });
    const after = (await (await app.request('/api/v1/graph/communities/rebuild?wait=true', { method: 'POST' })).json()) as { run: Run };
    expect(after.run.reports_generated).toBeGreaterThanOrEqual(1);
    expect(after.run.reports_reused).toBeGreaterThanOrEqual(1);
    expect(after.run.reports_generated + after.run.reports_reused).toBe(after.run.communities);
  });

  it('answers 404 for an unknown community and 422 for a bad level', async () => {
    const missing = await app.request('/api/v1/graph/communities/community-0-nothing');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('application/problem+json');
    expect((await app.request('/api/v1/graph/communities?level=-1')).status).toBe(422);
    expect((await app.request('/api/v1/graph/communities/rebuild?wait=maybe', { method: 'POST' })).status).toBe(422);
  });
});

describe('communities recomputed in the background after ingestion and deletion', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ SERVICE_COMMUNITY_REFRESH_MS: '100' });
  });
  afterAll(async () => {
    await app.close();
  });

  it('schedules a recompute after an upload without holding the upload, and again after a deletion', async () => {
    const first = await ingest(app, DOCUMENTS[0]);
    // The upload answered; communities come afterwards.
    const built = await until(app, (s) => s.state === 'idle' && s.communities > 0);
    expect(built.last_run).toMatchObject({ error: null, reports_generated: built.communities });
    const second = await ingest(app, DOCUMENTS[1]);
    const both = await until(app, (s) => s.state === 'idle' && s.communities > built.communities);
    expect(both.last_run?.reports_reused).toBeGreaterThanOrEqual(1);

    for (const id of [first, second]) expect((await app.request(`/api/v1/documents/${id}`, { method: 'DELETE' })).status).toBeLessThan(300);
    const emptied = await until(app, (s) => s.state === 'idle' && s.communities === 0);
    expect(emptied.last_run).toMatchObject({ communities: 0, error: null });
  });

  it('starts a rebuild in the background on request', async () => {
    const res = await app.request('/api/v1/graph/communities/rebuild', { method: 'POST' });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ status: 'scheduled', run: null });
  });
});
