import type { Scope, VectorPoint } from '../../src/domain/types';
import { expandFromEntities } from '../../src/retrieval/steps/expand';
import type { RetrievalReads, Stores } from '../../src/store/ports';
import { ComposedRetrievalReads, retrievalReadsOf } from '../../src/store/retrieval-reads';
import { makeChunk, makeDocument, makeEntity, makeRelationship, seededRandom } from './fixtures';
import { type StoresCleanup, type StoresFactory, useStores } from './harness';

const DIM = 8;
const PEOPLE = ['ALICE', 'BOB', 'CAROL', 'DAVE', 'EVE', 'FRANK'];
const PAIRS: Array<[string, string]> = [
  ['ALICE', 'BOB'],
  ['ALICE', 'CAROL'],
  ['BOB', 'DAVE'],
  ['CAROL', 'EVE'],
  ['DAVE', 'EVE'],
  ['EVE', 'FRANK'],
];

function vectorOf(random: () => number): number[] {
  return Array.from({ length: DIM }, () => random() * 2 - 1);
}

/** Two documents of two chunks each (the second titled), six people, six relationships, every record embedded. */
async function seed(stores: Stores, scope: Scope): Promise<{ query: number[]; chunkIds: string[] }> {
  const random = seededRandom(11);
  const docs = [makeDocument({ id: 'doc-1', title: 'First' }), makeDocument({ id: 'doc-2', title: 'Second', file_path: 'b/second.md' })];
  for (const doc of docs) await stores.documents.insert(scope, doc);
  const chunks = docs.flatMap((d) => [makeChunk(d.id, 0), makeChunk(d.id, 1)]);
  await stores.chunks.upsertMany(scope, chunks);
  const documentOf = (i: number) => (i % 2 === 0 ? 'doc-1' : 'doc-2');
  await stores.graph.upsertEntities(
    scope,
    PEOPLE.map((id, i) => makeEntity(id, { document_ids: [documentOf(i)], source_chunk_ids: [`${documentOf(i)}-chunk-0`] })),
  );
  const relationships = PAIRS.map(([a, b], i) => makeRelationship(a, b, { document_ids: [documentOf(i)], weight: i + 1 }));
  await stores.graph.upsertRelationships(scope, relationships);
  const points = (items: Array<{ id: string; document_ids: string[] }>): VectorPoint[] =>
    items.map((item) => ({ id: item.id, document_ids: item.document_ids, vector: vectorOf(random) }));
  await stores.vectors.upsert(scope, 'entity', points(PEOPLE.map((id, i) => ({ id, document_ids: [documentOf(i)] }))));
  await stores.vectors.upsert(scope, 'relationship', points(relationships));
  await stores.vectors.upsert(scope, 'chunk', points(chunks.map((c) => ({ id: c.id, document_ids: [c.document_id] }))));
  return { query: vectorOf(random), chunkIds: chunks.map((c) => c.id) };
}

const byId = <T extends { id: string }>(items: T[]) => [...items].sort((a, b) => (a.id < b.id ? -1 : 1));
const sortedEntries = (map: Map<string, number>) => [...map].sort((a, b) => (a[0] < b[0] ? -1 : 1));

/**
 * The reads retrieval makes in one call each. Every store answers exactly as the reads composed from its other
 * ports (the reference); the Neo4j stores join them into one statement.
 */
