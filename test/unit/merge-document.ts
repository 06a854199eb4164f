import type { Scope } from '../../src/domain/types';
import type { IngestDeps } from '../../src/ingest/deps';
import { commitMerge, type Contribution, type MergeOutcome } from '../../src/ingest/merge/merge';
import type { SummaryPolicy } from '../../src/ingest/merge/summary';
import { applySummaries, summariseOutcome, withSummaries } from '../../src/ingest/merge/summary-stage';

/** A document's merge, then the summaries it found due, for tests that hold no lock or every lock involved. */
export async function mergeDocument(
  deps: Pick<IngestDeps, 'stores' | 'ingest'>,
  scope: Scope,
  documentId: string,
  contributions: Contribution[],
  policy: SummaryPolicy,
): Promise<MergeOutcome> {
  const outcome = await commitMerge(deps, scope, documentId, contributions, policy);
  return withSummaries(outcome, await summariseOutcome(deps, scope, outcome, policy, applySummaries));
}
