import { createEntityLocks } from '../../src/records/locks';
import { chunkId } from '../../src/domain/ids';
import type { Scope } from '../../src/domain/types';
import { deleteDocumentData, summaryPolicy } from '../../src/ingest/deletion';
import { EXTRACTION_NAMESPACE } from '../../src/ingest/extract/cache';
import { parseExtraction } from '../../src/ingest/extract/parser';
import { commitMerge, entityText, relationshipText } from '../../src/ingest/merge/merge';
import { mergeDocument } from './merge-document';
import { applySummaries, summariseOutcome } from '../../src/ingest/merge/summary-stage';
import { settleEmbeddingRefreshes } from '../../src/ingest/merge/merge-stage';
import { processDocument } from '../../src/ingest/pipeline';
import { MERGE_STATE_NAMESPACE } from '../../src/ingest/merge/record-state';
import { MemoryLockStore } from '../../src/store/memory';
import { createIngestFixture, type IngestFixture } from './ingest-fixtures';

const PEOPLE = ['Bruno Diaz', 'Carla Gomez', 'Dario Fo', 'Elena Ruiz', 'Franco Neri', 'Greta Lind', 'Hugo Sand', 'Ines Mora'];
const TOWNS = ['Lisbon', 'Porto', 'Faro', 'Braga', 'Evora', 'Sintra'];

/** Documents that all name Alice Smith and Acme Corporation, each with something of its own. */
function sharedDocuments(count: number): string[] {
  return Array.from(
    { length: count },
    (_, i) => `Alice Smith met ${PEOPLE[i % PEOPLE.length]} at Acme Corporation in ${TOWNS[i % TOWNS.length]} during week ${i + 1}.`,
  );
}

/** Every entity and relationship vector is the embedding of the record as it stands, once background refreshes settle. */
async function expectVectorsMatchRecords(f: IngestFixture): Promise<void> {
  await settleEmbeddingRefreshes(f.deps);
  const { graph, vectors } = f.deps.stores;
  const embedder = f.deps.providers.embedding();
  const entities = (await graph.listEntities(f.scope, { limit: 1000, offset: 0 })).items;
  const relationships = (await graph.listRelationships(f.scope, { limit: 1000, offset: 0 })).items;
  const texts = [...entities.map(entityText), ...relationships.map(relationshipText)];
  const embedded = await embedder.embed(texts);
  const kinds = [...entities.map(() => 'entity' as const), ...relationships.map(() => 'relationship' as const)];
  const ids = [...entities.map((e) => e.id), ...relationships.map((r) => r.id)];
  for (const [i, vector] of embedded.entries()) {
    const [hit] = await vectors.search(f.scope, kinds[i], vector, 1);
    expect({ id: hit?.id, exact: (hit?.score ?? 0) > 0.9999 }).toEqual({ id: ids[i], exact: true });
  }
  expect(await vectors.count(f.scope, 'entity')).toBe(entities.length);
  expect(await vectors.count(f.scope, 'relationship')).toBe(relationships.length);
}

