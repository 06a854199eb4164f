import type { Scope } from '../../src/domain/types';
import type { GraphStore } from '../../src/store/ports';
import { entitiesWithin, relationshipsWithin } from '../../src/store/retrieval-reads';
import { makeEntity, makeRelationship, seededRandom, shuffled } from './fixtures';
import { randomGraph, ReferenceGraph, type RandomGraph } from './graph-reference';
import { type StoresCleanup, type StoresFactory, useStores } from './harness';

const byId = <T extends { id: string }>(items: T[]) => [...items].sort((a, b) => (a.id < b.id ? -1 : 1));
const ids = (items: Array<{ id: string }>) => items.map((i) => i.id);

async function load(graph: GraphStore, scope: Scope, data: RandomGraph): Promise<void> {
  await graph.upsertEntities(scope, data.entities);
  await graph.upsertRelationships(scope, data.relationships);
}

/**
 * A small fixed graph:
 *   ALICE -WORKS_WITH- BOB -LOCATED_IN- PARIS, ALICE -RELATED_TO- PARIS, CAROL -WORKS_WITH- BOB, DAVE alone.
 */
function smallGraph() {
  const entities = [
    makeEntity('ALICE', { name: 'Alice', document_ids: ['doc-1'] }),
    makeEntity('BOB', { name: 'Bob', document_ids: ['doc-1', 'doc-2'] }),
    makeEntity('PARIS', { name: 'Paris', entity_type: 'LOCATION', document_ids: ['doc-2'] }),
    makeEntity('CAROL', { name: 'Carol Smith', document_ids: ['doc-3'] }),
    makeEntity('DAVE', { name: 'Dave', entity_type: 'ORGANIZATION', document_ids: ['doc-3'] }),
  ];
  const relationships = [
    makeRelationship('ALICE', 'BOB', { relation_type: 'WORKS_WITH', document_ids: ['doc-1'] }),
    makeRelationship('BOB', 'PARIS', { relation_type: 'LOCATED_IN', document_ids: ['doc-2'] }),
    makeRelationship('ALICE', 'PARIS', { relation_type: 'RELATED_TO', document_ids: ['doc-1', 'doc-2'] }),
    makeRelationship('CAROL', 'BOB', { relation_type: 'WORKS_WITH', document_ids: ['doc-3'] }),
  ];
  return { entities, relationships };
}

