import { chunkId } from '../../src/domain/ids';
import { summaryPolicy } from '../../src/ingest/deletion';
import { EXTRACTION_NAMESPACE } from '../../src/ingest/extract/cache';
import { parseExtraction } from '../../src/ingest/extract/parser';
import type { Contribution } from '../../src/ingest/merge/merge';
import { mergeDocument } from './merge-document';
import type { SummaryPolicy } from '../../src/ingest/merge/summary';
import { createIngestFixture, type IngestFixture } from './ingest-fixtures';

/** Contributions of a document (one record text per chunk), cached as the extraction stage would. */
async function contribute(f: IngestFixture, documentId: string, chunks: string[]): Promise<Contribution[]> {
  const out: Contribution[] = [];
  for (const [index, records] of chunks.entries()) {
    const parsed = parseExtraction(records);
    const id = chunkId(documentId, index);
    await f.deps.stores.kv.set(f.scope, EXTRACTION_NAMESPACE, id, { ...parsed, raw_outputs: [records] });
    out.push({ chunkId: id, extraction: parsed });
  }
  return out;
}

const policyOf = (f: IngestFixture, enabled = true, extra: Partial<SummaryPolicy> = {}): SummaryPolicy => ({
  ...summaryPolicy(f.deps, enabled),
  ...extra,
});

describe('mergeDocument', () => {
  test('re-merging the same document writes nothing new and never doubles weights', async () => {
    const f = createIngestFixture();
    const doc = await contribute(f, 'doc-a', [
      'entity<|>Alice<|>PERSON<|>Alice leads the team.\nrelation<|>Alice<|>Bob<|>manages<|>Alice manages Bob.',
      'entity<|>Bob<|>PERSON<|>Bob writes code.\nrelation<|>Bob<|>Alice<|>reports to<|>Bob reports to Alice.',
    ]);
    const first = await mergeDocument(f.deps, f.scope, 'doc-a', doc, policyOf(f));
    expect(first.changes.map((c) => c.kind).sort()).toEqual(['edge_added', 'node_added', 'node_added']);
    const [rel] = await f.deps.stores.graph.getRelationships(f.scope, ['ALICE|BOB']);
    expect(rel).toMatchObject({ weight: 2, keywords: ['manages', 'reports to'], relation_type: 'MANAGES', document_ids: ['doc-a'] });
    expect(rel.source_chunk_ids).toEqual(['doc-a-chunk-0', 'doc-a-chunk-1']);
    const before = await f.deps.stores.graph.getEntities(f.scope, ['ALICE', 'BOB']);

    const again = await mergeDocument(f.deps, f.scope, 'doc-a', doc, policyOf(f));
    expect(again.changes).toEqual([]);
    expect(again.reembed).toEqual({ entities: [], relationships: [] });
    expect(await f.deps.stores.graph.getEntities(f.scope, ['ALICE', 'BOB'])).toEqual(before);
    expect((await f.deps.stores.graph.getRelationships(f.scope, ['ALICE|BOB']))[0].weight).toBe(2);
  });

  test('accumulates sources and weight across documents, with type and name by majority', async () => {
    const f = createIngestFixture();
    await mergeDocument(
      f.deps,
      f.scope,
      'doc-a',
      await contribute(f, 'doc-a', [
        'entity<|>Acme<|>ORGANIZATION<|>Acme makes engines.\nrelation<|>Acme<|>Berlin<|>located in<|>Acme is in Berlin.',
      ]),
      policyOf(f),
    );
    await mergeDocument(
      f.deps,
      f.scope,
      'doc-b',
      await contribute(f, 'doc-b', [
        'entity<|>ACME<|>PRODUCT<|>Acme is also a brand.\nrelation<|>Berlin<|>Acme<|>headquarters<|>Acme has its headquarters in Berlin.',
        'entity<|>acme<|>organization<|>Acme makes engines.',
      ]),
      policyOf(f),
    );
    const [acme] = await f.deps.stores.graph.getEntities(f.scope, ['ACME']);
    expect(acme).toMatchObject({
      name: 'Acme',
      entity_type: 'ORGANIZATION',
      description: 'Acme makes engines.\nAcme is also a brand.',
      source_chunk_ids: ['doc-a-chunk-0', 'doc-b-chunk-0', 'doc-b-chunk-1'],
      document_ids: ['doc-a', 'doc-b'],
    });
    const [rel] = await f.deps.stores.graph.getRelationships(f.scope, ['ACME|BERLIN']);
    expect(rel).toMatchObject({ weight: 2, keywords: ['located in', 'headquarters'], document_ids: ['doc-a', 'doc-b'] });
  });

  test('a record extended document by document equals the record rebuilt from all its sources', async () => {
    const f = createIngestFixture({ summaryFragmentThreshold: 3 });
    const docs = ['doc-a', 'doc-b', 'doc-c'];
    const contributions: Contribution[][] = [];
    for (const [i, doc] of docs.entries()) {
      contributions.push(
        await contribute(f, doc, [
          `entity<|>Alice<|>${i === 1 ? 'ORGANIZATION' : 'PERSON'}<|>Alice fact ${i}a.\nrelation<|>Alice<|>Bob<|>knows ${i}, met<|>They met in year ${i}.`,
          `entity<|>Alice<|>PERSON<|>Alice fact ${i}b.\nentity<|>Bob<|>PERSON<|>Bob fact ${i}.`,
        ]),
      );
      await mergeDocument(f.deps, f.scope, doc, contributions[i], policyOf(f));
    }
    expect(f.callsFor('summarize').length).toBeGreaterThan(0);
    const before = await f.deps.stores.graph.getEntities(f.scope, ['ALICE', 'BOB']);
    const relBefore = await f.deps.stores.graph.getRelationships(f.scope, ['ALICE|BOB']);
    expect(relBefore[0]).toMatchObject({ weight: 3, keywords: ['knows 0', 'met', 'knows 1', 'knows 2'], relation_type: 'KNOWS_0' });
    f.calls.length = 0;

    // Merging the last document again takes the rebuild path: every record is recomputed from its sources.
    const rebuilt = await mergeDocument(f.deps, f.scope, 'doc-c', contributions[2], policyOf(f));
    expect(rebuilt.changes).toEqual([]);
    expect(f.calls).toEqual([]);
    expect(await f.deps.stores.graph.getEntities(f.scope, ['ALICE', 'BOB'])).toEqual(before);
    expect(await f.deps.stores.graph.getRelationships(f.scope, ['ALICE|BOB'])).toEqual(relBefore);
  });

  test('creates entities named only in a relationship, typed UNKNOWN and described by the relationship', async () => {
    const f = createIngestFixture();
    await mergeDocument(
      f.deps,
      f.scope,
      'doc-a',
      await contribute(f, 'doc-a', ['relation<|>Alice<|>Graph Engine<|>builds<|>Alice builds the Graph Engine.']),
      policyOf(f),
    );
    const entities = await f.deps.stores.graph.getEntities(f.scope, ['ALICE', 'GRAPH_ENGINE']);
    expect(entities.map((e) => [e.name, e.entity_type, e.description])).toEqual([
      ['Alice', 'UNKNOWN', 'Alice builds the Graph Engine.'],
      ['Graph Engine', 'UNKNOWN', 'Alice builds the Graph Engine.'],
    ]);
  });
});

