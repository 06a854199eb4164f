import type { Scope } from '../../domain/types';
import type { IngestDeps } from '../deps';
import type { SummaryPolicy } from './summary';
import { type Applied, applySummaryGroups, type SummaryGroup, type Written } from './summary-stage';
import { lockedBatches } from './workspace-batches';

/**
 * Summaries applied in batches (./workspace-batches.ts): those that documents wrote while a batch of their
 * workspace was being applied go together, under one entity lock over all their records, in one read and one
 * write. The records most documents touch are the same few, so documents in flight would otherwise take their
 * lock one after another, each for a read and a write of its own.
 */

const inBatch = lockedBatches<SummaryGroup, Applied>((group) => group.written.flatMap((w) => w.job.lockIds), applySummaryGroups);

/** Applies a document's summaries (applySummaries) in the next batch of its workspace; resolves with what changed. */
export function applyInBatch(
  deps: Pick<IngestDeps, 'stores' | 'entityLocks' | 'ingest'>,
  scope: Scope,
  written: Written[],
  policy: SummaryPolicy,
): Promise<Applied> {
  return inBatch(deps, scope, { written, policy });
}
