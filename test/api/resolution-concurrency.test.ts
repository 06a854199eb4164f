import { type TestApp, startTestApp } from '../helpers/app';
import { json } from '../fixtures/documents';
import { normalizeEntityId } from '../../src/domain/ids';
import type { Scope } from '../../src/domain/types';
import { resolveEntityAliases } from '../../src/graph/aliases';
import { settleEmbeddingRefreshes } from '../../src/ingest/merge/merge-stage';

/**
 * Entity resolution while many documents are merged at once: whatever order the merges and resolutions take,
 * no chunk, relationship, source list or vector names an entity that was merged away, and every name of a
 * planted alias group ends up on one surviving entity.
 */

const GROUPS = [
  ['International Business Machines Corporation', 'IBM'],
  ['José Álvarez', 'Jose Alvarez'],
  ['Globex Laboratories', 'Globex Laboratories Ltd'],
  ['Acme Corporation', 'Acme Corp'],
];
const PEOPLE = ['Alice Johnson', 'Bob Smith', 'Carol Diaz', 'Dmitri Petrov', 'Erin Walsh', 'Farid Haddad'];
const PLACES = ['Zurich', 'Lisbon', 'Toronto', 'Nairobi'];
const DOCUMENTS = 24;

/** Document `i`: each sentence names a form of a group with a person and a place; every form is named by some documents. */
function documentText(i: number): string {
  const sentences: string[] = [];
  for (let s = 0; s < 4; s++) {
    const group = GROUPS[(i + s) % GROUPS.length];
    const form = group[Math.floor(i / GROUPS.length) % group.length];
    const person = PEOPLE[(i * 5 + s) % PEOPLE.length];
    const place = PLACES[(i + s * 2) % PLACES.length];
    sentences.push(`${form} hired ${person} in ${place} for study ${i}-${s}.`);
  }
  return sentences.join(' ');
}

/** What must hold once the documents settled: no link names an entity or relationship that is gone. */
async function integrityProblems(app: TestApp, scope: Scope, created: string[]): Promise<string[]> {
  const { graph, chunks, documents } = app.rt.stores;
  const entities = (await graph.listEntities(scope, { limit: 10_000, offset: 0 })).items;
  const relationships = (await graph.listRelationships(scope, { limit: 10_000, offset: 0 })).items;
  const entityIds = new Set(entities.map((e) => e.id));
  const relationshipIds = new Set(relationships.map((r) => r.id));
  const allChunks = (await Promise.all(created.map((id) => chunks.listByDocument(scope, id)))).flat();
  const chunkById = new Map(allChunks.map((c) => [c.id, c]));

  const problems: string[] = [];
  for (const c of allChunks) {
    for (const id of c.entity_ids) if (!entityIds.has(id)) problems.push(`chunk ${c.id} names entity ${id}`);
    for (const id of c.relationship_ids) if (!relationshipIds.has(id)) problems.push(`chunk ${c.id} names relationship ${id}`);
  }
  for (const r of relationships) {
    for (const end of [r.source, r.target]) if (!entityIds.has(end)) problems.push(`relationship ${r.id} ends at ${end}`);
    for (const chunkId of r.source_chunk_ids) {
      if (!chunkById.get(chunkId)?.relationship_ids.includes(r.id))
        problems.push(`relationship ${r.id} not in its source chunk ${chunkId}`);
    }
  }
  for (const e of entities) {
    for (const chunkId of e.source_chunk_ids) {
      if (!chunkById.get(chunkId)?.entity_ids.includes(e.id)) problems.push(`entity ${e.id} not in its source chunk ${chunkId}`);
    }
  }
  for (const id of created) {
    const doc = await documents.get(scope, id);
    const named = new Set((await graph.entitiesOfDocument(scope, id)).map((e) => e.id));
    if (doc?.entity_count !== named.size) problems.push(`document ${id} counts ${doc?.entity_count} entities, has ${named.size}`);
  }
  return problems;
}

