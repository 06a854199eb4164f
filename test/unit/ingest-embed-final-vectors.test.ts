import { entityText, relationshipText } from '../../src/ingest/merge/merge';
import { settleEmbeddingRefreshes } from '../../src/ingest/merge/merge-stage';
import { processDocument } from '../../src/ingest/pipeline';
import type { EmbeddingProvider } from '../../src/llm/ports';
import { beforeLlmCalls, createIngestFixture, type IngestFixture, recordEmbeddedTexts, withoutResolution } from './ingest-fixtures';
import { nameKey } from '../../src/domain/entity-names';
import { MERGE_HISTORY_NAMESPACE } from '../../src/graph/aliases';
import type { EntityRecord } from '../../src/domain/types';

/**
 * Many documents in flight merge the same records while embedding calls and LLM calls take uneven times (a seeded
 * sequence, the same in every run): records are changed while their texts are being embedded, and documents queue
 * texts after newer ones. Once everything has settled, every record has a vector, that of its final text.
 */
const PEOPLE = ['Bruno Diaz', 'Carla Gomez', 'Dario Fo', 'Elena Ruiz', 'Franco Neri', 'Greta Lind', 'Hugo Sala', 'Ines Vidal'];
const DOCUMENTS = 96;

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Every record has a vector, that of its final text; the entities. */
async function expectFinalVectors(f: IngestFixture, inner: EmbeddingProvider): Promise<EntityRecord[]> {
  const entities = (await f.deps.stores.graph.listEntities(f.scope, { limit: 1000, offset: 0 })).items;
  const relationships = (await f.deps.stores.graph.listRelationships(f.scope, { limit: 1000, offset: 0 })).items;
  const check = async (kind: 'entity' | 'relationship', id: string, text: string) => {
    const [vector] = await inner.embed([text]);
    const [hit] = await f.deps.stores.vectors.search(f.scope, kind, vector, 1, { ids: [id] });
    return { kind, id, vector: hit !== undefined, final: (hit?.score ?? 0) > 0.9999 };
  };
  const checks = await Promise.all([
    ...entities.map((e) => check('entity', e.id, entityText(e))),
    ...relationships.map((r) => check('relationship', r.id, relationshipText(r))),
  ]);
  expect(checks.filter((c) => !c.vector || !c.final)).toEqual([]);
  expect((await f.deps.stores.vectors.ids(f.scope, 'entity')).sort()).toEqual(entities.map((e) => e.id).sort());
  expect((await f.deps.stores.vectors.ids(f.scope, 'relationship')).sort()).toEqual(relationships.map((r) => r.id).sort());
  return entities;
}

/** An embedding provider that takes an uneven time per call. */
function unevenEmbedder(inner: EmbeddingProvider, random: () => number): EmbeddingProvider {
  return {
    provider: inner.provider,
    model: inner.model,
    dimension: inner.dimension,
    async embed(batch, signal) {
      await pause(Math.floor(random() * 40));
      return inner.embed(batch, signal);
    },
  };
}

/**
 * Ingests documents naming two of PEOPLE each (`spelled` gives each name's spelling in document i) with uneven call
 * times from `seed`, all in flight at once, and waits until every vector is written; returns the embedder behind the
 * uneven one.
 */
async function ingestUnevenly(f: IngestFixture, seed: number, documents: number, spelled = (name: string, _i: number) => name) {
  const random = seeded(seed);
  const inner = f.deps.providers.embedding();
  const embedder = unevenEmbedder(inner, random);
  f.deps = { ...f.deps, providers: { ...f.deps.providers, embedding: () => embedder } };
  beforeLlmCalls(f, () => pause(Math.floor(random() * 20)));
  const texts = Array.from({ length: documents }, (_, i) => {
    const [a, b] = [spelled(PEOPLE[i % PEOPLE.length], i), spelled(PEOPLE[(i * 3 + 1) % PEOPLE.length], i)];
    return `Alice Smith met ${a} and ${b} at Acme Corporation in Lisbon during week ${i + 1}. ${a} works with ${b}.`;
  });
  const docs = await Promise.all(texts.map((text) => f.addDocument(text)));
  const results = await Promise.all(docs.map((doc) => processDocument(f.deps, f.scope, doc.id, { mode: 'full' })));
  expect(results.filter((r) => r.status !== 'completed')).toEqual([]);
  await settleEmbeddingRefreshes(f.deps);
  return inner;
}

