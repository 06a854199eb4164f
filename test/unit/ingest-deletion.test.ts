import { deleteDocumentData, deletionImpact } from '../../src/ingest/deletion';
import { EXTRACTION_NAMESPACE } from '../../src/ingest/extract/cache';
import { PAGES_NAMESPACE } from '../../src/ingest/chunk/pages';
import { processDocument, savePageMap } from '../../src/ingest/pipeline';
import { MERGE_STATE_NAMESPACE } from '../../src/ingest/merge/record-state';
import { createIngestFixture, type IngestFixture } from './ingest-fixtures';

const DOC_A = 'Alice Smith works at Acme Corporation in Paris. Acme Corporation builds the Graph Engine.';
const DOC_B = 'Alice Smith moved to Berlin in spring. Alice Smith teaches at Berlin Academy.';

async function ingest(f: IngestFixture, text: string): Promise<string> {
  const doc = await f.addDocument(text);
  const result = await processDocument(f.deps, f.scope, doc.id, { mode: 'full' });
  expect(result.status).toBe('completed');
  return doc.id;
}

async function everything(f: IngestFixture) {
  const { graph, vectors, chunks, kv } = f.deps.stores;
  const stats = await graph.stats(f.scope);
  return {
    entities: stats.total_nodes,
    relationships: stats.total_edges,
    chunks: await chunks.count(f.scope),
    vectors:
      (await vectors.count(f.scope, 'chunk')) + (await vectors.count(f.scope, 'entity')) + (await vectors.count(f.scope, 'relationship')),
    extractions: await kv.count(f.scope, EXTRACTION_NAMESPACE),
    mergeStates: await kv.count(f.scope, MERGE_STATE_NAMESPACE),
    pages: await kv.count(f.scope, PAGES_NAMESPACE),
  };
}

describe('deleting a document', () => {
  test('keeps an entity shared with another document, its description rebuilt from the remaining sources', async () => {
    const f = createIngestFixture();
    const a = await ingest(f, DOC_A);
    const b = await ingest(f, DOC_B);
    const [shared] = await f.deps.stores.graph.getEntities(f.scope, ['ALICE_SMITH']);
    expect(shared.document_ids).toEqual([a, b]);
    expect(shared.description).toContain('Acme');

    const ofA = await f.deps.stores.graph.entitiesOfDocument(f.scope, a);
    const relationsOfA = await f.deps.stores.graph.relationshipsOfDocument(f.scope, a);
    expect(await deletionImpact(f.deps, f.scope, a)).toEqual({
      document_id: a,
      entities_affected: ofA.length,
      entities_to_delete: ofA.length - 1,
      entities_to_update: 1,
      relationships_affected: relationsOfA.length,
      relationships_to_delete: relationsOfA.length,
      relationships_to_update: 0,
    });

    f.changes.length = 0;
    await deleteDocumentData(f.deps, f.scope, a);
    const [kept] = await f.deps.stores.graph.getEntities(f.scope, ['ALICE_SMITH']);
    expect(kept.document_ids).toEqual([b]);
    expect(kept.source_chunk_ids).toEqual([`${b}-chunk-0`]);
    expect(kept.description).not.toContain('Acme');
    expect(await f.deps.stores.graph.getEntities(f.scope, ['ACME_CORPORATION'])).toEqual([]);

    // The same record as if only the other document had ever been ingested.
    const alone = createIngestFixture();
    await ingest(alone, DOC_B);
    const [reference] = await alone.deps.stores.graph.getEntities(alone.scope, ['ALICE_SMITH']);
    expect({ ...kept, source_chunk_ids: [], document_ids: [], created_at: '', updated_at: '' }).toEqual({
      ...reference,
      source_chunk_ids: [],
      document_ids: [],
      created_at: '',
      updated_at: '',
    });

    expect(f.changes).toEqual(
      expect.arrayContaining([
        { kind: 'node_updated', id: 'ALICE_SMITH' },
        { kind: 'node_removed', id: 'ACME_CORPORATION' },
      ]),
    );
    const [vector] = await f.deps.providers.embedding().embed([`Alice Smith: ${kept.description}`]);
    expect(await f.deps.stores.vectors.search(f.scope, 'entity', vector, 5, { documentIds: [a] })).toEqual([]);
    expect((await f.deps.stores.vectors.search(f.scope, 'entity', vector, 1, { documentIds: [b] }))[0]).toMatchObject({
      id: 'ALICE_SMITH',
    });
    const counts = await everything(f);
    expect(counts).toMatchObject({ chunks: 1, extractions: 1 });
    expect(counts.vectors).toBe(1 + counts.entities + counts.relationships);
  });

  test('deleting every document leaves the workspace graph, vectors, chunks and caches empty', async () => {
    const f = createIngestFixture({ summaryFragmentThreshold: 1 });
    const a = await ingest(f, DOC_A);
    await savePageMap(f.deps, f.scope, a, [{ page: 1, char_start: 0, char_end: DOC_A.length }]);
    const b = await ingest(f, DOC_B);
    const c = await ingest(f, `${DOC_A} ${DOC_B}`);
    expect((await everything(f)).mergeStates).toBeGreaterThan(0);
    expect(f.callsFor('summarize').length).toBeGreaterThan(0);

    for (const id of [b, a, c]) await deleteDocumentData(f.deps, f.scope, id);
    const empty = { entities: 0, relationships: 0, chunks: 0, vectors: 0, extractions: 0, mergeStates: 0, pages: 0 };
    expect(await everything(f)).toEqual(empty);

    await deleteDocumentData(f.deps, f.scope, a);
    expect(await everything(f)).toEqual(empty);
  });

  test('re-summarises a shared description only while it is over the threshold', async () => {
    const f = createIngestFixture({ summaryFragmentThreshold: 2 });
    const docs = [];
    for (const town of ['Lisbon', 'Porto', 'Faro']) docs.push(await ingest(f, `Alice Smith opened an office in ${town}.`));
    expect(f.callsFor('summarize')).toHaveLength(1);
    const [summarised] = await f.deps.stores.graph.getEntities(f.scope, ['ALICE_SMITH']);
    expect(summarised.description).not.toContain('\n');

    f.calls.length = 0;
    await deleteDocumentData(f.deps, f.scope, docs[2]);
    expect(f.calls).toEqual([]);
    const [joined] = await f.deps.stores.graph.getEntities(f.scope, ['ALICE_SMITH']);
    expect(joined.description).toBe('Alice Smith opened an office in Lisbon.\nAlice Smith opened an office in Porto.');
  });
});
