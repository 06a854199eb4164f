import { isOutage, UnavailableError } from '../../src/domain/errors';
import type { StageName, StageStatus } from '../../src/domain/types';
import { EXTRACTION_NAMESPACE } from '../../src/ingest/extract/cache';
import { isAbortError, processDocument, type StageReporter } from '../../src/ingest/pipeline';
import { createIngestFixture, type IngestFixture } from './ingest-fixtures';

const PARAGRAPHS = [
  'Alice Smith leads the Graph Team at Acme Corporation in Paris. Alice Smith reports to Bob Jones, who founded Acme Corporation.',
  'Bob Jones studied at Oxford University before moving to Paris. Bob Jones and Carol White wrote the Retrieval Handbook together.',
  'The Zebra Project started in Berlin under Carol White. The Zebra Project uses the Graph Engine built by Acme Corporation.',
  'Dave Brown maintains the Graph Engine in Berlin. Dave Brown works with Alice Smith on the Retrieval Handbook.',
];
const TEXT = PARAGRAPHS.join('\n\n');

function fixture(): IngestFixture {
  // One paragraph a chunk: each paragraph is 21 to 26 tokens, a window of 30 holds one and not two.
  return createIngestFixture({ chunkTokens: 30, chunkOverlapTokens: 0 });
}

async function workspaceCounts(f: IngestFixture) {
  const { graph, vectors, chunks, kv } = f.deps.stores;
  const stats = await graph.stats(f.scope);
  return {
    entities: stats.total_nodes,
    relationships: stats.total_edges,
    chunks: await chunks.count(f.scope),
    chunkVectors: await vectors.count(f.scope, 'chunk'),
    entityVectors: await vectors.count(f.scope, 'entity'),
    relationshipVectors: await vectors.count(f.scope, 'relationship'),
    cached: await kv.count(f.scope, EXTRACTION_NAMESPACE),
  };
}

/**
 * A full run of TEXT with the embedding calls `failing` names failing: the document fails with the injected error,
 * and the graph and the vector index keep nothing of it.
 */
async function ingestFailingEmbeddings(f: IngestFixture, failing: (texts: string[]) => boolean) {
  const doc = await f.addDocument(TEXT);
  f.failEmbeddingWhen = failing;
  const result = await processDocument(f.deps, f.scope, doc.id, { mode: 'full' });
  expect(result).toMatchObject({ status: 'failed', entity_count: 0 });
  expect(result.error).toBe('processing failed: injected embedding failure');
  expect(await workspaceCounts(f)).toMatchObject({
    entities: 0,
    relationships: 0,
    chunkVectors: 0,
    entityVectors: 0,
    relationshipVectors: 0,
  });
  return { doc, result };
}

