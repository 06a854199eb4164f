import type { RelationshipRecord } from '../../src/domain/types';
import { ALIASES_NAMESPACE, MERGE_HISTORY_NAMESPACE, OVERRIDES_NAMESPACE } from '../../src/graph/aliases';
import { renameEntity, updateEntity } from '../../src/graph/edit';
import { mergeEntities } from '../../src/graph/merge';
import { withAliasedEntityLock } from '../../src/ingest/merge/aliases';
import { deleteDocumentData } from '../../src/ingest/deletion';
import { EXTRACTION_NAMESPACE } from '../../src/ingest/extract/cache';
import { createEntityLocks } from '../../src/records/locks';
import { processDocument } from '../../src/ingest/pipeline';
import { MERGE_STATE_NAMESPACE, entityKey } from '../../src/ingest/merge/record-state';
import { createMemoryStores } from '../../src/store/memory';
import { createIngestFixture, type IngestFixture } from './ingest-fixtures';

/** The mock extractor names "Alice Smith" in one document and "Alice" in the other: an analyst merges them. */
const SMITH = 'Alice Smith works at Acme Corporation in Paris.';
const ALICE = 'Alice joined Acme Corporation in spring. Alice teaches at Berlin Academy.';

async function ingest(f: IngestFixture, text: string): Promise<string> {
  const doc = await f.addDocument(text);
  const result = await processDocument(f.deps, f.scope, doc.id, { mode: 'full' });
  expect(result.status).toBe('completed');
  return doc.id;
}

/** Two documents, then ALICE merged into ALICE_SMITH through the graph service. */
async function mergedWorkspace() {
  const f = createIngestFixture();
  const smith = await ingest(f, SMITH);
  const alice = await ingest(f, ALICE);
  expect(await f.deps.stores.graph.getEntity(f.scope, 'ALICE')).not.toBeNull();
  await mergeEntities(f.deps, f.scope, { sourceIds: ['ALICE'], targetId: 'ALICE_SMITH', reason: 'same person' });
  return { f, smith, alice };
}

async function allRelationships(f: IngestFixture): Promise<RelationshipRecord[]> {
  return (await f.deps.stores.graph.listRelationships(f.scope, { limit: 1000, offset: 0 })).items;
}

const endpoints = (relationships: RelationshipRecord[]) => relationships.flatMap((r) => [r.source, r.target]);

async function counts(f: IngestFixture) {
  const { graph, vectors, chunks, kv } = f.deps.stores;
  const stats = await graph.stats(f.scope);
  return {
    entities: stats.total_nodes,
    relationships: stats.total_edges,
    chunks: await chunks.count(f.scope),
    entityVectors: await vectors.count(f.scope, 'entity'),
    relationshipVectors: await vectors.count(f.scope, 'relationship'),
    chunkVectors: await vectors.count(f.scope, 'chunk'),
    extractions: await kv.count(f.scope, EXTRACTION_NAMESPACE),
    mergeStates: await kv.count(f.scope, MERGE_STATE_NAMESPACE),
    aliases: await kv.count(f.scope, ALIASES_NAMESPACE),
    histories: await kv.count(f.scope, MERGE_HISTORY_NAMESPACE),
    overrides: await kv.count(f.scope, OVERRIDES_NAMESPACE),
  };
}