describe('documents sharing entities, processed concurrently', () => {
  test('lose no source, keep every vector matching its record, and leave nothing behind once deleted', async () => {
    const f = createIngestFixture({ summaryFragmentThreshold: 2 });
    const texts = sharedDocuments(16);
    const docs = await Promise.all(texts.map((text) => f.addDocument(text)));
    const results = await Promise.all(docs.map((doc) => processDocument(f.deps, f.scope, doc.id, { mode: 'full' })));
    expect(results.map((r) => r.status)).toEqual(docs.map(() => 'completed'));

    const [alice, acme] = await f.deps.stores.graph.getEntities(f.scope, ['ALICE_SMITH', 'ACME_CORPORATION']);
    expect([...alice.source_chunk_ids].sort()).toEqual(docs.map((d) => chunkId(d.id, 0)).sort());
    expect(acme.document_ids).toHaveLength(16);
    expect(f.callsFor('summarize').length).toBeGreaterThan(0);
    await expectVectorsMatchRecords(f);

    await Promise.all(docs.map((doc) => deleteDocumentData(f.deps, f.scope, doc.id)));
    const stats = await f.deps.stores.graph.stats(f.scope);
    expect({
      entities: stats.total_nodes,
      relationships: stats.total_edges,
      entityVectors: await f.deps.stores.vectors.count(f.scope, 'entity'),
      relationshipVectors: await f.deps.stores.vectors.count(f.scope, 'relationship'),
      mergeStates: await f.deps.stores.kv.count(f.scope, MERGE_STATE_NAMESPACE),
    }).toEqual({ entities: 0, relationships: 0, entityVectors: 0, relationshipVectors: 0, mergeStates: 0 });
  });

  test('write their records while another instance holds none of their entities, and wait while it holds one', async () => {
    const f = createIngestFixture();
    const locks = new MemoryLockStore();
    f.deps = { ...f.deps, stores: { ...f.deps.stores, locks }, entityLocks: createEntityLocks(locks) };
    const other: Scope = f.scope;
    // Another instance sharing the database holds Acme Corporation's lease.
    expect(await locks.acquire(other, ['ACME_CORPORATION'], 'other-instance', 60_000)).toBe(true);

    const unrelated = await f.addDocument('Bruno Diaz lives in Porto.');
    expect((await processDocument(f.deps, f.scope, unrelated.id, { mode: 'full' })).status).toBe('completed');

    const shared = await f.addDocument('Alice Smith works at Acme Corporation in Lisbon.');
    const processing = processDocument(f.deps, f.scope, shared.id, { mode: 'full' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await f.deps.stores.graph.getEntity(f.scope, 'ACME_CORPORATION')).toBeNull();

    await locks.release(other, ['ACME_CORPORATION'], 'other-instance');
    expect((await processing).status).toBe('completed');
    expect(await f.deps.stores.graph.getEntity(f.scope, 'ACME_CORPORATION')).not.toBeNull();
  });
});

describe('amortised description summaries', () => {
  async function mergeFragments(f: IngestFixture, count: number, from = 0): Promise<string[]> {
    const ids: string[] = [];
    for (let i = from; i < from + count; i++) {
      const documentId = `doc-${i}`;
      const record = `entity<|>Alice<|>PERSON<|>Alice gave talk number ${i} at the annual meeting.`;
      const parsed = parseExtraction(record);
      await f.deps.stores.kv.set(f.scope, EXTRACTION_NAMESPACE, chunkId(documentId, 0), { ...parsed, raw_outputs: [record] });
      await mergeDocument(
        f.deps,
        f.scope,
        documentId,
        [{ chunkId: chunkId(documentId, 0), extraction: parsed }],
        summaryPolicy(f.deps, true),
      );
      ids.push(documentId);
    }
    return ids;
  }

  test('summarise an entity named by n documents O(log n) times, its description the summary and the newest fragments', async () => {
    const f = createIngestFixture({ summaryFragmentThreshold: 2 });
    await mergeFragments(f, 40);
    // Summaries when 3, 6, 12 and 24 fragments are covered: each one covers as many again as the one before.
    expect(f.callsFor('summarize')).toHaveLength(4);
    const [alice] = await f.deps.stores.graph.getEntities(f.scope, ['ALICE']);
    const lines = alice.description.split('\n');
    expect(lines[0]).toContain('talk number 0 ');
    expect(lines.slice(1)).toEqual(Array.from({ length: 16 }, (_, i) => `Alice gave talk number ${24 + i} at the annual meeting.`));
  });

  test('summarise what the merge that made a summary due saw, not what other documents merged before the summary', async () => {
    const line = (i: number) => `Alice gave talk number ${i} at the annual meeting.`;
    const one = createIngestFixture({ summaryFragmentThreshold: 2 });
    await mergeFragments(one, 10);

    // The same ten documents, but the summary due after the third one's merge starts only after all ten merged.
    const interleaved = createIngestFixture({ summaryFragmentThreshold: 2 });
    await mergeFragments(interleaved, 2);
    const policy = summaryPolicy(interleaved.deps, true);
    const outcomes = [];
    for (let i = 2; i < 10; i++) {
      const record = `entity<|>Alice<|>PERSON<|>${line(i)}`;
      const parsed = parseExtraction(record);
      await interleaved.deps.stores.kv.set(interleaved.scope, EXTRACTION_NAMESPACE, chunkId(`doc-${i}`, 0), {
        ...parsed,
        raw_outputs: [record],
      });
      outcomes.push(
        await commitMerge(
          interleaved.deps,
          interleaved.scope,
          `doc-${i}`,
          [{ chunkId: chunkId(`doc-${i}`, 0), extraction: parsed }],
          policy,
        ),
      );
    }
    for (const outcome of outcomes) await summariseOutcome(interleaved.deps, interleaved.scope, outcome, policy, applySummaries);

    // Due at 3 fragments (more than 2), then at 3 more: the second summary reads the first and talks 3 to 5.
    for (const f of [one, interleaved]) {
      const [first, second, ...more] = f.callsFor('summarize').map((call) => call.text.split('\n'));
      expect(more).toHaveLength(0);
      expect(first).toEqual([0, 1, 2].map(line));
      expect(second.slice(1)).toEqual([3, 4, 5].map(line));
      const [alice] = await f.deps.stores.graph.getEntities(f.scope, ['ALICE']);
      expect(alice.description.split('\n').slice(1)).toEqual([6, 7, 8, 9].map(line));
    }
  });

  test('show only the newest fragments that fit after a summary, and cover the others in the next one', async () => {
    const f = createIngestFixture({ summaryFragmentThreshold: 2, summaryTokenThreshold: 30 });
    await mergeFragments(f, 11);
    // The summary covers talks 0 to 5; of the five since, the two newest fit the tail.
    const [alice] = await f.deps.stores.graph.getEntities(f.scope, ['ALICE']);
    const lines = alice.description.split('\n');
    expect(lines.slice(1)).toEqual(['Alice gave talk number 9 at the annual meeting.', 'Alice gave talk number 10 at the annual meeting.']);

    // The next summary (six fragments since the one covering six) reads every one of them, shown or not.
    f.calls.length = 0;
    await mergeFragments(f, 1, 11);
    const [call] = f.callsFor('summarize');
    expect(call.text).toContain('talk number 6 ');
    expect(call.text).toContain('talk number 11 ');
  });

  test('drop a summary once a document behind it is deleted, describing the rest from what they say', async () => {
    const f = createIngestFixture({ summaryFragmentThreshold: 2 });
    const ids = await mergeFragments(f, 7);
    f.calls.length = 0;
    await mergeDocument(f.deps, f.scope, ids[0], [], summaryPolicy(f.deps, true));
    const [alice] = await f.deps.stores.graph.getEntities(f.scope, ['ALICE']);
    expect(alice.description).not.toContain('talk number 0 ');
    expect(f.callsFor('summarize')).toHaveLength(1);
    expect(f.calls[0].text.split('\n')).toEqual(
      Array.from({ length: 6 }, (_, i) => `Alice gave talk number ${i + 1} at the annual meeting.`),
    );
  });
});