describe('processDocument', () => {
  test('chunks, extracts, merges and embeds a document, reporting stages and progress', async () => {
    const f = fixture();
    const doc = await f.addDocument(TEXT);
    const updates: Array<Parameters<StageReporter>[0]> = [];
    const result = await processDocument(f.deps, f.scope, doc.id, { mode: 'full', report: (u) => void updates.push(u) });

    expect(result).toMatchObject({ status: 'completed', chunk_count: 4, failed_chunks: [], error: null });
    expect(result.entity_count).toBeGreaterThan(8);
    expect(result.relationship_count).toBeGreaterThan(5);
    expect(result.llm_calls).toBe(f.calls.length);
    expect(f.callsFor('extract')).toHaveLength(4);

    const stored = await f.deps.stores.documents.get(f.scope, doc.id);
    expect(stored).toMatchObject({
      status: 'completed',
      chunk_count: 4,
      entity_count: result.entity_count,
      relationship_count: result.relationship_count,
      llm_model: 'mock-llm',
      embedding_model: 'mock-embedding',
      error: null,
    });
    expect(stored?.processed_at).not.toBeNull();

    const chunks = await f.deps.stores.chunks.listByDocument(f.scope, doc.id);
    expect(chunks.map((c) => c.id)).toEqual([0, 1, 2, 3].map((i) => `${doc.id}-chunk-${i}`));
    for (const chunk of chunks) {
      expect(TEXT.slice(chunk.char_start, chunk.char_end)).toBe(chunk.content);
      expect(chunk).toMatchObject({
        extraction_status: 'completed',
        extraction_error: null,
        llm_model: 'mock-llm',
        embedding_model: 'mock-embedding',
      });
      expect(chunk.entity_ids.length).toBeGreaterThan(0);
    }
    expect(chunks[2].entity_ids).toContain('ZEBRA_PROJECT');
    const [zebra] = await f.deps.stores.graph.getEntities(f.scope, ['ZEBRA_PROJECT']);
    expect(zebra).toMatchObject({ source_chunk_ids: [chunks[2].id], document_ids: [doc.id] });

    expect(await workspaceCounts(f)).toEqual({
      entities: result.entity_count,
      relationships: result.relationship_count,
      chunks: 4,
      chunkVectors: 4,
      entityVectors: result.entity_count,
      relationshipVectors: result.relationship_count,
      cached: 4,
    });
    expect(f.changes.filter((c) => c.kind === 'node_added')).toHaveLength(result.entity_count);
    expect(f.changes.filter((c) => c.kind === 'edge_added')).toHaveLength(result.relationship_count);

    const progress = updates.map((u) => u.progress).filter((p): p is number => p !== undefined);
    expect(progress.every((p, i) => Number.isInteger(p) && (i === 0 || p >= progress[i - 1]))).toBe(true);
    expect(progress[progress.length - 1]).toBe(100);
    const stages = updates.filter((u) => u.stage).map((u) => `${u.stage}:${u.stageStatus}`);
    const order: Array<[StageName, StageStatus]> = [];
    for (const stage of ['chunking', 'extraction', 'merging', 'embedding'] as const) order.push([stage, 'running'], [stage, 'completed']);
    expect(stages).toEqual(order.map(([s, st]) => `${s}:${st}`));
    expect(updates[updates.length - 1].stats).toEqual({
      chunks_processed: 4,
      chunks_total: 4,
      entities_found: result.entity_count,
      relationships_found: result.relationship_count,
    });
  });

  test('a chunk that fails extraction fails the document with the reason and leaves nothing in the graph', async () => {
    const f = fixture();
    const doc = await f.addDocument(TEXT);
    f.failWhen = (call) => call.text.includes('Zebra');
    const result = await processDocument(f.deps, f.scope, doc.id, { mode: 'full' });

    expect(result).toMatchObject({ status: 'failed', chunk_count: 4, entity_count: 0, relationship_count: 0, failed_chunks: [2] });
    expect(result.error).toBe('1 of 4 chunks failed extraction; first error (chunk 2): injected failure for a extract call');
    expect(await f.deps.stores.documents.get(f.scope, doc.id)).toMatchObject({ status: 'failed', error: result.error, entity_count: 0 });
    const chunks = await f.deps.stores.chunks.listByDocument(f.scope, doc.id);
    expect(chunks.map((c) => c.extraction_status)).toEqual(['completed', 'completed', 'failed', 'completed']);
    expect(chunks[2].extraction_error).toBe('injected failure for a extract call');
    expect(await workspaceCounts(f)).toEqual({
      entities: 0,
      relationships: 0,
      chunks: 4,
      chunkVectors: 0,
      entityVectors: 0,
      relationshipVectors: 0,
      cached: 3,
    });
    expect(f.changes).toEqual([]);
  });

  test('retry_chunks extracts only the failed chunk, then merges the whole document', async () => {
    const f = fixture();
    const doc = await f.addDocument(TEXT);
    f.failWhen = (call) => call.text.includes('Zebra');
    await processDocument(f.deps, f.scope, doc.id, { mode: 'full' });
    f.failWhen = null;
    f.calls.length = 0;

    const result = await processDocument(f.deps, f.scope, doc.id, { mode: 'retry_chunks' });
    expect(result).toMatchObject({ status: 'completed', chunk_count: 4, failed_chunks: [], error: null });
    const extraction = f.calls.filter((c) => c.task === 'extract' || c.task === 'glean');
    expect(f.callsFor('extract')).toHaveLength(1);
    expect(extraction.every((c) => c.text.trim() === PARAGRAPHS[2])).toBe(true);
    expect(await f.deps.stores.documents.get(f.scope, doc.id)).toMatchObject({
      status: 'completed',
      error: null,
      entity_count: result.entity_count,
    });

    const full = fixture();
    const fresh = await full.addDocument(TEXT);
    const reference = await processDocument(full.deps, full.scope, fresh.id, { mode: 'full' });
    expect(result.entity_count).toBe(reference.entity_count);
    expect(result.relationship_count).toBe(reference.relationship_count);
    const counts = await workspaceCounts(f);
    expect(counts).toMatchObject({ entities: reference.entity_count, chunkVectors: 4, cached: 4 });
  });

  test('a failure after the merge fails the document, takes its graph data out, and retry_chunks completes it', async () => {
    const f = fixture();
    const { doc, result } = await ingestFailingEmbeddings(f, (texts) => texts.some((t) => t.includes('Zebra Project')));
    expect(result).toMatchObject({ failed_chunks: [] });
    expect(await f.deps.stores.documents.get(f.scope, doc.id)).toMatchObject({ status: 'failed', error: result.error });
    expect(await workspaceCounts(f)).toMatchObject({ chunks: 4, cached: 4 });
    // The chunks were written linked with the merge; kept for the retry, they name nothing and claim no vector.
    const links = async () =>
      (await f.deps.stores.chunks.listByDocument(f.scope, doc.id)).map((c) => [
        c.entity_ids.length > 0,
        c.relationship_ids.length > 0,
        c.embedding_model,
      ]);
    expect(await links()).toEqual(Array(4).fill([false, false, null]));

    f.failEmbeddingWhen = null;
    f.calls.length = 0;
    const retried = await processDocument(f.deps, f.scope, doc.id, { mode: 'retry_chunks' });
    expect(retried.status).toBe('completed');
    expect(f.callsFor('extract')).toEqual([]);
    expect(await workspaceCounts(f)).toMatchObject({
      entities: retried.entity_count,
      chunkVectors: 4,
      entityVectors: retried.entity_count,
    });
    expect(await links()).toEqual(Array(4).fill([true, true, f.deps.providers.embedding().model]));
  });

  test('a chunk vector that fails while resolution runs fails the document, and no vector is left behind', async () => {
    // Only the chunk that starts with the third paragraph: its records are embedded by the merge.
    await ingestFailingEmbeddings(fixture(), (texts) => texts.some((t) => t.startsWith('The Zebra Project started')));
  });

  test('reprocessing a completed document reuses cached extractions and leaves the graph as it was', async () => {
    const f = fixture();
    const doc = await f.addDocument(TEXT);
    await processDocument(f.deps, f.scope, doc.id, { mode: 'full' });
    const before = await f.deps.stores.graph.listRelationships(f.scope, { limit: 1000, offset: 0 });
    f.calls.length = 0;

    // The run takes the document out of the graph first (which reads what it held, then merges nothing in its place);
    // the run's own merge then reads nothing of what the graph held.
    const reads: string[] = [];
    const graph = f.deps.stores.graph;
    const { entitiesOfDocument, relationshipsOfDocument } = graph;
    graph.entitiesOfDocument = (scope, id) => (reads.push('entities'), entitiesOfDocument.call(graph, scope, id));
    graph.relationshipsOfDocument = (scope, id) => (reads.push('relationships'), relationshipsOfDocument.call(graph, scope, id));
    const again = await processDocument(f.deps, f.scope, doc.id, { mode: 'full' });
    expect(reads).toEqual(['entities', 'relationships', 'entities', 'relationships']);
    expect(again.status).toBe('completed');
    expect(f.callsFor('extract')).toEqual([]);
    const after = await f.deps.stores.graph.listRelationships(f.scope, { limit: 1000, offset: 0 });
    expect(after.items.map((r) => [r.id, r.weight, r.description])).toEqual(before.items.map((r) => [r.id, r.weight, r.description]));
    expect(await workspaceCounts(f)).toMatchObject({ chunks: 4, chunkVectors: 4, cached: 4, entities: again.entity_count });
  });

  test('a store that cannot be reached while chunks are extracted stops the run as an outage: no chunk is failed for it', async () => {
    const f = fixture();
    const doc = await f.addDocument(TEXT);
    const kv = f.deps.stores.kv;
    const set = kv.set.bind(kv);
    let refusals = 1;
    // As the Neo4j adapter answers a pool with no connection free in time (src/store/neo4j/retry.ts).
    kv.set = async (...args) => {
      if (args[1] === EXTRACTION_NAMESPACE && refusals-- > 0) {
        throw new UnavailableError('the graph database (Neo4j) could not complete the operation in time; retry shortly', 'neo4j');
      }
      return set(...args);
    };
    const stopped = await processDocument(f.deps, f.scope, doc.id, { mode: 'full' }).catch((err: unknown) => err);
    expect(isOutage(stopped)).toBe(true);
    expect(await f.deps.stores.documents.get(f.scope, doc.id)).toMatchObject({ status: 'processing', error: null });
    expect(await workspaceCounts(f)).toMatchObject({ entities: 0, relationships: 0, chunkVectors: 0 });

    // Run again once the store answers, it completes.
    expect((await processDocument(f.deps, f.scope, doc.id, { mode: 'full' })).status).toBe('completed');
  });

  test('cancellation during extraction stops the run and leaves no data of the document', async () => {
    const f = fixture();
    const other = await f.addDocument('Erin Green runs the Lighthouse Lab in Lisbon.');
    await processDocument(f.deps, f.scope, other.id, { mode: 'full' });
    const kept = await workspaceCounts(f);

    const doc = await f.addDocument(TEXT);
    const controller = new AbortController();
    f.calls.length = 0;
    f.failWhen = () => {
      controller.abort();
      return false;
    };
    const error = await processDocument(f.deps, f.scope, doc.id, { mode: 'full', signal: controller.signal }).catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    expect(f.callsFor('extract').length).toBeLessThanOrEqual(4);
    expect(await f.deps.stores.chunks.listByDocument(f.scope, doc.id)).toEqual([]);
    expect(await workspaceCounts(f)).toEqual(kept);
  });

  test('cancellation after the merge takes the merged data out again', async () => {
    const f = fixture();
    const first = await f.addDocument(PARAGRAPHS[0]);
    await processDocument(f.deps, f.scope, first.id, { mode: 'full' });
    const [aliceBefore] = await f.deps.stores.graph.getEntities(f.scope, ['ALICE_SMITH']);
    const kept = await workspaceCounts(f);

    const doc = await f.addDocument(TEXT);
    const controller = new AbortController();
    const report: StageReporter = (u) => {
      if (u.stage === 'embedding' && u.stageStatus === 'running') controller.abort();
    };
    const error = await processDocument(f.deps, f.scope, doc.id, { mode: 'full', signal: controller.signal, report }).catch(
      (e: unknown) => e,
    );
    expect(isAbortError(error)).toBe(true);
    expect(f.changes.some((c) => c.kind === 'node_removed')).toBe(true);
    expect(await workspaceCounts(f)).toEqual(kept);
    const [aliceAfter] = await f.deps.stores.graph.getEntities(f.scope, ['ALICE_SMITH']);
    expect({ ...aliceAfter, updated_at: '' }).toEqual({ ...aliceBefore, updated_at: '' });
  });
});
