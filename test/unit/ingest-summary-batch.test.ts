import { chunkId } from '../../src/domain/ids';
import { summaryPolicy } from '../../src/ingest/deletion';
import { EXTRACTION_NAMESPACE } from '../../src/ingest/extract/cache';
import { parseExtraction } from '../../src/ingest/extract/parser';
import { commitMerge, type MergeOutcome } from '../../src/ingest/merge/merge';
import { fragmentKey } from '../../src/ingest/merge/record-state';
import { applyInBatch } from '../../src/ingest/merge/summary-batch';
import type { Written } from '../../src/ingest/merge/summary-stage';
import { createIngestFixture, type IngestFixture } from './ingest-fixtures';
import { recordingLocks } from './recording-locks';

/** Summaries applied in batches: those written while a batch is applied go together in the next. */

async function mergeTalks(f: IngestFixture, name: string, talks: number): Promise<MergeOutcome> {
  let outcome: MergeOutcome | undefined;
  for (let i = 0; i < talks; i++) {
    const documentId = `${name}-doc-${i}`;
    const record = `entity<|>${name}<|>PERSON<|>${name} gave talk number ${i} at the annual meeting.`;
    const parsed = parseExtraction(record);
    await f.deps.stores.kv.set(f.scope, EXTRACTION_NAMESPACE, chunkId(documentId, 0), { ...parsed, raw_outputs: [record] });
    outcome = await commitMerge(
      f.deps,
      f.scope,
      documentId,
      [{ chunkId: chunkId(documentId, 0), extraction: parsed }],
      summaryPolicy(f.deps, true),
    );
  }
  return outcome as MergeOutcome;
}

/** The summary each due job of the outcome would get: one line covering the fragments it shows. */
function summariesOf(outcome: MergeOutcome): Written[] {
  return outcome.due.map((job) => ({ job, summary: { text: `Summary of ${job.id}.`, covered: job.fragments.map(fragmentKey) } }));
}

describe('summaries applied in batches', () => {
  test('those written while a batch is applied go together under one lock, each document getting its own changes', async () => {
    const f = createIngestFixture({ summaryFragmentThreshold: 2 });
    const { locks, held } = recordingLocks();
    f.deps.entityLocks = locks;
    const people = ['Alice', 'Bob', 'Carol'];
    const outcomes = [];
    for (const name of people) outcomes.push(await mergeTalks(f, name, 3));
    expect(outcomes.map((o) => o.due.map((job) => job.id))).toEqual([['ALICE'], ['BOB'], ['CAROL']]);

    const policy = summaryPolicy(f.deps, true);
    const applied = await Promise.all(outcomes.map((o) => applyInBatch(f.deps, f.scope, summariesOf(o), policy)));

    // The first goes alone; the two written meanwhile go together.
    expect(held).toEqual([['ALICE'], ['BOB', 'CAROL']]);
    expect(applied.map((a) => [a.changes.map((c) => c.id), [...a.keys]])).toEqual([
      [['ALICE'], ['entity:ALICE']],
      [['BOB'], ['entity:BOB']],
      [['CAROL'], ['entity:CAROL']],
    ]);
    const stored = await f.deps.stores.graph.getEntities(f.scope, ['ALICE', 'BOB', 'CAROL']);
    expect(stored.map((e) => e.description.split('\n')[0])).toEqual(['Summary of ALICE.', 'Summary of BOB.', 'Summary of CAROL.']);
  });

  test('a batch that cannot be applied fails every document in it, and the next batch is applied', async () => {
    const f = createIngestFixture({ summaryFragmentThreshold: 2 });
    const outcomes = [await mergeTalks(f, 'Alice', 3), await mergeTalks(f, 'Bob', 3)];
    const policy = summaryPolicy(f.deps, true);
    const graph = f.deps.stores.graph;
    const upsert = graph.upsertEntities.bind(graph);
    let failing = true;
    graph.upsertEntities = (scope, records) => (failing ? Promise.reject(new Error('store down')) : upsert(scope, records));
    const settled = await Promise.allSettled(outcomes.map((o) => applyInBatch(f.deps, f.scope, summariesOf(o), policy)));
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    failing = false;
    const again = await applyInBatch(f.deps, f.scope, summariesOf(outcomes[1]), policy);
    expect(again.changes.map((c) => c.id)).toEqual(['BOB']);
  });
});
