import type { DocumentQuery } from '../../src/store/ports';
import { at, makeDocument, seededRandom, shuffled } from './fixtures';
import { type StoresCleanup, type StoresFactory, useStores } from './harness';

export function documentStoreContract(name: string, makeStores: StoresFactory, cleanup?: StoresCleanup): void {
  describe(`${name}: DocumentStore contract`, () => {
    const ctx = useStores(makeStores, cleanup);
    const documents = () => ctx.stores().documents;

    it('returns an inserted document by id and null for an unknown id', async () => {
      const scope = ctx.scope();
      const doc = makeDocument();
      await documents().insert(scope, doc);
      expect(await documents().get(scope, doc.id)).toEqual(doc);
      expect(await documents().get(scope, 'missing')).toBeNull();
    });

    it('gives the titles and file paths of the documents asked for that exist', async () => {
      const scope = ctx.scope();
      const [a, b] = [makeDocument({ title: 'First', file_path: 'a.txt' }), makeDocument({ title: 'Second', file_path: 'b.md' })];
      await documents().insert(scope, a);
      await documents().insert(scope, b);
      expect(await documents().titles(scope, [b.id, 'missing', a.id, b.id])).toEqual(
        new Map([
          [b.id, { title: 'Second', file_path: 'b.md' }],
          [a.id, { title: 'First', file_path: 'a.txt' }],
        ]),
      );
      expect(await documents().titles(scope, [])).toEqual(new Map());
    });

    it('hands out copies: mutating inputs or results never changes the stored record', async () => {
      const scope = ctx.scope();
      const doc = makeDocument();
      const original = structuredClone(doc);
      await documents().insert(scope, doc);
      doc.title = 'changed';
      (doc.metadata.tags as string[]).push('x');
      doc.options.max_gleaning = 9;

      const got = (await documents().get(scope, doc.id))!;
      got.title = 'changed again';
      (got.metadata.nested as { level: number }).level = 7;
      const listed = (await documents().list(scope, { limit: 10, offset: 0 })).items[0];
      listed.options.enable_gleaning = false;
      const updated = (await documents().update(scope, doc.id, { status: 'failed' }))!;
      updated.metadata.tags = [];
      (await documents().findByHash(scope, doc.content_hash))!.title = 'x';

      expect(await documents().get(scope, doc.id)).toEqual({ ...original, status: 'failed' });
    });

    it('patches fields on update, keeps the id, and returns null for an unknown document', async () => {
      const scope = ctx.scope();
      const doc = makeDocument();
      await documents().insert(scope, doc);
      const patched = { status: 'failed' as const, error: 'boom', chunk_count: 4, metadata: { k: 'v' } };
      const updated = await documents().update(scope, doc.id, { ...patched, id: 'other-id' });
      expect(updated).toEqual({ ...doc, ...patched });
      expect(await documents().get(scope, doc.id)).toEqual({ ...doc, ...patched });
      expect(await documents().get(scope, 'other-id')).toBeNull();
      expect(await documents().update(scope, 'missing', { status: 'failed' })).toBeNull();
    });

    it('sets the graph counts of the documents that exist, and nothing else of them', async () => {
      const scope = ctx.scope();
      const [a, b] = [makeDocument({ entity_count: 1, relationship_count: 1 }), makeDocument()];
      await documents().insert(scope, a);
      await documents().insert(scope, b);
      await documents().setGraphCounts(
        scope,
        new Map([
          [a.id, { entities: 7, relationships: 3 }],
          ['missing', { entities: 2, relationships: 2 }],
        ]),
      );
      expect(await documents().get(scope, a.id)).toEqual({ ...a, entity_count: 7, relationship_count: 3 });
      expect(await documents().get(scope, b.id)).toEqual(b);
      expect(await documents().get(scope, 'missing')).toBeNull();
      await documents().setGraphCounts(scope, new Map());
      expect(await documents().get(scope, a.id)).toEqual({ ...a, entity_count: 7, relationship_count: 3 });
    });

    it('finds a document by content hash, following hash updates', async () => {
      const scope = ctx.scope();
      const doc = makeDocument({ content_hash: 'sha256:first' });
      await documents().insert(scope, doc);
      expect((await documents().findByHash(scope, 'sha256:first'))?.id).toBe(doc.id);
      expect(await documents().findByHash(scope, 'sha256:unknown')).toBeNull();
      await documents().update(scope, doc.id, { content_hash: 'sha256:second' });
      expect(await documents().findByHash(scope, 'sha256:first')).toBeNull();
      expect((await documents().findByHash(scope, 'sha256:second'))?.id).toBe(doc.id);
    });

    it('lists newest first (ties by id) with totals and pagination', async () => {
      const scope = ctx.scope();
      const random = seededRandom(11);
      const docs = Array.from({ length: 9 }, (_, i) => makeDocument({ id: `doc-${i}`, created_at: at(i < 2 ? 0 : i) }));
      for (const doc of shuffled(docs, random)) await documents().insert(scope, doc);
      const expected = ['doc-8', 'doc-7', 'doc-6', 'doc-5', 'doc-4', 'doc-3', 'doc-2', 'doc-0', 'doc-1'];

      const pages = [];
      for (let offset = 0; offset < 12; offset += 4) pages.push(await documents().list(scope, { limit: 4, offset }));
      expect(pages.map((p) => p.total)).toEqual([9, 9, 9]);
      expect(pages.map((p) => p.items.length)).toEqual([4, 4, 1]);
      expect(pages.flatMap((p) => p.items.map((d) => d.id))).toEqual(expected);
      expect(await documents().list(scope, { limit: 5, offset: 20 })).toEqual({ items: [], total: 9 });
      expect(await documents().listIds(scope, {})).toEqual(expected);
    });

    it('filters by status, inclusive date range and title terms, in list and listIds alike', async () => {
      const scope = ctx.scope();
      const docs = [
        makeDocument({ id: 'd1', title: 'Quarterly REPORT', status: 'completed', created_at: '2024-05-01T00:00:00.000Z' }),
        makeDocument({ id: 'd2', title: 'Meeting notes', status: 'failed', created_at: '2024-05-02T12:00:00.000Z' }),
        makeDocument({ id: 'd3', title: 'Annual report', status: 'processing', created_at: '2024-05-02T23:59:59.999Z' }),
        makeDocument({ id: 'd4', title: 'Roadmap', status: 'completed', created_at: '2024-05-03T00:00:00.000Z' }),
        makeDocument({ id: 'd5', title: 'Notes on reporting', status: 'completed', created_at: '2024-05-04T08:30:00.000Z' }),
      ];
      for (const doc of docs) await documents().insert(scope, doc);
      const cases: Array<[Omit<DocumentQuery, 'limit' | 'offset'>, string[]]> = [
        [{ status: 'completed' }, ['d5', 'd4', 'd1']],
        [{ status: 'failed' }, ['d2']],
        [{ dateFrom: '2024-05-02' }, ['d5', 'd4', 'd3', 'd2']],
        [{ dateTo: '2024-05-02' }, ['d3', 'd2', 'd1']],
        [{ dateFrom: '2024-05-02', dateTo: '2024-05-02' }, ['d3', 'd2']],
        [{ dateFrom: '2024-05-02T12:00:00.000Z', dateTo: '2024-05-03T00:00:00.000Z' }, ['d4', 'd3', 'd2']],
        [{ dateTo: '2024-05-02T12:00:00.000Z' }, ['d2', 'd1']],
        [{ titleTerms: ['report'] }, ['d5', 'd3', 'd1']],
        [{ titleTerms: ['roadmap', 'meeting'] }, ['d4', 'd2']],
        [{ titleTerms: ['absent'] }, []],
        [{ status: 'completed', titleTerms: ['report'], dateFrom: '2024-05-04' }, ['d5']],
      ];
      for (const [filter, ids] of cases) {
        expect({ filter, ids: await documents().listIds(scope, filter) }).toEqual({ filter, ids });
        const page = await documents().list(scope, { ...filter, limit: 2, offset: 0 });
        expect({ filter, total: page.total, ids: page.items.map((d) => d.id) }).toEqual({
          filter,
          total: ids.length,
          ids: ids.slice(0, 2),
        });
      }
    });

    it('counts documents by status, with zero for absent statuses', async () => {
      const scope = ctx.scope();
      expect(await documents().countByStatus(scope)).toEqual({ processing: 0, completed: 0, failed: 0 });
      for (const status of ['completed', 'completed', 'failed'] as const) {
        await documents().insert(scope, makeDocument({ status }));
      }
      expect(await documents().countByStatus(scope)).toEqual({ processing: 0, completed: 2, failed: 1 });
    });

    it('deletes a document once: gone from get, findByHash and list', async () => {
      const scope = ctx.scope();
      const [kept, removed] = [makeDocument(), makeDocument()];
      await documents().insert(scope, kept);
      await documents().insert(scope, removed);
      expect(await documents().delete(scope, removed.id)).toBe(true);
      expect(await documents().delete(scope, removed.id)).toBe(false);
      expect(await documents().get(scope, removed.id)).toBeNull();
      expect(await documents().findByHash(scope, removed.content_hash)).toBeNull();
      expect(await documents().listIds(scope, {})).toEqual([kept.id]);
    });

    it('keeps workspaces apart: another workspace neither sees nor changes the documents', async () => {
      const [a, b] = [ctx.scope(), ctx.scope()];
      const doc = makeDocument();
      await documents().insert(a, doc);
      expect(await documents().get(b, doc.id)).toBeNull();
      expect(await documents().findByHash(b, doc.content_hash)).toBeNull();
      expect(await documents().list(b, { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
      expect(await documents().listIds(b, {})).toEqual([]);
      expect(await documents().countByStatus(b)).toEqual({ processing: 0, completed: 0, failed: 0 });
      expect(await documents().update(b, doc.id, { title: 'hijacked' })).toBeNull();
      expect(await documents().delete(b, doc.id)).toBe(false);
      expect(await documents().get(a, doc.id)).toEqual(doc);
    });
  });
}
