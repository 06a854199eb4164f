import { makeChunk, seededRandom, shuffled } from './fixtures';
import { type StoresCleanup, type StoresFactory, useStores } from './harness';

export function chunkStoreContract(name: string, makeStores: StoresFactory, cleanup?: StoresCleanup): void {
  describe(`${name}: ChunkStore contract`, () => {
    const ctx = useStores(makeStores, cleanup);
    const chunks = () => ctx.stores().chunks;

    it('returns upserted chunks by id, and getMany in the order asked, skipping unknown ids', async () => {
      const scope = ctx.scope();
      const batch = [0, 1, 2].map((i) => makeChunk('doc-a', i));
      await chunks().upsertMany(scope, batch);
      expect(await chunks().get(scope, batch[1].id)).toEqual(batch[1]);
      expect(await chunks().get(scope, 'missing')).toBeNull();
      expect(await chunks().getMany(scope, [batch[2].id, 'missing', batch[0].id])).toEqual([batch[2], batch[0]]);
      expect(await chunks().getMany(scope, [])).toEqual([]);
    });

    it('reads and replaces what chunks name without their text, skipping unknown ids', async () => {
      const scope = ctx.scope();
      const batch = [0, 1, 2].map((i) => makeChunk('doc-a', i, { entity_ids: [`E${i}`], relationship_ids: [`E${i}|X`] }));
      await chunks().upsertMany(scope, batch);
      const links = (c: (typeof batch)[number]) => ({
        id: c.id,
        document_id: c.document_id,
        entity_ids: c.entity_ids,
        relationship_ids: c.relationship_ids,
      });
      expect(await chunks().linksOf(scope, [batch[2].id, 'missing', batch[0].id])).toEqual([links(batch[2]), links(batch[0])]);
      expect(await chunks().linksOf(scope, [])).toEqual([]);
      const given = { ...links(batch[1]), entity_ids: ['A', 'B'], relationship_ids: [] };
      await chunks().setLinks(scope, [given, { ...given, id: 'missing' }]);
      given.entity_ids.push('C');
      expect(await chunks().get(scope, batch[1].id)).toEqual({ ...batch[1], entity_ids: ['A', 'B'], relationship_ids: [] });
      expect(await chunks().getMany(scope, [batch[0].id, batch[2].id])).toEqual([batch[0], batch[2]]);
      expect(await chunks().get(scope, 'missing')).toBeNull();
      expect(await chunks().count(scope)).toBe(3);
      await chunks().setLinks(scope, []);
    });

    it('replaces a chunk upserted again under the same id', async () => {
      const scope = ctx.scope();
      await chunks().upsertMany(scope, [makeChunk('doc-a', 0)]);
      const failed = makeChunk('doc-a', 0, { extraction_status: 'failed', extraction_error: 'timeout', entity_ids: [] });
      await chunks().upsertMany(scope, [failed]);
      expect(await chunks().get(scope, failed.id)).toEqual(failed);
      expect(await chunks().count(scope)).toBe(1);
    });

    it('hands out copies: mutating inputs or results never changes the stored chunk', async () => {
      const scope = ctx.scope();
      const chunk = makeChunk('doc-a', 0);
      const original = structuredClone(chunk);
      await chunks().upsertMany(scope, [chunk]);
      chunk.entity_ids.push('MUTATED');
      (await chunks().get(scope, chunk.id))!.relationship_ids.length = 0;
      (await chunks().getMany(scope, [chunk.id]))[0].content = 'x';
      (await chunks().listByDocument(scope, 'doc-a'))[0].entity_ids.push('Y');
      expect(await chunks().get(scope, chunk.id)).toEqual(original);
    });

    it('lists the chunks of a document by index', async () => {
      const scope = ctx.scope();
      const own = Array.from({ length: 12 }, (_, i) => makeChunk('doc-a', i));
      await chunks().upsertMany(scope, shuffled(own, seededRandom(3)));
      await chunks().upsertMany(scope, [makeChunk('doc-b', 0)]);
      expect((await chunks().listByDocument(scope, 'doc-a')).map((c) => c.index)).toEqual(own.map((c) => c.index));
      expect(await chunks().listByDocument(scope, 'doc-none')).toEqual([]);
    });

    it('deletes the chunks of one document and returns how many went', async () => {
      const scope = ctx.scope();
      await chunks().upsertMany(
        scope,
        [0, 1, 2].map((i) => makeChunk('doc-a', i)),
      );
      await chunks().upsertMany(
        scope,
        [0, 1].map((i) => makeChunk('doc-b', i)),
      );
      expect(await chunks().count(scope)).toBe(5);
      expect(await chunks().deleteByDocument(scope, 'doc-a')).toBe(3);
      expect(await chunks().deleteByDocument(scope, 'doc-a')).toBe(0);
      expect(await chunks().count(scope)).toBe(2);
      expect(await chunks().get(scope, makeChunk('doc-a', 0).id)).toBeNull();
      expect(await chunks().listByDocument(scope, 'doc-b')).toHaveLength(2);
    });

    it("deletes all of a document's chunks but those it is told to keep", async () => {
      const scope = ctx.scope();
      await chunks().upsertMany(
        scope,
        [0, 1, 2, 3].map((i) => makeChunk('doc-a', i)),
      );
      await chunks().upsertMany(scope, [makeChunk('doc-b', 0)]);
      const keep = [makeChunk('doc-a', 1).id, makeChunk('doc-a', 3).id, makeChunk('doc-b', 0).id, 'not-a-chunk'];
      expect(await chunks().deleteByDocument(scope, 'doc-a', keep)).toBe(2);
      expect((await chunks().listByDocument(scope, 'doc-a')).map((c) => c.index)).toEqual([1, 3]);
      expect(await chunks().listByDocument(scope, 'doc-b')).toHaveLength(1);
      expect(await chunks().deleteByDocument(scope, 'doc-a', keep)).toBe(0);
      expect(await chunks().deleteByDocument(scope, 'doc-a', [])).toBe(2);
      expect(await chunks().count(scope)).toBe(1);
      // A document whose chunks all went can be given chunks again.
      await chunks().upsertMany(scope, [makeChunk('doc-a', 0)]);
      expect(await chunks().listByDocument(scope, 'doc-a')).toHaveLength(1);
    });

    it('lists every chunk of the workspace with its document and whether it names a record', async () => {
      const [scope, other] = [ctx.scope(), ctx.scope()];
      await chunks().upsertMany(scope, [
        makeChunk('doc-a', 0),
        makeChunk('doc-a', 1, { entity_ids: [], relationship_ids: [] }),
        makeChunk('doc-b', 0, { entity_ids: [], relationship_ids: ['r-1'] }),
      ]);
      await chunks().upsertMany(other, [makeChunk('doc-c', 0)]);
      const refs = (await chunks().refs(scope)).sort((x, y) => x.id.localeCompare(y.id));
      expect(refs).toEqual([
        { id: makeChunk('doc-a', 0).id, document_id: 'doc-a', linked: true },
        { id: makeChunk('doc-a', 1).id, document_id: 'doc-a', linked: false },
        { id: makeChunk('doc-b', 0).id, document_id: 'doc-b', linked: true },
      ]);
      expect(await chunks().refs(ctx.scope())).toEqual([]);
    });

    it('keeps workspaces apart: another workspace neither sees nor deletes the chunks', async () => {
      const [a, b] = [ctx.scope(), ctx.scope()];
      const batch = [0, 1].map((i) => makeChunk('doc-a', i));
      await chunks().upsertMany(a, batch);
      expect(await chunks().get(b, batch[0].id)).toBeNull();
      expect(
        await chunks().getMany(
          b,
          batch.map((c) => c.id),
        ),
      ).toEqual([]);
      expect(await chunks().listByDocument(b, 'doc-a')).toEqual([]);
      expect(await chunks().count(b)).toBe(0);
      expect(await chunks().deleteByDocument(b, 'doc-a')).toBe(0);
      expect(await chunks().listByDocument(a, 'doc-a')).toEqual(batch);
    });
  });
}
