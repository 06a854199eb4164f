import type { Scope, VectorKind } from '../../src/domain/types';
import { checkIntegrity, ORPHAN_KINDS } from '../../src/services/integrity';
import { createMemoryStores } from '../../src/store/memory';
import { makeChunk, makeDocument, makeEntity, makeRelationship } from '../contract/fixtures';

/** The integrity check (src/services/integrity) on memory stores holding a consistent graph, then one orphan of each kind. */
describe('integrity check', () => {
  const scope: Scope = { workspaceId: 'ws-integrity' };

  async function consistent() {
    const stores = createMemoryStores();
    await stores.documents.insert(scope, makeDocument({ id: 'done' }));
    await stores.documents.insert(scope, makeDocument({ id: 'bad', status: 'failed' }));
    await stores.chunks.upsertMany(scope, [
      makeChunk('done', 0, { entity_ids: ['ALICE', 'BOB'], relationship_ids: ['ALICE|BOB'] }),
      // A failed document's chunk kept for retry-chunks: linked to nothing, no vector.
      makeChunk('bad', 0, { extraction_status: 'failed', entity_ids: [], relationship_ids: [] }),
    ]);
    await stores.graph.upsertEntities(scope, [
      makeEntity('ALICE', { source_chunk_ids: ['done-chunk-0'], document_ids: ['done'] }),
      makeEntity('BOB', { source_chunk_ids: ['done-chunk-0'], document_ids: ['done'] }),
    ]);
    await stores.graph.upsertRelationships(scope, [
      makeRelationship('ALICE', 'BOB', { source_chunk_ids: ['done-chunk-0'], document_ids: ['done'] }),
    ]);
    const vector = (kind: VectorKind, id: string) =>
      stores.vectors.upsert(scope, kind, [{ id, vector: [1, 0, 0], document_ids: ['done'] }]);
    await vector('chunk', 'done-chunk-0');
    await vector('entity', 'ALICE');
    await vector('entity', 'BOB');
    await vector('relationship', 'ALICE|BOB');
    return { stores, vector };
  }

  it('finds nothing in a workspace whose records all follow from its documents', async () => {
    const { stores } = await consistent();
    const report = await checkIntegrity(stores, scope);
    expect(report.total).toBe(0);
    expect(report.documents).toEqual({ completed: 1, processing: 0, failed: 1 });
    expect(report.checked).toEqual({ chunks: 2, entities: 2, relationships: 1, vectors: { chunk: 1, entity: 2, relationship: 1 } });
  });

  it('reports each kind of orphan by id', async () => {
    const { stores, vector } = await consistent();
    await stores.chunks.upsertMany(scope, [makeChunk('gone', 0), makeChunk('bad', 1), makeChunk('done', 1)]);
    await vector('chunk', 'nowhere-chunk-0');
    await vector('chunk', 'bad-chunk-1');
    await stores.graph.upsertEntities(scope, [
      makeEntity('CAROL', { source_chunk_ids: ['bad-chunk-0'], document_ids: ['bad'] }),
      makeEntity('DAVE', { source_chunk_ids: ['done-chunk-0', 'bad-chunk-1'], document_ids: ['done', 'bad'] }),
    ]);
    await vector('entity', 'CAROL');
    await vector('entity', 'ERIN');
    await stores.graph.upsertRelationships(scope, [
      makeRelationship('ALICE', 'DAVE', { source_chunk_ids: ['gone-chunk-0'], document_ids: ['gone'] }),
      makeRelationship('BOB', 'CAROL', { source_chunk_ids: ['done-chunk-0', 'missing-chunk-3'] }),
    ]);
    await vector('relationship', 'ALICE|DAVE');
    await vector('relationship', 'ALICE|CAROL');

    const report = await checkIntegrity(stores, scope);
    const found = Object.fromEntries(ORPHAN_KINDS.map((kind) => [kind, report.orphans[kind].ids.sort()]));
    expect(found).toEqual({
      chunk_without_document: ['gone-chunk-0'],
      chunk_of_failed_document_linked: ['bad-chunk-1'],
      chunk_without_vector: ['done-chunk-1'],
      chunk_vector_without_chunk: ['nowhere-chunk-0'],
      chunk_vector_of_failed_document: ['bad-chunk-1'],
      entity_without_source: ['CAROL'],
      entity_citing_dead_source: ['DAVE'],
      entity_without_vector: ['DAVE'],
      entity_vector_without_entity: ['ERIN'],
      relationship_without_source: ['ALICE|DAVE'],
      relationship_citing_dead_source: ['BOB|CAROL'],
      relationship_missing_endpoint: [],
      relationship_without_vector: ['BOB|CAROL'],
      relationship_vector_without_relationship: ['ALICE|CAROL'],
    });
    expect(report.total).toBe(ORPHAN_KINDS.reduce((sum, kind) => sum + report.orphans[kind].count, 0));
    expect(report.total).toBe(13);
  });
});
