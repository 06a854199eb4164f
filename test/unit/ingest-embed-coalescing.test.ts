import type { Scope } from '../../src/domain/types';
import { entityText, relationshipText } from '../../src/ingest/merge/merge';
import { settleEmbeddingRefreshes } from '../../src/ingest/merge/merge-stage';
import { processDocument } from '../../src/ingest/pipeline';
import type { LlmProvider } from '../../src/llm/ports';
import { beforeLlmCalls, createIngestFixture, type IngestFixture, recordEmbeddedTexts, withoutResolution } from './ingest-fixtures';

const PEOPLE = ['Bruno Diaz', 'Carla Gomez', 'Dario Fo', 'Elena Ruiz', 'Franco Neri', 'Greta Lind'];

/** Documents that all name Alice Smith and Acme Corporation, each with someone of its own. */
const documents = PEOPLE.map((p, i) => `Alice Smith met ${p} at Acme Corporation in Lisbon during week ${i + 1}.`);

/**
 * One embedding provider for every run (so the runs share one queue), recording each text it embeds; and an LLM
 * whose calls of a task wait until every document has made its call of that task, so that every document is
 * extracted before the first one merges.
 */
function instrument(f: IngestFixture, documentsInFlight: number): { texts: string[] } {
  // Without resolution's merges (which re-embed the survivors they write): these texts are the documents' merges'.
  withoutResolution(f);
  const texts: string[] = [];
  recordEmbeddedTexts(f, texts);
  const barriers = new Map<string, { waiting: Array<() => void> }>();
  const barrier = (task: string) => {
    const b = barriers.get(task) ?? { waiting: [] };
    barriers.set(task, b);
    return new Promise<void>((resolve) => {
      b.waiting.push(resolve);
      if (b.waiting.length === documentsInFlight) for (const go of b.waiting.splice(0)) go();
    });
  };
  const llmOf = f.deps.providers.llm.bind(f.deps.providers);
  f.deps = {
    ...f.deps,
    providers: {
      ...f.deps.providers,
      llm: (provider, model) => {
        const llm = llmOf(provider, model);
        const gated: LlmProvider = {
          ...llm,
          async complete(messages, options) {
            if (options?.task === 'extract' || options?.task === 'glean') await barrier(options.task);
            return llm.complete(messages, options);
          },
        };
        return gated;
      },
    },
  };
  return { texts };
}

/** LLM calls whose messages mention `text` wait for `until`. */
function gateCalls(f: IngestFixture, text: string, until: Promise<void>): void {
  beforeLlmCalls(f, async (messages) => {
    if (messages.some((m) => m.content.includes(text))) await until;
  });
}

async function records(f: IngestFixture, scope: Scope) {
  const entities = (await f.deps.stores.graph.listEntities(scope, { limit: 1000, offset: 0 })).items;
  const relationships = (await f.deps.stores.graph.listRelationships(scope, { limit: 1000, offset: 0 })).items;
  return { entities, relationships };
}

