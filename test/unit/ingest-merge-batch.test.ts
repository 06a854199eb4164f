import { chunkId } from '../../src/domain/ids';
import type { EntityRecord, RelationshipRecord } from '../../src/domain/types';
import { summaryPolicy } from '../../src/ingest/deletion';
import { buildChunks } from '../../src/ingest/pipeline';
import { EXTRACTION_NAMESPACE } from '../../src/ingest/extract/cache';
import { parseExtraction } from '../../src/ingest/extract/parser';
import { commitMerge, type Contribution, type MergeOutcome } from '../../src/ingest/merge/merge';
import { commitInBatch } from '../../src/ingest/merge/merge-batch';
import { MergeView } from '../../src/ingest/merge/merge-view';
import type { GraphStore } from '../../src/store/ports';
import { createIngestFixture, type IngestFixture } from './ingest-fixtures';

const PEOPLE = ['Bruno Diaz', 'Carla Gomez', 'Dario Fo', 'Elena Ruiz', 'Franco Neri', 'Greta Lind', 'Hugo Sand', 'Ines Mora'];

/** Document i: Alice and Acme (shared by all), a person of its own, and what links them. */
async function contributionOf(f: IngestFixture, i: number, extra = ''): Promise<Contribution> {
  const person = PEOPLE[i % PEOPLE.length];
  const records = [
    `entity<|>Alice<|>PERSON<|>Alice gave talk number ${i} at the annual meeting.`,
    `entity<|>Acme<|>ORGANIZATION<|>Acme hosted meeting number ${i}.`,
    `entity<|>${person}<|>PERSON<|>${person} attended meeting number ${i}.`,
    `relation<|>Alice<|>Acme<|>employment<|>Alice spoke for Acme at meeting ${i}.`,
    `relation<|>Alice<|>${person}<|>met<|>Alice met ${person} at meeting ${i}.`,
    ...(extra ? [extra] : []),
  ].join('\n');
  const parsed = parseExtraction(records);
  const id = chunkId(`doc-${i}`, 0);
  await f.deps.stores.kv.set(f.scope, EXTRACTION_NAMESPACE, id, { ...parsed, raw_outputs: [records] });
  return { chunkId: id, extraction: parsed };
}