export function graphStoreContract(name: string, makeStores: StoresFactory, cleanup?: StoresCleanup): void {
  describe(`${name}: GraphStore contract`, () => {
    const ctx = useStores(makeStores, cleanup);
    const graph = () => ctx.stores().graph;

    async function seeded(): Promise<{ scope: Scope } & ReturnType<typeof smallGraph>> {
      const scope = ctx.scope();
      const data = smallGraph();
      await load(graph(), scope, data);
      return { scope, ...data };
    }

    describe('records', () => {
      it('returns entities by id, getEntities in the order asked skipping unknown ids', async () => {
        const { scope, entities } = await seeded();
        expect(await graph().getEntity(scope, 'BOB')).toEqual(entities[1]);
        expect(await graph().getEntity(scope, 'NOBODY')).toBeNull();
        expect(await graph().getEntities(scope, ['PARIS', 'NOBODY', 'ALICE'])).toEqual([entities[2], entities[0]]);
      });

      it('reads entities as retrieval does: in the order asked, each with only its latest sources', async () => {
        const scope = ctx.scope();
        const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);
        const hub = makeEntity('HUB', { source_chunk_ids: ids('chunk', 300), document_ids: ids('doc', 30) });
        await graph().upsertEntities(scope, [hub, makeEntity('ALICE', { source_chunk_ids: ['c1'], document_ids: ['d1'] })]);
        const within = (bounds: { chunks: number; documents: number }) =>
          entitiesWithin(graph(), scope, ['HUB', 'NOBODY', 'ALICE'], bounds);
        const [bounded, alice] = await within({ chunks: 100, documents: 0 });
        expect(bounded).toEqual({ ...hub, source_chunk_ids: ids('chunk', 300).slice(-100), document_ids: [] });
        expect(alice).toEqual(makeEntity('ALICE', { source_chunk_ids: ['c1'], document_ids: [] }));
        expect((await within({ chunks: 2, documents: 2 ** 31 - 1 }))[0].document_ids).toEqual(hub.document_ids);
        expect(await within({ chunks: 0, documents: 0 })).toEqual([
          { ...hub, source_chunk_ids: [], document_ids: [] },
          makeEntity('ALICE', { source_chunk_ids: [], document_ids: [] }),
        ]);
        expect(await within({ chunks: 2 ** 31 - 1, documents: 2 ** 31 - 1 })).toEqual(await graph().getEntities(scope, ['HUB', 'ALICE']));
      });

      it('reads relationships with only their latest sources, in the order asked', async () => {
        const scope = ctx.scope();
        const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);
        await graph().upsertEntities(scope, [makeEntity('HUB'), makeEntity('ALICE'), makeEntity('BOB')]);
        const busy = makeRelationship('HUB', 'ALICE', { source_chunk_ids: ids('chunk', 300), document_ids: ids('doc', 30) });
        const quiet = makeRelationship('BOB', 'HUB', { source_chunk_ids: ['c1'], document_ids: ['d1'] });
        await graph().upsertRelationships(scope, [busy, quiet]);
        const within = (bounds: { chunks: number; documents: number }) =>
          relationshipsWithin(graph(), scope, [quiet.id, 'ALICE|NOBODY', busy.id], bounds);
        expect(await within({ chunks: 100, documents: 0 })).toEqual([
          { ...quiet, document_ids: [] },
          { ...busy, source_chunk_ids: ids('chunk', 300).slice(-100), document_ids: [] },
        ]);
        expect((await within({ chunks: 0, documents: 2 ** 31 - 1 })).map((r) => [r.source_chunk_ids, r.document_ids])).toEqual([
          [[], ['d1']],
          [[], busy.document_ids],
        ]);
        expect(await within({ chunks: 2 ** 31 - 1, documents: 2 ** 31 - 1 })).toEqual(
          await graph().getRelationships(scope, [quiet.id, busy.id]),
        );
      });

      it('replaces an entity upserted again under the same id', async () => {
        const { scope } = await seeded();
        const renamed = makeEntity('BOB', { name: 'Robert', description: 'merged', source_chunk_ids: ['c1', 'c2'] });
        await graph().upsertEntities(scope, [renamed]);
        expect(await graph().getEntity(scope, 'BOB')).toEqual(renamed);
        expect((await graph().stats(scope)).total_nodes).toBe(5);
        expect(await graph().degrees(scope, ['BOB'])).toEqual(new Map([['BOB', 3]]));
      });

      it('reads back records far larger than a network chunk, multi-byte text intact', async () => {
        // Over 200 KB per record: a Bolt message of many chunks, with characters of 2 to 4 bytes across their seams.
        const scope = ctx.scope();
        const description = Array.from({ length: 4000 }, (_, i) => `Zoë Ünal ${i} 東京 🚀`).join(' ');
        const sources = Array.from({ length: 3000 }, (_, i) => `doc-${i % 40}#chunk-${String(i).padStart(5, '0')}-é`);
        const hub = makeEntity('HUB', { description, source_chunk_ids: sources, document_ids: ['doc-1', 'doc-2'] });
        await graph().upsertEntities(scope, [hub, makeEntity('ALICE')]);
        const link = makeRelationship('HUB', 'ALICE', { description, source_chunk_ids: sources });
        await graph().upsertRelationships(scope, [link]);
        expect(await graph().getEntities(scope, ['ALICE', 'HUB'])).toEqual([makeEntity('ALICE'), hub]);
        expect(await graph().relationshipsOf(scope, ['HUB'])).toEqual([link]);
      });

      it('returns relationships by id and replaces them on upsert', async () => {
        const { scope, relationships } = await seeded();
        expect(await graph().getRelationships(scope, ['PARIS|NOWHERE', relationships[1].id])).toEqual([relationships[1]]);
        const heavier = { ...relationships[0], weight: 5, keywords: ['colleagues', 'friends'] };
        await graph().upsertRelationships(scope, [heavier]);
        expect(await graph().getRelationships(scope, [heavier.id])).toEqual([heavier]);
        expect((await graph().stats(scope)).total_edges).toBe(4);
      });

      it('refuses relationships to unknown entities and writes none of the batch', async () => {
        const scope = ctx.scope();
        await graph().upsertEntities(scope, [makeEntity('ALICE'), makeEntity('BOB')]);
        const fine = makeRelationship('ALICE', 'BOB');
        const dangling = makeRelationship('ALICE', 'GHOST');
        await expect(graph().upsertRelationships(scope, [fine, dangling])).rejects.toThrow();
        expect(await graph().getRelationships(scope, [fine.id, dangling.id])).toEqual([]);
        expect((await graph().stats(scope)).total_edges).toBe(0);
        // A stored relationship the refused batch would have replaced stays as it was.
        await graph().upsertRelationships(scope, [fine]);
        const changed = { ...fine, weight: 7, description: 'changed in a refused batch', relation_type: 'KNOWS' };
        await expect(graph().upsertRelationships(scope, [changed, dangling])).rejects.toThrow('GHOST');
        expect(await graph().getRelationships(scope, [fine.id])).toEqual([fine]);
        expect((await graph().stats(scope)).total_edges).toBe(1);
      });

      it('hands out copies: mutating inputs or results never changes stored records', async () => {
        const scope = ctx.scope();
        const alice = makeEntity('ALICE');
        const bob = makeEntity('BOB');
        const rel = makeRelationship('ALICE', 'BOB');
        const [aliceCopy, relCopy] = [structuredClone(alice), structuredClone(rel)];
        await graph().upsertEntities(scope, [alice, bob]);
        await graph().upsertRelationships(scope, [rel]);
        alice.document_ids.push('mutated');
        rel.keywords.push('mutated');
        (await graph().getEntity(scope, 'ALICE'))!.source_chunk_ids.push('x');
        (await graph().getEntities(scope, ['ALICE']))[0].name = 'x';
        (await graph().listEntities(scope, { limit: 5, offset: 0 })).items[0].document_ids.length = 0;
        (await graph().entitiesOfDocument(scope, 'doc-1'))[0].description = 'x';
        (await graph().getRelationships(scope, [rel.id]))[0].keywords.push('x');
        (await graph().relationshipsOf(scope, ['ALICE']))[0].weight = 99;
        (await graph().relationshipsAmong(scope, ['ALICE', 'BOB']))[0].document_ids.push('x');
        (await graph().listRelationships(scope, { limit: 5, offset: 0 })).items[0].description = 'x';
        (await graph().relationshipsOfDocument(scope, 'doc-1'))[0].source_chunk_ids.length = 0;
        expect(await graph().getEntity(scope, 'ALICE')).toEqual(aliceCopy);
        expect(await graph().getRelationships(scope, [rel.id])).toEqual([relCopy]);
      });

      it('relationshipsOf returns every relationship touching the entities, either end, once each', async () => {
        const { scope, relationships } = await seeded();
        expect(await graph().relationshipsOf(scope, ['PARIS'])).toEqual(byId([relationships[1], relationships[2]]));
        expect(await graph().relationshipsOf(scope, ['ALICE', 'PARIS', 'NOBODY'])).toEqual(
          byId([relationships[0], relationships[1], relationships[2]]),
        );
        expect(await graph().relationshipsOf(scope, ['DAVE'])).toEqual([]);
      });

      it('deleting entities removes their relationships too: nothing dangles', async () => {
        const { scope, relationships } = await seeded();
        await graph().deleteEntities(scope, ['BOB', 'NOBODY']);
        expect(await graph().getEntity(scope, 'BOB')).toBeNull();
        expect(await graph().getRelationships(scope, ids(relationships))).toEqual([relationships[2]]);
        expect(await graph().relationshipsOf(scope, ['CAROL'])).toEqual([]);
        expect(await graph().relationshipsOfDocument(scope, 'doc-3')).toEqual([]);
        expect(ids((await graph().listRelationships(scope, { limit: 10, offset: 0 })).items)).toEqual([relationships[2].id]);
        expect(await graph().degrees(scope, ['ALICE', 'CAROL'])).toEqual(
          new Map([
            ['ALICE', 1],
            ['CAROL', 0],
          ]),
        );
        expect(await graph().stats(scope)).toEqual({
          total_nodes: 4,
          total_edges: 1,
          node_types: { PERSON: 2, LOCATION: 1, ORGANIZATION: 1 },
          edge_types: { RELATED_TO: 1 },
        });
      });

      it('deletes relationships by id and keeps their endpoints', async () => {
        const { scope, relationships } = await seeded();
        await graph().deleteRelationships(scope, [relationships[0].id, 'NO|SUCH']);
        expect(await graph().getRelationships(scope, [relationships[0].id])).toEqual([]);
        expect(await graph().getEntities(scope, ['ALICE', 'BOB'])).toHaveLength(2);
        expect(await graph().degrees(scope, ['ALICE', 'BOB'])).toEqual(
          new Map([
            ['ALICE', 1],
            ['BOB', 2],
          ]),
        );
      });

      it('finds the entities and relationships of a document through their sources, following updates', async () => {
        const { scope, entities, relationships } = await seeded();
        expect(await graph().entitiesOfDocument(scope, 'doc-2')).toEqual(byId([entities[1], entities[2]]));
        expect(await graph().relationshipsOfDocument(scope, 'doc-2')).toEqual(byId([relationships[1], relationships[2]]));
        expect(await graph().entitiesOfDocument(scope, 'doc-none')).toEqual([]);

        const bobWithout = { ...entities[1], document_ids: ['doc-1'] };
        const relWithout = { ...relationships[2], document_ids: ['doc-1'] };
        await graph().upsertEntities(scope, [bobWithout]);
        await graph().upsertRelationships(scope, [relWithout]);
        expect(ids(await graph().entitiesOfDocument(scope, 'doc-2'))).toEqual(['PARIS']);
        expect(ids(await graph().relationshipsOfDocument(scope, 'doc-2'))).toEqual([relationships[1].id]);
        expect(ids(await graph().entitiesOfDocument(scope, 'doc-1'))).toEqual(['ALICE', 'BOB']);
      });

      it('counts the entities and relationships of documents as entitiesOfDocument and relationshipsOfDocument find them', async () => {
        const { scope, entities, relationships } = await seeded();
        await graph().upsertRelationships(scope, [{ ...relationships[2], document_ids: ['doc-1'] }]);
        await graph().upsertEntities(scope, [{ ...entities[0], document_ids: ['doc-1', 'doc-2'] }]);
        const asked = ['doc-1', 'doc-2', 'doc-3', 'doc-none', 'doc-2'];
        const counts = await graph().countsOfDocuments(scope, asked);
        for (const id of asked) {
          expect(counts.get(id)).toEqual({
            entities: (await graph().entitiesOfDocument(scope, id)).length,
            relationships: (await graph().relationshipsOfDocument(scope, id)).length,
          });
        }
        expect(counts.get('doc-none')).toEqual({ entities: 0, relationships: 0 });
        expect(counts.get('doc-2')?.entities).toBeGreaterThan(0);
        expect(await graph().countsOfDocuments(scope, [])).toEqual(new Map());
      });
    });

    describe('listing', () => {
      it('lists entities by id with totals, pagination, type filter and case-insensitive search', async () => {
        const { scope } = await seeded();
        const page = async (query: Parameters<GraphStore['listEntities']>[1]) => {
          const result = await graph().listEntities(scope, query);
          return { total: result.total, ids: ids(result.items) };
        };
        expect(await page({ limit: 2, offset: 0 })).toEqual({ total: 5, ids: ['ALICE', 'BOB'] });
        expect(await page({ limit: 2, offset: 2 })).toEqual({ total: 5, ids: ['CAROL', 'DAVE'] });
        expect(await page({ limit: 2, offset: 4 })).toEqual({ total: 5, ids: ['PARIS'] });
        expect(await page({ limit: 10, offset: 0, type: 'PERSON' })).toEqual({ total: 3, ids: ['ALICE', 'BOB', 'CAROL'] });
        expect(await page({ limit: 1, offset: 1, type: 'PERSON' })).toEqual({ total: 3, ids: ['BOB'] });
        expect(await page({ limit: 10, offset: 0, type: 'EVENT' })).toEqual({ total: 0, ids: [] });
        expect(await page({ limit: 10, offset: 0, search: 'smith' })).toEqual({ total: 1, ids: ['CAROL'] });
        expect(await page({ limit: 10, offset: 0, search: 'ar' })).toEqual({ total: 2, ids: ['CAROL', 'PARIS'] });
        expect(await page({ limit: 10, offset: 0, search: 'AR', type: 'LOCATION' })).toEqual({ total: 1, ids: ['PARIS'] });
        expect(await page({ limit: 10, offset: 0, search: 'ali' })).toEqual({ total: 1, ids: ['ALICE'] });
      });

      it('entity listing follows writes: new, retyped, renamed and deleted entities', async () => {
        const { scope } = await seeded();
        const typed = async (type: string) => ids((await graph().listEntities(scope, { limit: 10, offset: 0, type })).items);
        expect(await typed('PERSON')).toEqual(['ALICE', 'BOB', 'CAROL']);
        expect(await typed('ORGANIZATION')).toEqual(['DAVE']);
        await graph().upsertEntities(scope, [makeEntity('BOB', { name: 'Bobby Tables', entity_type: 'ORGANIZATION' })]);
        expect(await typed('PERSON')).toEqual(['ALICE', 'CAROL']);
        expect(await typed('ORGANIZATION')).toEqual(['BOB', 'DAVE']);
        await graph().upsertEntities(scope, [makeEntity('AARON', { name: 'Aaron' })]);
        await graph().deleteEntities(scope, ['CAROL']);
        const persons = await graph().listEntities(scope, { limit: 10, offset: 0, type: 'PERSON' });
        expect(ids(persons.items)).toEqual(['AARON', 'ALICE']);
        const orgs = await graph().listEntities(scope, { limit: 10, offset: 0, type: 'ORGANIZATION' });
        expect(ids(orgs.items)).toEqual(['BOB', 'DAVE']);
        const tables = await graph().listEntities(scope, { limit: 10, offset: 0, search: 'TABLES' });
        expect(ids(tables.items)).toEqual(['BOB']);
        expect((await graph().listEntities(scope, { limit: 0, offset: 0 })).total).toBe(5);
      });

      it('lists relationships by id with totals, pagination and type filter', async () => {
        const { scope, relationships } = await seeded();
        const all = ids(byId(relationships));
        const first = await graph().listRelationships(scope, { limit: 3, offset: 0 });
        const rest = await graph().listRelationships(scope, { limit: 3, offset: 3 });
        expect([first.total, rest.total]).toEqual([4, 4]);
        expect([...ids(first.items), ...ids(rest.items)]).toEqual(all);
        const works = await graph().listRelationships(scope, { limit: 10, offset: 0, type: 'WORKS_WITH' });
        expect({ total: works.total, ids: ids(works.items) }).toEqual({ total: 2, ids: ['ALICE|BOB', 'BOB|CAROL'] });
        await graph().upsertRelationships(scope, [{ ...relationships[1], relation_type: 'WORKS_WITH' }]);
        const retyped = await graph().listRelationships(scope, { limit: 10, offset: 0, type: 'WORKS_WITH' });
        expect(ids(retyped.items)).toEqual(['ALICE|BOB', 'BOB|CAROL', 'BOB|PARIS']);
        expect((await graph().listRelationships(scope, { limit: 10, offset: 0, type: 'LOCATED_IN' })).total).toBe(0);
      });
    });

    describe('structure', () => {
      it('reports degrees over the whole workspace, zero for unknown ids', async () => {
        const { scope } = await seeded();
        expect(await graph().degrees(scope, ['ALICE', 'BOB', 'PARIS', 'CAROL', 'DAVE', 'NOBODY'])).toEqual(
          new Map([
            ['ALICE', 2],
            ['BOB', 3],
            ['PARIS', 2],
            ['CAROL', 1],
            ['DAVE', 0],
            ['NOBODY', 0],
          ]),
        );
      });

      it('ranks the most connected nodes first, ties by id, following writes', async () => {
        const { scope } = await seeded();
        expect(await graph().topByDegree(scope, 3)).toEqual(['BOB', 'ALICE', 'PARIS']);
        expect(await graph().topByDegree(scope, 10)).toEqual(['BOB', 'ALICE', 'PARIS', 'CAROL', 'DAVE']);
        await graph().upsertRelationships(scope, [makeRelationship('DAVE', 'PARIS'), makeRelationship('DAVE', 'CAROL')]);
        expect(await graph().topByDegree(scope, 3)).toEqual(['BOB', 'PARIS', 'ALICE']);
        expect(await graph().topByDegree(scope, 0)).toEqual([]);
      });

      it('relationshipsAmong keeps only relationships with both ends in the set', async () => {
        const { scope, relationships } = await seeded();
        expect(await graph().relationshipsAmong(scope, ['ALICE', 'BOB', 'PARIS'])).toEqual(
          byId([relationships[0], relationships[1], relationships[2]]),
        );
        expect(await graph().relationshipsAmong(scope, ['CAROL', 'BOB', 'DAVE', 'NOBODY'])).toEqual([relationships[3]]);
        expect(await graph().relationshipsAmong(scope, ['ALICE'])).toEqual([]);
      });

      it('counts nodes and edges by type, following retyping and deletion', async () => {
        const { scope, relationships } = await seeded();
        expect(await graph().stats(scope)).toEqual({
          total_nodes: 5,
          total_edges: 4,
          node_types: { PERSON: 3, LOCATION: 1, ORGANIZATION: 1 },
          edge_types: { WORKS_WITH: 2, LOCATED_IN: 1, RELATED_TO: 1 },
        });
        await graph().upsertEntities(scope, [makeEntity('DAVE', { entity_type: 'PERSON' })]);
        await graph().upsertRelationships(scope, [{ ...relationships[1], relation_type: 'WORKS_WITH' }]);
        await graph().deleteRelationships(scope, [relationships[2].id]);
        expect(await graph().stats(scope)).toEqual({
          total_nodes: 5,
          total_edges: 3,
          node_types: { PERSON: 4, LOCATION: 1 },
          edge_types: { WORKS_WITH: 3 },
        });
      });

      it('bfs goes nearest first, start included, and reports no start for an unknown id', async () => {
        const { scope } = await seeded();
        expect(await graph().bfs(scope, 'CAROL', 0, 10)).toEqual({ ids: ['CAROL'], truncated: false });
        expect(await graph().bfs(scope, 'CAROL', 1, 10)).toEqual({ ids: ['CAROL', 'BOB'], truncated: false });
        // Level 2 from CAROL holds ALICE and PARIS (both degree 2): ordered by id.
        expect(await graph().bfs(scope, 'CAROL', 5, 10)).toEqual({ ids: ['CAROL', 'BOB', 'ALICE', 'PARIS'], truncated: false });
        expect(await graph().bfs(scope, 'CAROL', 5, 3)).toEqual({ ids: ['CAROL', 'BOB', 'ALICE'], truncated: true });
        expect(await graph().bfs(scope, 'CAROL', 1, 2)).toEqual({ ids: ['CAROL', 'BOB'], truncated: false });
        expect(await graph().bfs(scope, 'DAVE', 3, 10)).toEqual({ ids: ['DAVE'], truncated: false });
        expect(await graph().bfs(scope, 'NOBODY', 3, 10)).toEqual({ ids: [], truncated: false });
      });

      it('bfs matches a brute-force BFS on random graphs, truncation included', async () => {
        for (const seed of [1, 2, 3]) {
          const scope = ctx.scope();
          const data = randomGraph(seed, 300, 600);
          await load(graph(), scope, data);
          const reference = new ReferenceGraph(data);
          const starts = shuffled(
            data.entities.map((e) => e.id),
            seededRandom(seed + 100),
          ).slice(0, 8);
          starts.push('N0000', 'N0299');
          for (const start of starts) {
            for (const depth of [0, 1, 2, 3, 6]) {
              for (const maxNodes of [1, 2, 7, 40, 150, 1000]) {
                const actual = await graph().bfs(scope, start, depth, maxNodes);
                expect({ seed, start, depth, maxNodes, ...actual }).toEqual({
                  seed,
                  start,
                  depth,
                  maxNodes,
                  ...reference.bfs(start, depth, maxNodes),
                });
              }
            }
          }
          expect(await graph().topByDegree(scope, 25)).toEqual(reference.topByDegree(25));
          const sample = data.entities.slice(0, 50).map((e) => e.id);
          expect(await graph().degrees(scope, sample)).toEqual(new Map(sample.map((id) => [id, reference.degree.get(id)])));
          const stats = await graph().stats(scope);
          expect([stats.total_nodes, stats.total_edges]).toEqual([300, data.relationships.length]);
          const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
          expect([sum(stats.node_types), sum(stats.edge_types)]).toEqual([300, data.relationships.length]);
        }
      });
    });

    it('keeps workspaces apart: another workspace neither sees nor changes the graph', async () => {
      const { scope: a, entities, relationships } = await seeded();
      const b = ctx.scope();
      const relIds = ids(relationships);
      expect(await graph().getEntity(b, 'ALICE')).toBeNull();
      expect(await graph().getEntities(b, ['ALICE', 'BOB'])).toEqual([]);
      expect(await graph().getRelationships(b, relIds)).toEqual([]);
      expect(await graph().relationshipsOf(b, ['ALICE'])).toEqual([]);
      expect(await graph().entitiesOfDocument(b, 'doc-1')).toEqual([]);
      expect(await graph().relationshipsOfDocument(b, 'doc-1')).toEqual([]);
      expect(await graph().listEntities(b, { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
      expect(await graph().listRelationships(b, { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
      expect(await graph().degrees(b, ['BOB'])).toEqual(new Map([['BOB', 0]]));
      expect(await graph().bfs(b, 'ALICE', 2, 10)).toEqual({ ids: [], truncated: false });
      expect(await graph().topByDegree(b, 10)).toEqual([]);
      expect(await graph().relationshipsAmong(b, ['ALICE', 'BOB'])).toEqual([]);
      expect(await graph().stats(b)).toEqual({ total_nodes: 0, total_edges: 0, node_types: {}, edge_types: {} });
      // Entities of A are no endpoints in B.
      await expect(graph().upsertRelationships(b, [relationships[0]])).rejects.toThrow();

      // The same ids in B are records of their own, and deleting them leaves A whole.
      await graph().upsertEntities(b, [makeEntity('ALICE', { name: 'Other Alice' }), makeEntity('BOB')]);
      await graph().upsertRelationships(b, [makeRelationship('ALICE', 'BOB', { weight: 9 })]);
      await graph().deleteRelationships(b, ['ALICE|BOB']);
      await graph().deleteEntities(b, ['ALICE', 'BOB', 'PARIS']);
      expect(await graph().getEntity(a, 'ALICE')).toEqual(entities[0]);
      expect(await graph().getRelationships(a, relIds)).toEqual(relationships);
      expect((await graph().stats(a)).total_nodes).toBe(5);
    });
  });
}