describe('description summaries', () => {
  const fragments = (n: number) =>
    Array.from({ length: n }, (_, i) => `entity<|>Alice<|>PERSON<|>Alice did notable thing number ${i} in the project.`);

  test('joins fragments without an LLM call up to the fragment threshold', async () => {
    const f = createIngestFixture({ summaryFragmentThreshold: 4 });
    await mergeDocument(f.deps, f.scope, 'doc-a', await contribute(f, 'doc-a', fragments(4)), policyOf(f));
    expect(f.calls).toEqual([]);
    const [alice] = await f.deps.stores.graph.getEntities(f.scope, ['ALICE']);
    expect(alice.description.split('\n')).toHaveLength(4);
  });

  test('writes one LLM summary past the fragment threshold, and reuses it for the same fragments', async () => {
    const f = createIngestFixture({ summaryFragmentThreshold: 4 });
    const doc = await contribute(f, 'doc-a', fragments(5));
    const outcome = await mergeDocument(f.deps, f.scope, 'doc-a', doc, policyOf(f));
    expect(f.callsFor('summarize')).toHaveLength(1);
    expect(outcome.llm_calls).toBe(1);
    expect(f.calls[0].text.split('\n')).toHaveLength(5);
    const [alice] = await f.deps.stores.graph.getEntities(f.scope, ['ALICE']);
    expect(alice.description).not.toContain('\n');
    expect(alice.description).toContain('notable thing number 0');

    await mergeDocument(f.deps, f.scope, 'doc-a', doc, policyOf(f));
    expect(f.callsFor('summarize')).toHaveLength(1);
  });

  test('summarises past the token threshold even with few fragments', async () => {
    const f = createIngestFixture({ summaryFragmentThreshold: 10, summaryTokenThreshold: 30 });
    const long = 'A long description with many words about the subject, its history and its role.';
    await mergeDocument(
      f.deps,
      f.scope,
      'doc-a',
      await contribute(f, 'doc-a', [`entity<|>Alice<|>PERSON<|>${long}`, `entity<|>Alice<|>PERSON<|>Another: ${long}`]),
      policyOf(f),
    );
    expect(f.callsFor('summarize')).toHaveLength(1);
  });

  test('never calls the LLM when summarisation is off', async () => {
    const f = createIngestFixture({ summaryFragmentThreshold: 2 });
    await mergeDocument(f.deps, f.scope, 'doc-a', await contribute(f, 'doc-a', fragments(6)), policyOf(f, false));
    expect(f.calls).toEqual([]);
    const [alice] = await f.deps.stores.graph.getEntities(f.scope, ['ALICE']);
    expect(alice.description.split('\n')).toHaveLength(6);
  });

  test('map-reduces fragments that do not fit one call', async () => {
    const f = createIngestFixture({ summaryFragmentThreshold: 2 });
    await mergeDocument(f.deps, f.scope, 'doc-a', await contribute(f, 'doc-a', fragments(12)), policyOf(f, true, { maxInputTokens: 64 }));
    const calls = f.callsFor('summarize');
    expect(calls.length).toBeGreaterThan(2);
    // Map calls see consecutive groups of the fragments; the last call reduces their summaries.
    expect(calls[0].text).toContain('number 0 ');
    expect(calls.slice(0, -1).some((c) => c.text.includes('number 11 '))).toBe(true);
    const [alice] = await f.deps.stores.graph.getEntities(f.scope, ['ALICE']);
    expect(alice.description.length).toBeGreaterThan(0);
  });

  test('falls back to the joined fragments when the summary call fails', async () => {
    const f = createIngestFixture({ summaryFragmentThreshold: 2 });
    f.failWhen = (call) => call.task === 'summarize';
    const outcome = await mergeDocument(f.deps, f.scope, 'doc-a', await contribute(f, 'doc-a', fragments(3)), policyOf(f));
    expect(outcome.summaryFailures).toHaveLength(1);
    const [alice] = await f.deps.stores.graph.getEntities(f.scope, ['ALICE']);
    expect(alice.description.split('\n')).toHaveLength(3);
  });
});
