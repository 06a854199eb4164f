import { entityText, relationshipText } from '../../src/ingest/merge/merge';
import { settleEmbeddingRefreshes } from '../../src/ingest/merge/merge-stage';
import { processDocument } from '../../src/ingest/pipeline';
import type { EmbeddingProvider } from '../../src/llm/ports';
import { beforeLlmCalls, createIngestFixture, withoutResolution } from './ingest-fixtures';

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

describe('records that many documents in flight merge, with uneven call times', () => {
  test.each([1, 2, 3])('end with the vector of their final text (timing sequence %i)', async (seed) => {
    const f = createIngestFixture({ summaryFragmentThreshold: 3 });
    withoutResolution(f);
    const random = seeded(seed);
    const inner = f.deps.providers.embedding();
    const embedder: EmbeddingProvider = {
      provider: inner.provider,
      model: inner.model,
      dimension: inner.dimension,
      async embed(batch, signal) {
        await pause(Math.floor(random() * 40));
        return inner.embed(batch, signal);
      },
    };
    f.deps = { ...f.deps, providers: { ...f.deps.providers, embedding: () => embedder } };
    beforeLlmCalls(f, () => pause(Math.floor(random() * 20)));

    const texts = Array.from({ length: DOCUMENTS }, (_, i) => {
      const [a, b] = [PEOPLE[i % PEOPLE.length], PEOPLE[(i * 3 + 1) % PEOPLE.length]];
      return `Alice Smith met ${a} and ${b} at Acme Corporation in Lisbon during week ${i + 1}. ${a} works with ${b}.`;
    });
    const docs = await Promise.all(texts.map((text) => f.addDocument(text)));
    const results = await Promise.all(docs.map((doc) => processDocument(f.deps, f.scope, doc.id, { mode: 'full' })));
    expect(results.filter((r) => r.status !== 'completed')).toEqual([]);
    await settleEmbeddingRefreshes(f.deps);

    const entities = (await f.deps.stores.graph.listEntities(f.scope, { limit: 1000, offset: 0 })).items;
    const relationships = (await f.deps.stores.graph.listRelationships(f.scope, { limit: 1000, offset: 0 })).items;
    expect(entities.length).toBeGreaterThan(PEOPLE.length);
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
  });
});