describe('records that many documents in flight merge, with uneven call times', () => {
  test.each([1, 2, 3])('end with the vector of their final text (timing sequence %i)', async (seed) => {
    const f = createIngestFixture({ summaryFragmentThreshold: 3 });
    withoutResolution(f);
    const inner = await ingestUnevenly(f, seed, DOCUMENTS);
    const entities = await expectFinalVectors(f, inner);
    expect(entities.length).toBeGreaterThan(PEOPLE.length);
  });
});

/** The same spellings with accents: entity resolution merges each pair, carrying vectors and refreshing them later. */
const ACCENTED: Record<string, string> = { 'Bruno Diaz': 'Bruno Díaz', 'Carla Gomez': 'Carla Gómez', 'Elena Ruiz': 'Elena Ruíz' };

describe('records that entity resolution merges while documents are in flight, with uneven call times', () => {
  test.each([1, 2])('end with one entity per person and the vectors of their final texts (timing sequence %i)', async (seed) => {
    const f = createIngestFixture({ summaryFragmentThreshold: 3 });
    const spelled = (name: string, i: number) => (i % 2 === 1 ? (ACCENTED[name] ?? name) : name);
    const inner = await ingestUnevenly(f, seed, 48, spelled);

    const entities = await expectFinalVectors(f, inner);
    const keys = entities.map((e) => nameKey(e.name));
    expect(keys.length).toBe(new Set(keys).size);
    for (const name of Object.keys(ACCENTED)) expect(keys).toContain(nameKey(name));
    // Each person of the two spellings is one entity by resolution's merges (the two spellings have two ids).
    const merged = entities.filter((e) => Object.keys(ACCENTED).some((name) => nameKey(name) === nameKey(e.name)));
    const history = await f.deps.stores.kv.getMany(
      f.scope,
      MERGE_HISTORY_NAMESPACE,
      merged.map((e) => e.id),
    );
    expect(history.size).toBe(Object.keys(ACCENTED).length);
  });
});

describe('the relationships of an entity that resolution merges into another', () => {
  it('are embedded once, naming the survivor: their text before the merge is never embedded', async () => {
    const f = createIngestFixture();
    const texts: string[] = [];
    const inner = recordEmbeddedTexts(f, texts);
    for (const text of [
      'Bruno Diaz works with Carla Gomez at Acme Corporation in Lisbon.',
      'Bruno Díaz met Hugo Sala at Initech Corporation in Porto.',
    ]) {
      const doc = await f.addDocument(text);
      expect((await processDocument(f.deps, f.scope, doc.id, { mode: 'full' })).status).toBe('completed');
    }
    await settleEmbeddingRefreshes(f.deps);

    const history = await f.deps.stores.kv.get(f.scope, MERGE_HISTORY_NAMESPACE, 'BRUNO_DIAZ');
    expect(history).toEqual([expect.objectContaining({ merged_from: ['BRUNO_DÍAZ'] })]);
    const relationships = (await f.deps.stores.graph.listRelationships(f.scope, { limit: 100, offset: 0 })).items;
    expect(relationships.map((r) => r.id)).toEqual(expect.arrayContaining(['BRUNO_DIAZ|HUGO_SALA']));
    // Relationship texts name their endpoints' ids on their second line.
    const naming = (id: string) => texts.filter((t) => t.split('\n')[1]?.split(' - ').includes(id));
    expect(naming('BRUNO_DÍAZ')).toEqual([]);
    expect(naming('BRUNO_DIAZ').filter((t) => t.includes('HUGO_SALA'))).toHaveLength(1);
    await expectFinalVectors(f, inner);
  });
});