describe('documents in flight naming the same records', () => {
  test('embed each record once with the text it has after the last of them merged, and a shared one once more when new', async () => {
    const f = createIngestFixture();
    const { texts } = instrument(f, documents.length);
    const docs = await Promise.all(documents.map((text) => f.addDocument(text)));
    const results = await Promise.all(docs.map((doc) => processDocument(f.deps, f.scope, doc.id, { mode: 'full' })));
    expect(results.map((r) => r.status)).toEqual(docs.map(() => 'completed'));
    await settleEmbeddingRefreshes(f.deps);

    const { entities, relationships } = await records(f, f.scope);
    const alice = entities.find((e) => e.id === 'ALICE_SMITH');
    expect(alice?.document_ids).toHaveLength(documents.length);
    // One text per chunk and per record, the record's final one, none twice; and a record every document names
    // (Alice Smith, Acme Corporation, Lisbon and the relationships between them) at most once more, as the first
    // document to merge created it: a record new to the graph is embedded as soon as a batch goes, and the changes
    // the other documents make to it go as one refresh.
    const finalTexts = [...entities.map(entityText), ...relationships.map(relationshipText)];
    const chunks = new Set(documents);
    const seen = new Set<string>();
    const again = texts.filter((t) => seen.has(t) || !seen.add(t));
    const replaced = texts.filter((t) => !chunks.has(t) && !finalTexts.includes(t));
    expect(again).toEqual([]);
    const shared = [
      'Alice Smith:',
      'Acme Corporation:',
      'Lisbon:',
      'ACME_CORPORATION - ALICE_SMITH',
      'ACME_CORPORATION - LISBON',
      'ALICE_SMITH - LISBON',
    ];
    const recordOf = (t: string) => shared.find((name) => t.includes(name));
    for (const t of replaced)
      expect({ shared: recordOf(t) !== undefined, weeks: t.match(/during week/g)?.length }).toEqual({ shared: true, weeks: 1 });
    expect(new Set(replaced.map(recordOf)).size).toBe(replaced.length);
    expect(texts).toHaveLength(documents.length + finalTexts.length + replaced.length);

    const embedder = f.deps.providers.embedding();
    const kinds = [...entities.map(() => 'entity' as const), ...relationships.map(() => 'relationship' as const)];
    const ids = [...entities.map((e) => e.id), ...relationships.map((r) => r.id)];
    for (const [i, vector] of (await embedder.embed(finalTexts)).entries()) {
      const [hit] = await f.deps.stores.vectors.search(f.scope, kinds[i], vector, 1);
      expect({ id: hit?.id, exact: (hit?.score ?? 0) > 0.9999 }).toEqual({ id: ids[i], exact: true });
    }
    // Every run gave its claim up.
    expect(f.deps.ingest.claims.open).toBe(0);
  });

  test('give a record the vector of its final text when a document queues an older text after a newer one', async () => {
    const f = createIngestFixture();
    instrument(f, 1);
    const [early, late] = await Promise.all(documents.slice(0, 2).map((text) => f.addDocument(text)));
    // The early document merges first and reports its merge; the late one extracts only then, merges and
    // completes; the early one goes on only then, and queues the texts its merge gave Alice Smith and Acme
    // Corporation after the late one queued theirs as it left them.
    let earlyMerged!: () => void;
    const merged = new Promise<void>((resolve) => (earlyMerged = resolve));
    let lateDone!: () => void;
    const completed = new Promise<void>((resolve) => (lateDone = resolve));
    gateCalls(f, PEOPLE[1], merged);
    const first = processDocument(f.deps, f.scope, early.id, {
      mode: 'full',
      report: async ({ stage, stageStatus }) => {
        if (stage !== 'merging' || stageStatus !== 'completed') return;
        earlyMerged();
        await completed;
      },
    });
    const second = processDocument(f.deps, f.scope, late.id, { mode: 'full' }).finally(lateDone);
    expect((await Promise.all([first, second])).map((r) => r.status)).toEqual(['completed', 'completed']);
    await settleEmbeddingRefreshes(f.deps);

    const { entities, relationships } = await records(f, f.scope);
    expect(entities.find((e) => e.id === 'ALICE_SMITH')?.document_ids).toHaveLength(2);
    const embedder = f.deps.providers.embedding();
    const expectFinal = async (kind: 'entity' | 'relationship', id: string, text: string) => {
      const [vector] = await embedder.embed([text]);
      const [hit] = await f.deps.stores.vectors.search(f.scope, kind, vector, 1, { ids: [id] });
      return { id, kind, exact: (hit?.score ?? 0) > 0.9999 };
    };
    const checks = await Promise.all([
      ...entities.map((e) => expectFinal('entity', e.id, entityText(e))),
      ...relationships.map((r) => expectFinal('relationship', r.id, relationshipText(r))),
    ]);
    expect(checks.filter((c) => !c.exact)).toEqual([]);
  });

  test('give their claims up when they fail, so that the records they named are embedded', async () => {
    const f = createIngestFixture();
    const { texts } = instrument(f, 2);
    const [kept, failing] = await Promise.all(documents.slice(0, 2).map((text) => f.addDocument(text)));
    // The second document's merge fails after its extraction claimed Alice Smith and Acme Corporation.
    const upsert = f.deps.stores.graph.upsertEntities.bind(f.deps.stores.graph);
    let writes = 0;
    f.deps.stores.graph.upsertEntities = async (scope, rows) => {
      if (writes++ === 1) throw new Error('injected write failure');
      return upsert(scope, rows);
    };
    const results = await Promise.all([kept, failing].map((doc) => processDocument(f.deps, f.scope, doc.id, { mode: 'full' })));
    expect(results.map((r) => r.status).sort()).toEqual(['completed', 'failed']);
    await settleEmbeddingRefreshes(f.deps);
    const { entities } = await records(f, f.scope);
    expect(entities.map((e) => e.id)).toContain('ALICE_SMITH');
    for (const e of entities) {
      const [vector] = await f.deps.providers.embedding().embed([entityText(e)]);
      const [hit] = await f.deps.stores.vectors.search(f.scope, 'entity', vector, 1);
      expect({ id: hit?.id, exact: (hit?.score ?? 0) > 0.9999 }).toEqual({ id: e.id, exact: true });
    }
    expect(texts.length).toBeGreaterThan(0);
    expect(f.deps.ingest.claims.open).toBe(0);
  });
});