describe('ingestion after analyst merges and edits', () => {
  test('a new document naming a merged-away entity extends the survivor and never brings the old entity back', async () => {
    const { f, smith, alice } = await mergedWorkspace();
    const later = await ingest(f, 'Alice moved to Lisbon in May.');
    const { graph, chunks, kv } = f.deps.stores;

    expect(await graph.getEntity(f.scope, 'ALICE')).toBeNull();
    const survivor = await graph.getEntity(f.scope, 'ALICE_SMITH');
    expect(survivor).toMatchObject({ name: 'Alice Smith', document_ids: [smith, alice, later] });
    expect(survivor?.description).toContain('Alice moved to Lisbon in May.');
    expect(survivor?.description).toContain('Alice Smith works at Acme Corporation in Paris.');

    const relationships = await allRelationships(f);
    expect(endpoints(relationships)).not.toContain('ALICE');
    expect(relationships.map((r) => r.id)).toEqual(expect.arrayContaining(['ALICE_SMITH|LISBON', 'ALICE_SMITH|BERLIN_ACADEMY']));
    const [chunk] = await chunks.listByDocument(f.scope, later);
    expect(chunk.entity_ids.sort()).toEqual(['ALICE_SMITH', 'LISBON']);
    expect(chunk.relationship_ids).toEqual(['ALICE_SMITH|LISBON']);
    expect((await f.deps.stores.documents.get(f.scope, later))?.entity_count).toBe(2);

    // The merged-away entity's merge state is gone, and vectors follow the graph.
    expect(await kv.get(f.scope, MERGE_STATE_NAMESPACE, entityKey('ALICE'))).toBeNull();
    const after = await counts(f);
    expect(after.entityVectors).toBe(after.entities);
    expect(after.relationshipVectors).toBe(after.relationships);
  });

  test('deleting one of two documents behind a survivor rebuilds it from the other under the alias, keeping the analyst fields', async () => {
    const { f, smith, alice } = await mergedWorkspace();
    await updateEntity(f.deps, f.scope, 'ALICE_SMITH', { description: 'Engineer who leads the Paris office.', entity_type: 'engineer' });
    await deleteDocumentData(f.deps, f.scope, smith);
    const { graph } = f.deps.stores;

    expect(await graph.getEntity(f.scope, 'ALICE')).toBeNull();
    expect(await graph.getEntity(f.scope, 'ALICE_SMITH')).toMatchObject({
      name: 'Alice Smith',
      entity_type: 'ENGINEER',
      description: 'Engineer who leads the Paris office.',
      source_chunk_ids: [`${alice}-chunk-0`],
      document_ids: [alice],
    });
    const relationships = await allRelationships(f);
    expect(endpoints(relationships)).not.toContain('ALICE');
    expect(relationships.map((r) => r.id).sort()).toEqual(['ACME_CORPORATION|ALICE_SMITH', 'ALICE_SMITH|BERLIN_ACADEMY']);
    expect(relationships.every((r) => r.document_ids.length === 1 && r.document_ids[0] === alice)).toBe(true);

    // The incremental path keeps the hand-set fields too.
    const later = await ingest(f, 'Alice moved to Lisbon in May.');
    expect(await graph.getEntity(f.scope, 'ALICE_SMITH')).toMatchObject({
      entity_type: 'ENGINEER',
      description: 'Engineer who leads the Paris office.',
      document_ids: [alice, later],
    });
    expect(await graph.getEntity(f.scope, 'ALICE')).toBeNull();
  });

  test('reprocessing the only document behind a renamed entity keeps the new id and name', async () => {
    const f = createIngestFixture();
    const alice = await ingest(f, ALICE);
    await renameEntity(f.deps, f.scope, 'ALICE', { name: 'Alice Cooper' });
    expect(await processDocument(f.deps, f.scope, alice, { mode: 'full' })).toMatchObject({ status: 'completed' });

    const { graph, chunks } = f.deps.stores;
    expect(await graph.getEntity(f.scope, 'ALICE')).toBeNull();
    expect(await graph.getEntity(f.scope, 'ALICE_COOPER')).toMatchObject({ name: 'Alice Cooper', document_ids: [alice] });
    expect(endpoints(await allRelationships(f))).not.toContain('ALICE');
    const [chunk] = await chunks.listByDocument(f.scope, alice);
    expect(chunk.entity_ids).toContain('ALICE_COOPER');
    expect(chunk.entity_ids).not.toContain('ALICE');
  });

  test('deleting every document after merges, renames and edits leaves the workspace empty, analyst records included', async () => {
    const { f, smith, alice } = await mergedWorkspace();
    await updateEntity(f.deps, f.scope, 'ALICE_SMITH', { description: 'Engineer who leads the Paris office.' });
    await renameEntity(f.deps, f.scope, 'BERLIN_ACADEMY', { name: 'Berlin Academy of Arts' });
    const later = await ingest(f, 'Alice moved to Lisbon in May. Alice teaches at Berlin Academy.');
    expect(await counts(f)).toMatchObject({ aliases: 2, histories: 2, overrides: 2 });

    for (const id of [alice, later, smith]) await deleteDocumentData(f.deps, f.scope, id);
    const empty = await counts(f);
    expect(empty).toEqual(Object.fromEntries(Object.keys(empty).map((k) => [k, 0])));
  });
});

describe('withAliasedEntityLock', () => {
  test('an analyst merge landing while it waits makes it wait for the survivor too', async () => {
    const stores = createMemoryStores();
    const { kv } = stores;
    const scope = { workspaceId: 'ws-lock' };
    const locks = createEntityLocks(stores.locks);
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    const order: string[] = [];
    let releaseA!: () => void;
    let releaseB!: () => void;
    const holdingA = locks.run(scope, ['A'], () => new Promise<void>((resolve) => (releaseA = resolve)));
    const holdingB = locks
      .run(scope, ['B'], () => new Promise<void>((resolve) => (releaseB = resolve)))
      .then(() => order.push('B released'));
    const merging = withAliasedEntityLock(kv, locks, scope, ['A'], async () => {
      order.push('merged');
    });
    await tick();

    await kv.set(scope, ALIASES_NAMESPACE, 'A', 'B');
    releaseA();
    await holdingA;
    await tick();
    expect(order).toEqual([]);

    releaseB();
    await Promise.all([holdingB, merging]);
    expect(order).toEqual(['B released', 'merged']);
  });
});