/** Vectors of entities or relationships that are gone. */
async function staleVectors(app: TestApp, scope: Scope): Promise<string[]> {
  const { graph, vectors } = app.rt.stores;
  const live = new Set([
    ...(await graph.listEntities(scope, { limit: 10_000, offset: 0 })).items.map((e) => e.id),
    ...(await graph.listRelationships(scope, { limit: 10_000, offset: 0 })).items.map((r) => r.id),
  ]);
  const probe = Array.from({ length: app.rt.providers.embedding().dimension }, (_, i) => (i % 7) - 3);
  const stale: string[] = [];
  for (const kind of ['entity', 'relationship'] as const) {
    const hits = await vectors.search(scope, kind, probe, (await vectors.count(scope, kind)) + 1);
    stale.push(...hits.map((h) => h.id).filter((id) => !live.has(id)));
  }
  return stale;
}

async function ingest(app: TestApp): Promise<string[]> {
  return Promise.all(
    Array.from({ length: DOCUMENTS }, async (_, i) => {
      const res = await app.request('/api/v1/documents', { method: 'POST', json: { content: documentText(i) } });
      expect(res.status).toBe(201);
      const body = await json(res);
      expect(body.status).toBe('completed');
      return body.id as string;
    }),
  );
}

describe('entity resolution under concurrent merges', () => {
  jest.setTimeout(300_000);
  let app: TestApp;
  let scope: Scope;

  beforeAll(async () => {
    // Several workers and a little latency on every provider call, so merges and resolutions interleave.
    app = await startTestApp({
      SERVICE_ENTITY_RESOLUTION: 'true',
      WORKER_THREADS: '4',
      SERVICE_MOCK_LATENCY_MS: '3',
      SERVICE_MAX_UPLOADS_IN_FLIGHT_PER_WORKSPACE: String(DOCUMENTS),
    });
    scope = { workspaceId: app.workspace };
  });
  afterAll(async () => {
    await settleEmbeddingRefreshes(app.rt);
    await app.close();
  });

  it('leaves no chunk, relationship, source or vector naming a merged-away entity, and one entity per alias group', async () => {
    const created = await ingest(app);
    await settleEmbeddingRefreshes(app.rt);
    expect(await integrityProblems(app, scope, created)).toEqual([]);
    expect(await staleVectors(app, scope)).toEqual([]);

    for (const group of GROUPS) {
      const names = group.map(normalizeEntityId);
      const survivors = new Set((await resolveEntityAliases(app.rt.stores.kv, scope, names)).values());
      expect({ group: names, survivors: [...survivors] }).toEqual({ group: names, survivors: [expect.any(String)] });
      const live = new Set((await app.rt.stores.graph.getEntities(scope, [...survivors])).map((e) => e.id));
      expect(live.has([...survivors][0])).toBe(true);
    }
  });
});

describe('reviewed merges applied at once', () => {
  jest.setTimeout(300_000);
  let app: TestApp;
  let scope: Scope;

  beforeAll(async () => {
    app = await startTestApp({ SERVICE_ENTITY_RESOLUTION: 'false', SERVICE_MAX_UPLOADS_IN_FLIGHT_PER_WORKSPACE: String(DOCUMENTS) });
    scope = { workspaceId: app.workspace };
  });
  afterAll(async () => {
    await settleEmbeddingRefreshes(app.rt);
    await app.close();
  });

  it('keeps every merge of entities that share chunks: none writes back a chunk another one rewrote', async () => {
    const created = await ingest(app);
    await settleEmbeddingRefreshes(app.rt);
    // Every chunk names a form of each group: the four merges rewrite the same chunks at the same time.
    const answers = await Promise.all(
      GROUPS.map(([target, source]) =>
        app.request('/api/v1/graph/resolution/apply', {
          method: 'POST',
          json: { merges: [{ source_id: normalizeEntityId(source), target_id: normalizeEntityId(target) }] },
        }),
      ),
    );
    const bodies = await Promise.all(answers.map((r) => json(r)));
    expect(answers.map((r) => r.status)).toEqual(GROUPS.map(() => 200));
    expect(bodies.map((b) => b.applied.length)).toEqual(GROUPS.map(() => 1));
    await settleEmbeddingRefreshes(app.rt);
    expect(await integrityProblems(app, scope, created)).toEqual([]);
    expect(await staleVectors(app, scope)).toEqual([]);
  });
});
