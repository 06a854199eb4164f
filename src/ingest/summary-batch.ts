import type { Scope } from '../domain/types';
import type { IngestDeps } from './deps';
import type { SummaryPolicy } from './summary';
import { type Applied, applySummaryGroups, type Written } from './summary-stage';
import { WorkspaceBatches } from './workspace-batches';

/**
 * Summaries applied in batches (./workspace-batches.ts): those that documents wrote while a batch of their
 * workspace was being applied go together, under one entity lock over all their records, in one read and one
 * write. The records most documents touch are the same few, so documents in flight would otherwise take their
 * lock one after another, each for a read and a write of its own.
 */

type SummaryDeps = Pick<IngestDeps, 'stores' | 'entityLocks'>;

interface Pending {
  written: Written[];
  policy: SummaryPolicy;
  resolve: (applied: Applied) => void;
  reject: (err: unknown) => void;
}

const batches = new WorkspaceBatches<SummaryDeps, Pending>((deps) => deps.stores, applyBatch);

/** Applies a document's summaries (applySummaries) in the next batch of its workspace; resolves with what changed. */
export function applyInBatch(deps: SummaryDeps, scope: Scope, written: Written[], policy: SummaryPolicy): Promise<Applied> {
  return new Promise((resolve, reject) => batches.add(deps, scope, { written, policy, resolve, reject }));
}

async function applyBatch(deps: SummaryDeps, scope: Scope, batch: Pending[]): Promise<void> {
  const lockIds = [...new Set(batch.flatMap((p) => p.written.flatMap((w) => w.job.lockIds)))];
  let applied: Applied[];
  try {
    applied = await deps.entityLocks.run(scope, lockIds, () => applySummaryGroups(deps, scope, batch));
  } catch (err) {
    for (const p of batch) p.reject(err);
    return;
  }
  batch.forEach((p, i) => p.resolve(applied[i]));
}