/** Counts the calls the graph store receives, and the times each entity id is read; `fail` makes a call throw. */
function countGraph(f: IngestFixture, fail?: (method: string, arg: unknown) => boolean): Map<string, number> {
  const counts = new Map<string, number>();
  const read = (ids: unknown) => {
    if (Array.isArray(ids)) for (const id of ids) counts.set(`read ${String(id)}`, (counts.get(`read ${String(id)}`) ?? 0) + 1);
  };
  const graph = f.deps.stores.graph;
  f.deps.stores.graph = new Proxy(graph, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        counts.set(String(name), (counts.get(String(name)) ?? 0) + 1);
        if (name === 'getEntities') read(args[1]);
        if (fail?.(String(name), args[1])) return Promise.reject(new Error(`injected ${String(name)} failure`));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as GraphStore;
  return counts;
}

function withoutTimes<R extends EntityRecord | RelationshipRecord>(r: R): Omit<R, 'created_at' | 'updated_at'> {
  const { created_at: _created, updated_at: _updated, ...rest } = r;
  return rest;
}

async function graphOf(f: IngestFixture) {
  const { graph } = f.deps.stores;
  const entities = (await graph.listEntities(f.scope, { limit: 1000, offset: 0 })).items;
  const relationships = (await graph.listRelationships(f.scope, { limit: 1000, offset: 0 })).items;
  return {
    entities: entities.map(withoutTimes).sort((a, b) => a.id.localeCompare(b.id)),
    relationships: relationships.map(withoutTimes).sort((a, b) => a.id.localeCompare(b.id)),
  };
}

/** What a merge outcome says, without timestamps. */
function gist(outcome: MergeOutcome) {
  return {
    entityIds: outcome.entityIds,
    relationshipIds: outcome.relationshipIds,
    changes: outcome.changes,
    due: outcome.due.map((job) => ({ ...job })),
    reembed: [...outcome.reembed.entities.map((e) => e.id), ...outcome.reembed.relationships.map((r) => r.id)],
    existing: [...outcome.existing].sort(),
    removed: { entities: outcome.removed.entities, relationships: outcome.removed.relationships.map((r) => r.id) },
  };
}

function batched(f: IngestFixture, documentId: string, contribution: Contribution) {
  return commitInBatch(f.deps, f.scope, {
    documentId,
    contributions: [contribution],
    policy: summaryPolicy(f.deps, true),
    lockIds: contribution.extraction.entities.map((e) => e.id),
    afterWrite: async () => undefined,
  });
}

describe('merges committed in batches', () => {
  test('each merge gets the outcome it would have had alone, and the records the batch shares are written once', async () => {
    const alone = createIngestFixture({ summaryFragmentThreshold: 2 });
    const together = createIngestFixture({ summaryFragmentThreshold: 2, mergeBatch: 32 });
    const writes = countGraph(together);
    const policy = summaryPolicy(alone.deps, true);
    const outcomes: MergeOutcome[] = [];
    for (let i = 0; i < 8; i++)
      outcomes.push(await commitMerge(alone.deps, alone.scope, `doc-${i}`, [await contributionOf(alone, i)], policy));

    const contributions = await Promise.all(Array.from({ length: 8 }, (_, i) => contributionOf(together, i)));
    // The first merge finds no batch committing and goes alone; the seven that arrive meanwhile go together.
    const batchedOutcomes = await Promise.all(contributions.map((c, i) => batched(together, `doc-${i}`, c)));

    expect(batchedOutcomes.map(gist)).toEqual(outcomes.map(gist));
    expect(await graphOf(together)).toEqual(await graphOf(alone));
    expect(writes.get('upsertEntities')).toBe(2);
    expect(writes.get('upsertRelationships')).toBe(2);
    // Alice and Acme were read once for each batch, not once per merge.
    expect([writes.get('read ALICE'), writes.get('read ACME')]).toEqual([2, 2]);
  });

  test('the merges of a batch read the graph and merge states in one round, not one each', async () => {
    const f = createIngestFixture({ mergeBatch: 32 });
    const calls = countGraph(f);
    const stateReads: string[][] = [];
    const kv = f.deps.stores.kv;
    const getMany = kv.getMany.bind(kv);
    kv.getMany = (scope, namespace, keys) => {
      if (namespace === 'merge_state') stateReads.push(keys);
      return getMany(scope, namespace, keys);
    };
    const contributions = await Promise.all(Array.from({ length: 8 }, (_, i) => contributionOf(f, i)));
    // The first merge goes alone; the seven that arrive meanwhile go together: two batches.
    await Promise.all(contributions.map((c, i) => batched(f, `doc-${i}`, c)));

    // Each merge brings a relationship of its own (Alice and its person), read with the others of its batch.
    expect(calls.get('getRelationships')).toBe(2);
    expect(stateReads).toHaveLength(2);
    expect(stateReads[1]).toEqual(expect.arrayContaining(['relationship:ALICE|HUGO_SAND', 'relationship:ALICE|INES_MORA']));
  });

  test("the chunks its merges bring are written at once, linked to what each names, with the documents' counts", async () => {
    const f = createIngestFixture({ mergeBatch: 32 });
    const written: string[][] = [];
    const chunkStore = f.deps.stores.chunks;
    const upsertMany = chunkStore.upsertMany.bind(chunkStore);
    chunkStore.upsertMany = (scope, chunks) => {
      written.push(chunks.map((c) => c.id));
      return upsertMany(scope, chunks);
    };
    const contributions = await Promise.all(Array.from({ length: 4 }, (_, i) => contributionOf(f, i)));
    for (let i = 0; i < 4; i++) await f.deps.stores.documents.insert(f.scope, { ...(await f.addDocument(`text ${i}`)), id: `doc-${i}` });
    const outcomes = await Promise.all(
      contributions.map(async (c, i) => {
        const [chunk] = await buildChunks(f.deps, `doc-${i}`, `text ${i}`, null);
        return commitInBatch(f.deps, f.scope, {
          documentId: `doc-${i}`,
          contributions: [c],
          policy: summaryPolicy(f.deps, true),
          lockIds: c.extraction.entities.map((e) => e.id),
          chunks: [chunk],
          afterWrite: async () => undefined,
        });
      }),
    );

    // The first merge goes alone; the three that arrive meanwhile go together, their chunks in one write.
    expect(written).toEqual([[chunkId('doc-0', 0)], [1, 2, 3].map((i) => chunkId(`doc-${i}`, 0))]);
    expect(outcomes.map((o) => o.counts)).toEqual(Array(4).fill({ entities: 3, relationships: 2 }));
    const [chunk] = await f.deps.stores.chunks.getMany(f.scope, [chunkId('doc-2', 0)]);
    expect([...chunk.entity_ids].sort()).toEqual(['ACME', 'ALICE', 'DARIO_FO']);
    expect([...chunk.relationship_ids].sort()).toEqual(['ACME|ALICE', 'ALICE|DARIO_FO']);
    expect(await f.deps.stores.documents.get(f.scope, 'doc-2')).toMatchObject({ entity_count: 3, relationship_count: 2 });
  });

  test('a merge that fails leaves the rest of its batch to commit, and nothing of its own', async () => {
    const f = createIngestFixture({ mergeBatch: 32 });
    countGraph(f, (method, ids) => method === 'getEntities' && Array.isArray(ids) && ids.includes('ZORRO'));
    const contributions = await Promise.all([
      contributionOf(f, 0),
      contributionOf(f, 1),
      contributionOf(f, 2, 'entity<|>Zorro<|>PERSON<|>Zorro watched meeting number 2.'),
      contributionOf(f, 3),
    ]);
    const settled = await Promise.allSettled(contributions.map((c, i) => batched(f, `doc-${i}`, c)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    const [alice] = await f.deps.stores.graph.getEntities(f.scope, ['ALICE']);
    expect([...alice.source_chunk_ids].sort()).toEqual([0, 1, 3].map((i) => chunkId(`doc-${i}`, 0)));
    expect(await f.deps.stores.graph.getEntities(f.scope, [PEOPLE[2].toUpperCase().replace(' ', '_')])).toEqual([]);
  });

  test('a batch whose write fails fails every merge in it, and the next batch commits', async () => {
    const f = createIngestFixture({ mergeBatch: 32 });
    let failing = true;
    countGraph(f, (method, records) => failing && method === 'upsertEntities' && Array.isArray(records) && records.length > 3);
    const contributions = await Promise.all(Array.from({ length: 4 }, (_, i) => contributionOf(f, i)));
    const settled = await Promise.allSettled(contributions.map((c, i) => batched(f, `doc-${i}`, c)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected']);
    failing = false;
    await batched(f, 'doc-4', await contributionOf(f, 4));
    const [alice] = await f.deps.stores.graph.getEntities(f.scope, ['ALICE']);
    expect([...alice.source_chunk_ids].sort()).toEqual([0, 4].map((i) => chunkId(`doc-${i}`, 0)));
  });
});

describe('the view a batch of merges works on', () => {
  test('reads what the batch wrote, takes relationships along with their entity, and finds the records a document gave its chunks', async () => {
    const f = createIngestFixture();
    const policy = summaryPolicy(f.deps, true);
    await commitMerge(f.deps, f.scope, 'doc-0', [await contributionOf(f, 0)], policy);
    const view = new MergeView(f.deps.stores, f.scope);
    await commitMerge({ stores: view }, f.scope, 'doc-1', [await contributionOf(f, 1)], policy);

    // Not in the store before the flush; in the view, with the document's chunk.
    expect(await f.deps.stores.graph.entitiesOfDocument(f.scope, 'doc-1')).toEqual([]);
    const ofDocument = await view.graph.entitiesOfDocument(f.scope, 'doc-1');
    expect(ofDocument.map((e) => e.id).sort()).toEqual(['ACME', 'ALICE', 'CARLA_GOMEZ']);
    const [alice] = await view.graph.getEntities(f.scope, ['ALICE']);
    expect(alice.source_chunk_ids).toEqual([chunkId('doc-0', 0), chunkId('doc-1', 0)]);
    // What a reader gets is a copy.
    alice.source_chunk_ids.length = 0;
    expect((await view.graph.getEntities(f.scope, ['ALICE']))[0].source_chunk_ids).toHaveLength(2);

    const [met] = await view.graph.getRelationships(
      f.scope,
      (await view.graph.relationshipsOfDocument(f.scope, 'doc-0')).map((r) => r.id),
    );
    expect(met).toBeDefined();
    await view.graph.deleteEntities(f.scope, ['ALICE']);
    expect(await view.graph.getEntities(f.scope, ['ALICE'])).toEqual([]);
    expect(await view.graph.relationshipsOfDocument(f.scope, 'doc-1')).toEqual([]);

    await view.flush();
    expect(await f.deps.stores.graph.getEntities(f.scope, ['ALICE'])).toEqual([]);
    const [carla] = await f.deps.stores.graph.getEntities(f.scope, ['CARLA_GOMEZ']);
    expect(carla.source_chunk_ids).toEqual([chunkId('doc-1', 0)]);
  });
});