export function retrievalReadsContract(name: string, makeStores: StoresFactory, cleanup?: StoresCleanup): void {
  describe(`${name}: RetrievalReads contract`, () => {
    const ctx = useStores(makeStores, cleanup);
    const reads = (): RetrievalReads => retrievalReadsOf(ctx.stores());
    const reference = () => new ComposedRetrievalReads(ctx.stores());

    it('returns entity hits with their records in the order of the vector search', async () => {
      const scope = ctx.scope();
      const { query } = await seed(ctx.stores(), scope);
      const searched = await ctx.stores().vectors.search(scope, 'entity', query, 4);
      const found = await reads().entityHits(scope, query, 4, { minScore: -1, around: false });
      expect(found.hits.map((h) => h.record.id)).toEqual(searched.map((h) => h.id));
      found.hits.forEach((h, i) => expect(h.score).toBeCloseTo(searched[i].score, 4));
      expect(found.hits[0].record).toEqual(await ctx.stores().graph.getEntity(scope, searched[0].id));
      expect(found.relationships).toEqual([]);
    });

    it('brings the relationships around the hits that reach the minimum score, with every end point degree', async () => {
      const scope = ctx.scope();
      const { query } = await seed(ctx.stores(), scope);
      const searched = await ctx.stores().vectors.search(scope, 'entity', query, 3);
      const minScore = searched[1].score;
      const found = await reads().entityHits(scope, query, 3, { minScore, around: true });
      const seeds = new Set(searched.slice(0, 2).map((h) => h.id));
      const expected = await ctx.stores().graph.relationshipsOf(scope, [...seeds]);
      expect(byId(found.relationships)).toEqual(byId(expected));
      expect(found.relationships.every((r) => seeds.has(r.source) || seeds.has(r.target))).toBe(true);
      const ends = [...new Set([...seeds, ...expected.flatMap((r) => [r.source, r.target])])];
      expect(sortedEntries(found.degrees)).toEqual(sortedEntries(await ctx.stores().graph.degrees(scope, ends)));
      const composed = await reference().entityHits(scope, query, 3, { minScore, around: true });
      expect(byId(found.relationships)).toEqual(byId(composed.relationships));
    });

    it('brings at least the relationships local expansion keeps, every one tied with the last kept included', async () => {
      const scope = ctx.scope();
      const { stores } = { stores: ctx.stores() };
      // HUB is the only seed. Around it: HUB-X1 ranks first (X1 also knows Z, so its degree is higher), HUB-X9 next
      // (weight 2), then HUB-X2 .. HUB-X8 all tied (seeds joined, degrees and weight alike).
      const leaves = Array.from({ length: 9 }, (_, i) => `X${i + 1}`);
      await stores.graph.upsertEntities(
        scope,
        ['HUB', 'Z', ...leaves].map((id) => makeEntity(id)),
      );
      await stores.graph.upsertRelationships(scope, [
        ...leaves.map((x) => makeRelationship('HUB', x, { weight: x === 'X9' ? 2 : 1 })),
        makeRelationship('X1', 'Z'),
      ]);
      const hub = [1, 0, 0, 0, 0, 0, 0, 0];
      await stores.vectors.upsert(
        scope,
        'entity',
        ['HUB', 'Z', ...leaves].map((id, i) => ({
          id,
          document_ids: ['doc-1'],
          vector: id === 'HUB' ? hub : [0, 0, 0, 0, 0, 0, 0, i + 1],
        })),
      );
      const limits = (keep: number) => ({ maxEntities: 4, maxRelationships: keep, maxChunks: 5 });
      const full = await reads().entityHits(scope, hub, 1, { minScore: 0.5, around: true });
      expect(full.hits.map((h) => h.record.id)).toEqual(['HUB']);
      expect(full.relationships).toHaveLength(9);
      const seeds = full.hits.map((h) => ({ ...h, degree: 0 }));
      for (const [keep, atLeast] of [
        [1, ['HUB|X1']],
        [2, ['HUB|X1', 'HUB|X9']],
        [3, ['HUB|X1', 'HUB|X9', ...leaves.slice(1, 8).map((x) => `HUB|${x}`)]],
      ] as const) {
        const bounded = await reads().entityHits(scope, hub, 1, { minScore: 0.5, around: true, keep });
        const ids = bounded.relationships.map((r) => r.id);
        // A store leaves out only what ranks after the cut; one that cannot rank them returns them all.
        expect(ids.length === atLeast.length || ids.length === full.relationships.length).toBe(true);
        expect(ids).toEqual(expect.arrayContaining([...atLeast]));
        const ends = new Set(bounded.relationships.flatMap((r) => [r.source, r.target]).concat('HUB'));
        for (const id of ends) expect(bounded.degrees.get(id)).toBe(full.degrees.get(id));
        const expanded = await expandFromEntities(stores, scope, seeds, limits(keep), null, bounded);
        expect(expanded).toEqual(await expandFromEntities(stores, scope, seeds, limits(keep), null, full));
        expect(expanded.relationships.map((r) => r.record.id)).toEqual(['HUB|X1', 'HUB|X9', 'HUB|X2'].slice(0, keep));
      }
    });

    it('returns relationship hits with their records, end points and degrees', async () => {
      const scope = ctx.scope();
      const { query } = await seed(ctx.stores(), scope);
      const searched = await ctx.stores().vectors.search(scope, 'relationship', query, 3);
      const found = await reads().relationshipHits(scope, query, 3, { minScore: -1, ends: true });
      expect(found.hits.map((h) => h.record.id)).toEqual(searched.map((h) => h.id));
      expect(found.hits.map((h) => h.record)).toEqual(
        await ctx.stores().graph.getRelationships(
          scope,
          searched.map((h) => h.id),
        ),
      );
      const ends = [...new Set(found.hits.flatMap((h) => [h.record.source, h.record.target]))];
      expect(byId(found.entities)).toEqual(byId(await ctx.stores().graph.getEntities(scope, ends)));
      expect(sortedEntries(found.degrees)).toEqual(sortedEntries(await ctx.stores().graph.degrees(scope, ends)));
    });

    it('brings at least the first end points in hit order with keep, with their degrees', async () => {
      const scope = ctx.scope();
      const { query } = await seed(ctx.stores(), scope);
      const all = await reads().relationshipHits(scope, query, 5, { minScore: -1, ends: true });
      const inHitOrder = [...new Set(all.hits.flatMap((h) => [h.record.source, h.record.target]))];
      expect(inHitOrder.length).toBeGreaterThan(3);
      for (const read of [reads(), reference()]) {
        const found = await read.relationshipHits(scope, query, 5, { minScore: -1, ends: true, keep: 3 });
        expect(found.hits).toEqual(all.hits);
        const first = inHitOrder.slice(0, 3);
        expect(
          found.entities
            .filter((e) => first.includes(e.id))
            .map((e) => e.id)
            .sort(),
        ).toEqual([...first].sort());
        for (const id of first) expect(found.degrees.get(id)).toBe(all.degrees.get(id));
        expect(found.entities.length).toBeLessThan(inHitOrder.length);
      }
    });

    it('keeps only the latest chunk ids of each record when bounded, and its document ids only under a filter (all of them there)', async () => {
      const scope = ctx.scope();
      const { query } = await seed(ctx.stores(), scope);
      const many = (prefix: string) => Array.from({ length: 250 }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);
      const hubDocs = ['doc-1', ...many('doc-x')];
      await ctx.stores().graph.upsertEntities(
        scope,
        PEOPLE.map((id) => makeEntity(id, { source_chunk_ids: many(`${id}-chunk`), document_ids: hubDocs })),
      );
      await ctx
        .stores()
        .graph.upsertRelationships(scope, [
          makeRelationship('ALICE', 'BOB', { source_chunk_ids: many('AB-chunk'), document_ids: hubDocs }),
        ]);
      const latest = (list: string[]) => list.slice(-100);
      for (const read of [reads(), reference()]) {
        const entities = await read.entityHits(scope, query, 6, { minScore: -1, around: true, sources: 100 });
        expect(entities.hits).toHaveLength(6);
        for (const { record } of entities.hits) {
          expect(record.source_chunk_ids).toEqual(latest(many(`${record.id}-chunk`)));
          expect(record.document_ids).toEqual([]);
        }
        const ab = entities.relationships.find((r) => r.id === 'ALICE|BOB');
        expect(ab?.source_chunk_ids).toEqual(latest(many('AB-chunk')));
        expect(ab?.document_ids).toEqual([]);
        const links = await read.relationshipHits(scope, query, 6, { minScore: -1, ends: true, sources: 100 });
        expect(links.entities.length).toBeGreaterThan(0);
        for (const e of links.entities) expect([e.source_chunk_ids, e.document_ids]).toEqual([latest(many(`${e.id}-chunk`)), []]);
        for (const { record } of links.hits) expect(record.document_ids).toEqual([]);
        const filtered = await read.entityHits(scope, query, 6, {
          filter: { documentIds: ['doc-1'] },
          minScore: -1,
          around: false,
          sources: 100,
        });
        expect(filtered.hits.length).toBeGreaterThan(0);
        for (const { record } of filtered.hits) {
          expect(record.source_chunk_ids).toEqual(latest(many(`${record.id}-chunk`)));
          expect(record.document_ids).toEqual(hubDocs);
        }
      }
    });

    it('keeps to the documents of the filter', async () => {
      const scope = ctx.scope();
      const { query } = await seed(ctx.stores(), scope);
      const filter = { documentIds: ['doc-2'] };
      const entities = await reads().entityHits(scope, query, 10, { filter, minScore: -1, around: false });
      expect(entities.hits.map((h) => h.record.id).sort()).toEqual(['BOB', 'DAVE', 'FRANK']);
      const chunks = await reads().chunkHits(scope, query, 10, { filter, minScore: -1 });
      expect(chunks.hits.map((h) => h.record.id).sort()).toEqual(['doc-2-chunk-0', 'doc-2-chunk-1']);
    });

    it('scores only the chunks asked for, with their documents titles', async () => {
      const scope = ctx.scope();
      const { query, chunkIds } = await seed(ctx.stores(), scope);
      const ids = [chunkIds[0], chunkIds[3]];
      const searched = await ctx.stores().vectors.search(scope, 'chunk', query, 5, { ids });
      const found = await reads().chunkHits(scope, query, 5, { filter: { ids }, minScore: -1 });
      expect(found.hits.map((h) => h.record.id)).toEqual(searched.map((h) => h.id));
      expect(found.hits.map((h) => h.record)).toEqual(
        await ctx.stores().chunks.getMany(
          scope,
          searched.map((h) => h.id),
        ),
      );
      expect(found.origins.get('doc-2')).toEqual({ title: 'Second', file_path: 'b/second.md' });
      expect(found.origins.get('doc-1')?.title).toBe('First');
    });

    it('reads chunks in the order asked for, skipping unknown ids, with their documents titles', async () => {
      const scope = ctx.scope();
      const { chunkIds } = await seed(ctx.stores(), scope);
      const found = await reads().chunksWithOrigins(scope, [chunkIds[2], 'doc-9-chunk-0', chunkIds[0]]);
      expect(found.chunks.map((c) => c.id)).toEqual([chunkIds[2], chunkIds[0]]);
      expect([...found.origins.keys()].sort()).toEqual(['doc-1', 'doc-2']);
      expect(await reads().chunksWithOrigins(scope, [])).toEqual({ chunks: [], origins: new Map() });
    });

    it('answers an empty workspace with nothing', async () => {
      const scope = ctx.scope();
      const query = vectorOf(seededRandom(3));
      expect((await reads().entityHits(scope, query, 5, { minScore: 0, around: true })).hits).toEqual([]);
      expect((await reads().relationshipHits(scope, query, 5, { minScore: 0, ends: true })).entities).toEqual([]);
      expect((await reads().chunkHits(scope, query, 5, { minScore: 0 })).hits).toEqual([]);
    });
  });
}
