import type { VectorPoint } from '../../src/domain/types';
import { entityText } from '../../src/records/embed-text';
import type { GraphVectors } from '../../src/ingest/embed/embed';
import { createIngestState } from '../../src/ingest/state';
import { storeVectorsInBatch } from '../../src/ingest/merge/vector-batch';
import { createMemoryStores } from '../../src/store/memory';
import { makeEntity } from '../contract/fixtures';
import { recordingLocks } from './recording-locks';

/** Graph-record vectors written in batches: what arrives while a batch is written goes together in the next. */

function setup() {
  const stores = createMemoryStores();
  const scope = { workspaceId: 'ws-vectors' };
  const { locks: entityLocks, held } = recordingLocks();
  const upserts: string[][] = [];
  const upsert = stores.vectors.upsert.bind(stores.vectors);
  stores.vectors.upsert = (s, kind, points) => {
    upserts.push(points.map((p) => p.id));
    return upsert(s, kind, points);
  };
  return { deps: { stores, entityLocks, ingest: createIngestState() }, stores, scope, held, upserts };
}

function vectorsOf(id: string, text: string, value: number): GraphVectors {
  const point: VectorPoint = { id, vector: [value, 1 - value], document_ids: ['doc-1'] };
  return { entities: [{ point, text }], relationships: [], lockIds: [id] };
}

describe('graph-record vectors written in batches', () => {
  test('those that arrive while a batch is written go together, each record once, only as it still reads', async () => {
    const { deps, stores, scope, held, upserts } = setup();
    const records = ['ALICE', 'BOB', 'CAROL'].map((id) => makeEntity(id, { document_ids: ['doc-1'] }));
    await stores.graph.upsertEntities(scope, records);
    const text = (i: number) => entityText(records[i]);

    await Promise.all([
      storeVectorsInBatch(deps, scope, vectorsOf('ALICE', text(0), 0.1)),
      // These four arrive while the first is written: one batch, one lock, one write.
      storeVectorsInBatch(deps, scope, vectorsOf('BOB', text(1), 0.2)),
      storeVectorsInBatch(deps, scope, vectorsOf('CAROL', 'a text CAROL no longer has', 0.3)),
      storeVectorsInBatch(deps, scope, vectorsOf('ALICE', text(0), 0.4)),
      storeVectorsInBatch(deps, scope, vectorsOf('ALICE', text(0), 0.4)),
    ]);

    expect(held).toEqual([['ALICE'], ['ALICE', 'BOB', 'CAROL']]);
    expect(upserts).toEqual([['ALICE'], ['BOB', 'ALICE']]);
    expect(await stores.vectors.count(scope, 'entity')).toBe(2);
  });

  test('a vector of the text a record has now carries the documents it has now; a record whose text changed comes back as it is now', async () => {
    const { deps, stores, scope } = setup();
    const alice = makeEntity('ALICE', { document_ids: ['doc-1', 'doc-2'] });
    const bob = makeEntity('BOB', { document_ids: ['doc-1'] });
    await stores.graph.upsertEntities(scope, [alice, bob]);

    // Both embedded by doc-1's merge: Alice's text is unchanged since (doc-2 added a fragment it already had).
    const [forAlice, forBob] = await Promise.all([
      storeVectorsInBatch(deps, scope, vectorsOf('ALICE', entityText(alice), 0.1)),
      storeVectorsInBatch(deps, scope, vectorsOf('BOB', 'a text BOB no longer has', 0.2)),
    ]);
    expect(forAlice.reembed).toEqual({ entities: [], relationships: [] });
    expect(forBob.reembed.entities.map((e) => [e.id, entityText(e)])).toEqual([['BOB', entityText(bob)]]);
    expect(forBob.reembed.relationships).toEqual([]);
    const hits = await stores.vectors.search(scope, 'entity', [0.1, 0.9], 5, { documentIds: ['doc-2'] });
    expect(hits.map((h) => h.id)).toEqual(['ALICE']);
    expect(await stores.vectors.count(scope, 'entity')).toBe(1);
  });

  test('a batch that cannot be written fails every write in it, and the next batch is written', async () => {
    const { deps, stores, scope } = setup();
    const alice = makeEntity('ALICE', { document_ids: ['doc-1'] });
    await stores.graph.upsertEntities(scope, [alice]);
    const upsert = stores.vectors.upsert.bind(stores.vectors);
    let failing = true;
    stores.vectors.upsert = (s, kind, points) => (failing ? Promise.reject(new Error('store down')) : upsert(s, kind, points));
    const settled = await Promise.allSettled([
      storeVectorsInBatch(deps, scope, vectorsOf('ALICE', entityText(alice), 0.1)),
      storeVectorsInBatch(deps, scope, vectorsOf('ALICE', entityText(alice), 0.2)),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    failing = false;
    await storeVectorsInBatch(deps, scope, vectorsOf('ALICE', entityText(alice), 0.3));
    expect(await stores.vectors.count(scope, 'entity')).toBe(1);
  });

  test("two runtimes over one set of stores keep their batches apart: one's writes never wait in the other's", async () => {
    const { deps, stores, scope, held } = setup();
    const records = ['ALICE', 'BOB', 'CAROL'].map((id) => makeEntity(id, { document_ids: ['doc-1'] }));
    await stores.graph.upsertEntities(scope, records);
    const other = recordingLocks();
    const second = { stores, entityLocks: other.locks, ingest: createIngestState() };

    await Promise.all([
      storeVectorsInBatch(deps, scope, vectorsOf('ALICE', entityText(records[0]), 0.1)),
      storeVectorsInBatch(second, scope, vectorsOf('BOB', entityText(records[1]), 0.2)),
      storeVectorsInBatch(deps, scope, vectorsOf('CAROL', entityText(records[2]), 0.3)),
    ]);

    expect(held).toEqual([['ALICE'], ['CAROL']]);
    expect(other.held).toEqual([['BOB']]);
  });

  test('closing the ingest state waits for the batches still being written', async () => {
    const { deps, stores, scope } = setup();
    const alice = makeEntity('ALICE', { document_ids: ['doc-1'] });
    await stores.graph.upsertEntities(scope, [alice]);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const upsert = stores.vectors.upsert.bind(stores.vectors);
    stores.vectors.upsert = async (s, kind, points) => {
      await gate;
      return upsert(s, kind, points);
    };
    const written = storeVectorsInBatch(deps, scope, vectorsOf('ALICE', entityText(alice), 0.1));
    let closed = false;
    const closing = deps.ingest.close().then(() => (closed = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    release();
    await closing;
    expect(await stores.vectors.count(scope, 'entity')).toBe(1);
    await written;
  });
});
