import { type TestApp, startTestApp } from '../helpers/app';
import { json } from '../fixtures/documents';
import { markerFailingProviders } from '../fixtures/providers';
import { settleEmbeddingRefreshes } from '../../src/ingest/merge/merge-stage';
import type { EmbeddingProvider, ProviderRegistry } from '../../src/llm/ports';

/** Entity resolution through the API: at merge time, the dry run, applying a reviewed list, splitting an alias off. */

describe('entity resolution', () => {
  // Several documents per test, each resolved after its merge: slower on a loaded Neo4j than the default allows.
  jest.setTimeout(120_000);
  let app: TestApp;
  /** Every LLM call of the app, recorded (never failing), and every text it embeds. */
  let recorder: ReturnType<typeof markerFailingProviders>;
  let embedded: ReturnType<typeof countingEmbeddings>;

  beforeAll(async () => {
    app = await startTestApp(
      { SERVICE_ENTITY_RESOLUTION: 'true' },
      {
        providers(built) {
          recorder = markerFailingProviders(built, 'never-in-the-text');
          recorder.state.failing = false;
          embedded = countingEmbeddings(recorder.registry);
          return embedded.registry;
        },
      },
    );
  });
  afterAll(async () => {
    await settleEmbeddingRefreshes(app.rt);
    await app.close();
  });

  const ingest = async (content: string, workspace?: string) => {
    const res = await app.request('/api/v1/documents', { method: 'POST', json: { content }, workspace });
    expect(res.status).toBe(201);
    expect((await json(res)).status).toBe('completed');
  };
  const entityIds = async (workspace?: string) =>
    (await json(await app.request('/api/v1/graph/entities?limit=1000', { workspace }))).entities.map(
      (e: { id: string }) => e.id,
    ) as string[];

  it('merges an acronym into the entity it stands for, keeping the alias, its relationships and its provenance', async () => {
    await ingest(
      'International Business Machines Corporation opened a research lab in Zurich. Alice Johnson leads International Business Machines Corporation research.',
    );
    await ingest('IBM hired Bob Smith in Lisbon. Bob Smith works for IBM on databases.');
    const ids = await entityIds();
    expect(ids).toContain('INTERNATIONAL_BUSINESS_MACHINES_CORPORATION');
    expect(ids).not.toContain('IBM');
    const lineage = await json(await app.request('/api/v1/lineage/entities/INTERNATIONAL_BUSINESS_MACHINES_CORPORATION'));
    expect(JSON.stringify(lineage.merge_history)).toContain('IBM');
    const neighbours = await json(await app.request('/api/v1/graph?start_node=INTERNATIONAL_BUSINESS_MACHINES_CORPORATION&depth=1'));
    const names = JSON.stringify(neighbours);
    expect(names).toContain('BOB_SMITH');
    expect(names).toContain('ALICE_JOHNSON');

    // A later mention of the alias goes straight to the survivor.
    await ingest('IBM also opened an office in Toronto.');
    expect(await entityIds()).not.toContain('IBM');
  });

  it('keeps look-alikes apart', async () => {
    const ws = 'lookalikes';
    await ingest('Paris Hilton attended a gala in New York. Paris Hilton met Grace Hopper there.', ws);
    await ingest('The Louvre is a museum in Paris. Marie Curie lived in Paris for many years.', ws);
    await ingest('John Smithson wrote a book about Toronto. John Smith reviewed the book by John Smithson.', ws);
    const ids = await entityIds(ws);
    expect(ids).toEqual(expect.arrayContaining(['PARIS_HILTON', 'PARIS', 'JOHN_SMITHSON', 'JOHN_SMITH']));
  });

  it('turned off, proposes merges in a dry run, applies a reviewed list, and splits an alias off again', async () => {
    const ws = 'reviewed';
    const off = await app.request('/api/v1/graph/resolution/settings', { method: 'PUT', json: { enabled: false }, workspace: ws });
    expect(off.status).toBe(200);
    expect(await json(off)).toMatchObject({ enabled: false, merge_score: 0.9, review_score: 0.7 });
    await ingest('Acme Corporation builds the Falcon Engine in Berlin. Carol White leads Acme Corporation.', ws);
    await ingest('ACME Corp. hired Dave Brown in Berlin. Dave Brown tests the Falcon Engine at ACME Corp.', ws);
    let ids = await entityIds(ws);
    expect(ids).toEqual(expect.arrayContaining(['ACME_CORPORATION', 'ACME_CORP']));

    const dry = await json(
      await app.request('/api/v1/graph/resolution/dry-run', { method: 'POST', json: { entity_ids: ['ACME_CORP'] }, workspace: ws }),
    );
    expect(dry.examined).toBe(1);
    expect(dry.proposals).toHaveLength(1);
    const [proposal] = dry.proposals;
    expect(proposal).toMatchObject({ decision: 'merge', score: 1, reason: 'same normalised name' });
    expect([proposal.source_id, proposal.target_id].sort()).toEqual(['ACME_CORP', 'ACME_CORPORATION']);
    expect(await entityIds(ws)).toEqual(ids);

    const applied = await json(
      await app.request('/api/v1/graph/resolution/apply', {
        method: 'POST',
        json: {
          merges: [
            { source_id: proposal.source_id, target_id: proposal.target_id },
            { source_id: 'NO_SUCH', target_id: 'ACME_CORPORATION' },
          ],
        },
        workspace: ws,
      }),
    );
    expect(applied.applied).toEqual([{ source_id: proposal.source_id, target_id: proposal.target_id }]);
    expect(applied.skipped).toHaveLength(1);
    ids = await entityIds(ws);
    expect(ids).toContain(proposal.target_id);
    expect(ids).not.toContain(proposal.source_id);
    const survivor = await json(await app.request(`/api/v1/graph/entities/${encodeURIComponent(proposal.target_id)}`, { workspace: ws }));
    expect(JSON.stringify(survivor)).toContain('DAVE_BROWN');

    const notAlias = await app.request(`/api/v1/graph/entities/${encodeURIComponent(proposal.target_id)}/split`, {
      method: 'POST',
      json: { alias: 'FALCON_ENGINE' },
      workspace: ws,
    });
    expect(notAlias.status).toBe(422);
    const split = await app.request(`/api/v1/graph/entities/${encodeURIComponent(proposal.target_id)}/split`, {
      method: 'POST',
      json: { alias: proposal.source_id },
      workspace: ws,
    });
    expect(split.status).toBe(200);
    const body = await json(split);
    expect(body.split_off.id).toBe(proposal.source_id);
    expect(body.entity.id).toBe(proposal.target_id);
    expect(await entityIds(ws)).toEqual(expect.arrayContaining(['ACME_CORPORATION', 'ACME_CORP']));
    const again = await json(
      await app.request('/api/v1/graph/resolution/dry-run', { method: 'POST', json: { entity_ids: ['ACME_CORP'] }, workspace: ws }),
    );
    expect(again.proposals).toEqual([]);
  });

  it('keeps a rejected pair apart in later dry runs and ingestion', async () => {
    const ws = 'rejected';
    await app.request('/api/v1/graph/resolution/settings', { method: 'PUT', json: { enabled: false }, workspace: ws });
    await ingest('Acme Corporation builds the Falcon Engine in Berlin. Carol White leads Acme Corporation.', ws);
    await ingest('ACME Corp. hired Dave Brown in Berlin. Dave Brown tests the Falcon Engine at ACME Corp.', ws);
    const dryRun = async () =>
      json(await app.request('/api/v1/graph/resolution/dry-run', { method: 'POST', json: { entity_ids: ['ACME_CORP'] }, workspace: ws }));
    expect((await dryRun()).proposals).toHaveLength(1);

    const res = await app.request('/api/v1/graph/resolution/reject', {
      method: 'POST',
      json: {
        pairs: [
          { source_id: 'ACME_CORP', target_id: 'ACME_CORPORATION' },
          { source_id: 'ACME_CORP', target_id: 'NO_SUCH' },
          { source_id: 'ACME_CORP', target_id: 'ACME_CORP' },
        ],
      },
      workspace: ws,
    });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.rejected).toEqual([{ source_id: 'ACME_CORP', target_id: 'ACME_CORPORATION' }]);
    expect(body.skipped.map((s: { reason: string }) => s.reason)).toEqual(['entity not found: NO_SUCH', 'already one entity']);
    expect((await dryRun()).proposals).toEqual([]);

    // Turned on again, a new mention of the name does not merge the pair either.
    await app.request('/api/v1/graph/resolution/settings', { method: 'PUT', json: { enabled: true }, workspace: ws });
    await ingest('ACME Corp. opened an office in Lisbon next to Acme Corporation.', ws);
    expect(await entityIds(ws)).toEqual(expect.arrayContaining(['ACME_CORPORATION', 'ACME_CORP']));
    expect((await app.request('/api/v1/graph/resolution/reject', { method: 'POST', json: { pairs: [] }, workspace: ws })).status).toBe(422);
  });

  it("confirms a document's look-alike names in one LLM call, with the vectors its merge embedded", async () => {
    const ws = 'batched';
    const companies = ['Microsoft Corporation', 'Globex Corporation', 'Initech Corporation', 'Umbrella Corporation'];
    const typos = ['Microsfot Corporation', 'Glboex Corporation', 'Initehc Corporation', 'Umbrela Corporation'];
    const text = (names: string[]) => names.map((n) => `${n} builds robots in Lisbon. ${n} employs many engineers in Lisbon.`).join(' ');
    await ingest(text(companies), ws);
    await settleEmbeddingRefreshes(app.rt);
    recorder.state.calls = [];
    embedded.texts.length = 0;
    await ingest(text(typos), ws);
    await settleEmbeddingRefreshes(app.rt);

    const asked = recorder.state.calls.filter((c) => c.task === 'resolve');
    expect(asked).toHaveLength(1);
    for (const name of typos) expect(asked[0].prompt).toContain(name);
    const ids = await entityIds(ws);
    for (const name of companies) expect(ids).toContain(name.toUpperCase().replace(/ /g, '_'));
    for (const name of typos) expect(ids).not.toContain(name.toUpperCase().replace(/ /g, '_'));
    // Each entity text the document added was embedded once, for the index: resolution reused those vectors.
    const entityTexts = embedded.texts.filter((t) => typos.some((n) => t.startsWith(`${n}:`)));
    expect(entityTexts.length).toBeGreaterThanOrEqual(typos.length);
    expect(new Set(entityTexts).size).toBe(entityTexts.length);
  });

  it('refuses bad settings and bodies', async () => {
    const bad = await app.request('/api/v1/graph/resolution/settings', { method: 'PUT', json: { review_score: 0.95 } });
    expect(bad.status).toBe(422);
    expect((await app.request('/api/v1/graph/resolution/settings', { method: 'PUT', json: { merge_score: 2 } })).status).toBe(422);
    expect((await app.request('/api/v1/graph/resolution/apply', { method: 'POST', json: { merges: [] } })).status).toBe(422);
    expect((await app.request('/api/v1/graph/entities/NOPE/split', { method: 'POST', json: { alias: 'X' } })).status).toBe(404);
    expect(await json(await app.request('/api/v1/graph/resolution/settings'))).toMatchObject({ enabled: true });
  });
});

/** The registry with each embedding provider wrapped (one wrapper per provider: the queue is the provider's) to record its texts. */
function countingEmbeddings(inner: ProviderRegistry) {
  const texts: string[] = [];
  const wrapped = new Map<EmbeddingProvider, EmbeddingProvider>();
  const wrap = (provider: EmbeddingProvider): EmbeddingProvider => {
    let out = wrapped.get(provider);
    if (!out) {
      out = Object.assign(Object.create(provider) as EmbeddingProvider, {
        embed: (batch: string[], signal?: AbortSignal) => {
          texts.push(...batch);
          return provider.embed(batch, signal);
        },
      });
      wrapped.set(provider, out);
    }
    return out;
  };
  const registry: ProviderRegistry = {
    ...inner,
    embedding: (provider, model, dimension) => wrap(inner.embedding(provider, model, dimension)),
  };
  return { registry, texts };
}
