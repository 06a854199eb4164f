import type { ChunkRecord, Scope } from '../../domain/types';
import { bumpGraphVersion } from '../../llm/cache/responses';
import { withAliasedEntityLock } from './aliases';
import { linkMergedChunks, writeLinked } from './chunk-links';
import type { IngestDeps } from '../deps';
import { commitMerge, type Contribution, type MergeOutcome, prefetchMerges } from './merge';
import { MergeView } from './merge-view';
import type { SummaryPolicy } from './summary';
import type { BatchKind } from '../batches';

/**
 * Merges committed in batches, as a database commits a group of transactions. A document's merge that arrives
 * while another batch of its workspace is committing waits for that batch, then goes with every merge that
 * arrived meanwhile: one entity lock over all their entities, the merges run one after another in arrival order
 * on a view of the stores (./merge-view.ts), each reading what the ones before it wrote, and one write of what
 * they left. Every merge gets the outcome it would have had alone at that place in the order (the same records,
 * the same summaries due), while a record that all of them change is read and written once, not once each.
 * Documents that name the same entities would wait for each other's merge anyway; in a batch they wait for one
 * write instead of one each. A merge that brings the document's chunks has them written with what they name,
 * and the document's counts, under the same lock: one write of the batch's chunks, not one acquisition each.
 */

export interface MergeRequest {
  documentId: string;
  contributions: Contribution[];
  policy: SummaryPolicy;
  /** The entities the merge may rewrite (affectedEntityIds). */
  lockIds: string[];
  /** The graph is known to hold nothing of the document (commitMerge). */
  outOfGraph?: boolean;
  /** Called under the lock right before the merge runs. */
  onWrite?: () => void;
  /** The document's chunk records, to write linked to what the merge found they name (outcome.counts is set). */
  chunks?: ChunkRecord[];
  /** Called under the lock once the batch is written and the graph version moved on, with this merge's outcome. */
  afterWrite: (outcome: MergeOutcome) => Promise<void>;
}

/** A batch stops growing at `config.ingest.mergeBatch` documents, or once its documents have this many chunks. */
const MAX_CONTRIBUTIONS = 2_048;

interface Waiting extends MergeRequest {
  resolve: (outcome: MergeOutcome) => void;
  reject: (err: unknown) => void;
}

/** Merges wait in the runtime's queues (`deps.ingest.batches`). */
const MERGES: BatchKind<IngestDeps, Waiting> = {
  commit: commitBatch,
  take: (deps, waiting) => batchLength(waiting, deps.config.ingest.mergeBatch),
};

/**
 * Commits the merge in the next batch of its workspace, or on its own under its entity lock with batches of one;
 * resolves once it is written and `afterWrite` is done.
 */
export function commitInBatch(deps: IngestDeps, scope: Scope, request: MergeRequest): Promise<MergeOutcome> {
  if (deps.config.ingest.mergeBatch <= 1)
    return withAliasedEntityLock(deps.stores.kv, deps.entityLocks, scope, request.lockIds, async () => {
      request.onWrite?.();
      const outcome = await commitMerge(deps, scope, request.documentId, request.contributions, request.policy, request.outOfGraph);
      await linkAll(deps, scope, [[request, outcome]]);
      await bumpIfChanged(deps, scope, [outcome]);
      await request.afterWrite(outcome);
      return outcome;
    });
  return new Promise((resolve, reject) => deps.ingest.batches.of(MERGES).add(deps, scope, { ...request, resolve, reject }));
}

function batchLength(queue: Waiting[], documents: number): number {
  let chunks = queue[0].contributions.length;
  let n = 1;
  while (n < queue.length && n < documents && chunks + queue[n].contributions.length <= MAX_CONTRIBUTIONS) {
    chunks += queue[n].contributions.length;
    n++;
  }
  return n;
}

/** Settles every request of the batch; never throws. */
async function commitBatch(deps: IngestDeps, scope: Scope, batch: Waiting[]): Promise<void> {
  const lockIds = [...new Set(batch.flatMap((request) => request.lockIds))];
  try {
    await withAliasedEntityLock(deps.stores.kv, deps.entityLocks, scope, lockIds, async () => {
      const view = new MergeView(deps.stores, scope);
      // Reads ahead for the whole batch; what could not be read is read again by the merge that needs it, and
      // fails that merge alone if it still cannot be.
      await prefetchMerges(view, scope, batch).catch(() => undefined);
      let committed: Array<[Waiting, MergeOutcome]> = [];
      for (const request of batch) {
        // A merge reads everything before it writes, and writes only to the view: one that fails leaves the view as it was.
        try {
          request.onWrite?.();
          committed.push([
            request,
            await commitMerge({ stores: view }, scope, request.documentId, request.contributions, request.policy, request.outOfGraph),
          ]);
        } catch (err) {
          request.reject(err);
        }
      }
      if (committed.length === 0) return;
      try {
        await view.flush();
      } catch (err) {
        for (const [request] of committed) request.reject(err);
        return;
      }
      try {
        await linkAll(deps, scope, committed);
      } catch (err) {
        for (const [request] of committed) if (request.chunks) request.reject(err);
        committed = committed.filter(([request]) => !request.chunks);
      }
      try {
        await bumpIfChanged(
          deps,
          scope,
          committed.map(([, outcome]) => outcome),
        );
      } catch (err) {
        for (const [request] of committed) request.reject(err);
        return;
      }
      for (const [request, outcome] of committed) {
        try {
          await request.afterWrite(outcome);
          request.resolve(outcome);
        } catch (err) {
          request.reject(err);
        }
      }
    });
  } catch (err) {
    // The lock could not be taken (its store is unreachable): no merge of the batch ran. Settled ones stay as they are.
    for (const request of batch) request.reject(err);
  }
}

/** The chunks of the merges that brought theirs, written at once; each such outcome gets its document's counts. */
async function linkAll(deps: IngestDeps, scope: Scope, committed: Array<[MergeRequest, MergeOutcome]>): Promise<void> {
  const linking = committed.filter(([request]) => request.chunks);
  const linked = await Promise.all(
    linking.map(([request, outcome]) => linkMergedChunks(request.documentId, request.chunks as ChunkRecord[], outcome)),
  );
  await writeLinked(deps, scope, linked);
  linking.forEach(([, outcome], i) => (outcome.counts = linked[i].counts));
}

/** Once for the batch, before its changes are announced: a query after them never answers from keywords cached before. */
async function bumpIfChanged(deps: IngestDeps, scope: Scope, outcomes: MergeOutcome[]): Promise<void> {
  if (outcomes.some((outcome) => outcome.changes.length)) await bumpGraphVersion(deps.stores.kv, scope);
}
