import { MemoryGraphStore } from '../../src/store/memory';
import { withLatestSources } from '../../src/store/retrieval-reads';
import { makeEntity, makeRelationship } from '../contract/fixtures';

/**
 * The embedded graph's reads for retrieval (GraphStore.entitiesWithin, relationshipsWithin, relationshipsAround):
 * the records the plain reads give, cut to their latest sources, and copies the store does not share.
 */
describe('embedded graph reads within source bounds', () => {
  const scope = { workspaceId: 'bounded' };
  const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  const bounds = { chunks: 3, documents: 2 };

  async function graphWithHub(): Promise<MemoryGraphStore> {
    const graph = new MemoryGraphStore();
    await graph.upsertEntities(scope, [
      makeEntity('HUB', { source_chunk_ids: ids('doc:chunk', 500), document_ids: ids('doc', 50) }),
      ...['A', 'B', 'C'].map((id) => makeEntity(id, { source_chunk_ids: ['d1:c1'], document_ids: ['d1'] })),
    ]);
    await graph.upsertRelationships(scope, [
      makeRelationship('HUB', 'A', { source_chunk_ids: ids('rel:chunk', 40), document_ids: ids('rel', 5) }),
      makeRelationship('HUB', 'B'),
      makeRelationship('B', 'C'),
    ]);
    return graph;
  }

  it('gives the records the plain reads give, with only their latest sources', async () => {
    const graph = await graphWithHub();
    const entities = await graph.entitiesWithin(scope, ['HUB', 'MISSING', 'A'], bounds);
    expect(entities).toEqual((await graph.getEntities(scope, ['HUB', 'MISSING', 'A'])).map((e) => withLatestSources(e, bounds)));
    expect(entities[0].source_chunk_ids).toEqual(['doc:chunk-497', 'doc:chunk-498', 'doc:chunk-499']);
    expect(entities[0].document_ids).toEqual(['doc-48', 'doc-49']);

    const relationshipIds = (await graph.relationshipsOf(scope, ['HUB'])).map((r) => r.id);
    expect(await graph.relationshipsWithin(scope, relationshipIds, bounds)).toEqual(
      (await graph.getRelationships(scope, relationshipIds)).map((r) => withLatestSources(r, bounds)),
    );

    const around = await graph.relationshipsAround(scope, ['HUB', 'C', 'HUB'], bounds);
    const expected = (await graph.relationshipsOf(scope, ['HUB', 'C'])).map((r) => withLatestSources(r, bounds));
    expect([...around].sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual(expected);
    expect(around).toHaveLength(3);
  });

  it('keeps no document ids under a bound of none (a read without a document filter needs none)', async () => {
    const graph = await graphWithHub();
    const none = { chunks: 3, documents: 0 };
    const [hub] = await graph.entitiesWithin(scope, ['HUB'], none);
    expect([hub.source_chunk_ids, hub.document_ids]).toEqual([['doc:chunk-497', 'doc:chunk-498', 'doc:chunk-499'], []]);
    const around = await graph.relationshipsAround(scope, ['HUB'], none);
    expect(around.map((r) => r.document_ids)).toEqual([[], []]);
    expect(withLatestSources(hub, none).document_ids).toEqual([]);
    const stored = await graph.getEntity(scope, 'HUB');
    expect(stored?.document_ids).toHaveLength(50);
  });

  it('hands out copies: changing one leaves the store as it was', async () => {
    const graph = await graphWithHub();
    const [hub] = await graph.entitiesWithin(scope, ['HUB'], { chunks: 1000, documents: 1000 });
    hub.source_chunk_ids.push('changed');
    hub.description = 'changed';
    const [relationship] = await graph.relationshipsAround(scope, ['A'], bounds);
    relationship.keywords.push('changed');
    relationship.source_chunk_ids.length = 0;
    const stored = await graph.getEntity(scope, 'HUB');
    expect(stored?.source_chunk_ids).toHaveLength(500);
    expect(stored?.description).not.toBe('changed');
    const [storedRelationship] = await graph.relationshipsOf(scope, ['A']);
    expect(storedRelationship.keywords).not.toContain('changed');
    expect(storedRelationship.source_chunk_ids).toHaveLength(40);
  });

  it('reads nothing from a workspace it does not hold', async () => {
    const graph = await graphWithHub();
    const other = { workspaceId: 'other' };
    expect(await graph.entitiesWithin(other, ['HUB'], bounds)).toEqual([]);
    expect(await graph.relationshipsWithin(other, ['A|HUB'], bounds)).toEqual([]);
    expect(await graph.relationshipsAround(other, ['HUB'], bounds)).toEqual([]);
  });
});
