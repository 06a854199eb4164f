import type { Scope } from '../../src/domain/types';
import { entityText, relationshipText } from '../../src/ingest/merge/merge';
import { settleEmbeddingRefreshes } from '../../src/ingest/merge/merge-stage';
import { processDocument } from '../../src/ingest/pipeline';
import type { EmbeddingProvider } from '../../src/llm/ports';
import { checkIntegrity } from '../../src/services/integrity';
import { seededRandom } from '../contract/fixtures';
import { beforeLlmCalls, createIngestFixture, type IngestFixture, withoutResolution } from './ingest-fixtures';

/**
 * Documents naming the same records run side by side in orders a seeded scheduler picks: every LLM call,
 * embedding call and graph write first yields a random number of event-loop turns (no timers), and some documents
 * fail after their merge (an embedding of their text is refused). Whatever the interleaving: every document ends
 * completed or failed; the graph holds exactly the records the completed documents make, citing only them; every
 * record has the vector of its final text; the integrity check finds no orphan.
 */
jest.setTimeout(120_000);

const PEOPLE = ['Bruno Diaz', 'Carla Gomez', 'Dario Fo', 'Elena Ruiz', 'Franco Neri', 'Greta Lind', 'Hugo Sand', 'Ines Moro'];
/** A name whose embedding is refused: the documents naming it fail after they merged. */
const POISON = 'Zed Failwright';

function corpus(): string[] {
  return PEOPLE.map((person, i) => {
    const guest = i % 4 === 1 ? POISON : PEOPLE[(i + 3) % PEOPLE.length];
    return (
      `Alice Smith met ${person} at Acme Corporation in Lisbon during week ${i + 1}. ` +
      `${person} works with ${guest} on the Quill Engine. Acme Corporation funds the Quill Engine.`
    );
  });
}

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** Every provider call and graph write of the fixture yields first, as many turns as the seeded random says. */
function interleave(f: IngestFixture, seed: number): void {
  const random = seededRandom(seed);
  const yieldSome = () => turns(Math.floor(random() * 12));
  withoutResolution(f);
  beforeLlmCalls(f, yieldSome);
  const embeddingOf = f.deps.providers.embedding.bind(f.deps.providers);
  f.deps = {
    ...f.deps,
    providers: {
      ...f.deps.providers,
      embedding: (provider, model) => {
        const inner = embeddingOf(provider, model);
        const shuffled: EmbeddingProvider = {
          provider: inner.provider,
          model: inner.model,
          dimension: inner.dimension,
          async embed(texts, signal) {
            await yieldSome();
            return inner.embed(texts, signal);
          },
        };
        return shuffled;
      },
    },
  };
  const graph = f.deps.stores.graph;
  const upsertEntities = graph.upsertEntities.bind(graph);
  const upsertRelationships = graph.upsertRelationships.bind(graph);
  graph.upsertEntities = async (scope, rows) => {
    await yieldSome();
    return upsertEntities(scope, rows);
  };
  graph.upsertRelationships = async (scope, rows) => {
    await yieldSome();
    return upsertRelationships(scope, rows);
  };
}

/** Each record by id with the titles of the documents it cites, from its source chunks. */
async function provenance(f: IngestFixture, scope: Scope, titles: Map<string, string>) {
  const { graph } = f.deps.stores;
  const cited = (ids: string[]) => [...new Set(ids.map((id) => titles.get(id.replace(/-chunk-\d+$/, '')) ?? `?${id}`))].sort();
  const entities = (await graph.listEntities(scope, { limit: 1000, offset: 0 })).items;
  const relationships = (await graph.listRelationships(scope, { limit: 1000, offset: 0 })).items;
  return {
    entities: Object.fromEntries(entities.map((e) => [e.id, cited(e.source_chunk_ids)])),
    relationships: Object.fromEntries(relationships.map((r) => [r.id, cited(r.source_chunk_ids)])),
  };
}

/** The records whose vector is not the embedding of their final text. */
async function staleVectors(f: IngestFixture): Promise<string[]> {
  const { graph, vectors } = f.deps.stores;
  const embedder = f.deps.providers.embedding();
  const entities = (await graph.listEntities(f.scope, { limit: 1000, offset: 0 })).items;
  const relationships = (await graph.listRelationships(f.scope, { limit: 1000, offset: 0 })).items;
  const records = [
    ...entities.map((e) => ({ kind: 'entity' as const, id: e.id, text: entityText(e) })),
    ...relationships.map((r) => ({ kind: 'relationship' as const, id: r.id, text: relationshipText(r) })),
  ];
  const embedded = await embedder.embed(records.map((r) => r.text));
  const stale: string[] = [];
  for (const [i, record] of records.entries()) {
    const [hit] = await vectors.search(f.scope, record.kind, embedded[i], 1, { ids: [record.id] });
    if ((hit?.score ?? 0) < 0.9999) stale.push(record.id);
  }
  return stale;
}

describe('records and vectors under interleaved documents', () => {
  test.each([1, 2, 3, 4, 5, 6, 7, 8])(
    'seed %i: what remains is what the completed documents make, each record with its final vector',
    async (seed) => {
      const f = createIngestFixture();
      interleave(f, seed);
      f.failEmbeddingWhen = (texts) => texts.some((t) => t.includes(POISON));
      const texts = corpus();
      const docs = await Promise.all(texts.map((text, i) => f.addDocument(text, { title: `doc ${i}`, use_llm_summarization: false })));
      const results = await Promise.all(docs.map((doc) => processDocument(f.deps, f.scope, doc.id, { mode: 'full' })));
      await settleEmbeddingRefreshes(f.deps);
      expect(results.map((r) => r.status).filter((s) => s !== 'completed' && s !== 'failed')).toEqual([]);
      const completed = docs.filter((_, i) => results[i].status === 'completed');
      // The poisoned documents fail; others may fail with them (their texts were embedded in one batch), never all.
      expect(completed.length).toBeGreaterThan(0);
      expect(completed.length).toBeLessThan(docs.length);

      // The same completed documents ingested one at a time, with nothing else in the workspace.
      const reference = createIngestFixture();
      withoutResolution(reference);
      for (const doc of completed) {
        const again = await reference.addDocument(doc.content, { title: doc.title, use_llm_summarization: false });
        expect((await processDocument(reference.deps, reference.scope, again.id, { mode: 'full' })).status).toBe('completed');
      }
      await settleEmbeddingRefreshes(f.deps);
      const titles = (list: Array<{ id: string; title: string }>) => new Map(list.map((d) => [d.id, d.title]));
      const referenceDocs = (await reference.deps.stores.documents.list(reference.scope, { limit: 100, offset: 0 })).items;
      expect(await provenance(f, f.scope, titles(docs))).toEqual(await provenance(reference, reference.scope, titles(referenceDocs)));

      expect(await staleVectors(f)).toEqual([]);
      const report = await checkIntegrity(f.deps.stores, f.scope);
      expect(Object.entries(report.orphans).filter(([, g]) => g.count > 0)).toEqual([]);
    },
  );
});
