import type { ChunkRecord, RelationshipRecord, Scope, VectorKind } from '../../domain/types';
import { isAbortError } from '../../domain/abort';
import { bumpGraphVersion } from '../../llm/cache/responses';
import { entityText, relationshipText } from '../../records/embed-text';
import type { DocumentRevision } from '../../graph/events';
import type { EmbeddingProvider } from '../../llm/ports';
import type { IngestDeps } from '../deps';
import { deleteGraphVectors, type EmbedOptions, embedGraphRecords, type GraphVectors } from '../embed/embed';
import type { Lane } from '../embed/queue';
import type { MergeClaim } from '../embed/claims';
import { affectedEntityIds, type Contribution, type MergeOutcome } from './merge';
import { entitiesAdded, type SummaryJob } from './merge-outcome';
import { commitInBatch } from './merge-batch';
import type { SummaryPolicy } from './summary';
import { storeVectorsInBatch } from './vector-batch';
import { applyInBatch } from './summary-batch';
import { summariseOutcome, withSummaries } from './summary-stage';

/**
 * A document's merge into the graph and its vectors, holding the entity lock only while records are read
 * and written: (1) under the lock, the merge with descriptions joined, committed in a batch with the merges of
 * the workspace that arrived meanwhile (./merge-batch.ts), and the vectors of removed records deleted;
 * (2) without it, the LLM summaries found due; (3) under the lock, those that still apply, with those other
 * documents wrote meanwhile (./summary-batch.ts); (4) without it, the changed records embedded; (5) under the
 * lock, the vectors of the records still as embedded written, with those other documents embedded meanwhile
 * (./vector-batch.ts). Documents sharing entities thus wait for each other's writes, never for the LLM.
 */

export interface MergeStageOptions {
  /** The entities the merge may rewrite, when the caller has read them (affectedEntityIds otherwise). */
  lockIds?: string[];
  /** The graph is known to hold nothing of the document (commitMerge). */
  outOfGraph?: boolean;
  /** How descriptions are summarised; its signal stops the embedding of the merged records too. */
  policy: SummaryPolicy;
  /** Why the graph changed, for the change events. */
  cause: string;
  /** The content update the merge writes, named in its change events (community reports are charged to it). */
  revision?: DocumentRevision;
  /** The embedding provider of the records (the runtime's when absent). */
  embedder?: () => EmbeddingProvider;
  /**
   * When the merged records are embedded. `wait`: before the merge returns. `defer`: records that had a vector
   * before the merge are re-embedded in the background, in the queue's `later` lane, so that the document does not
   * wait for them and a record many documents touch is embedded once per refresh window (so many documents merged);
   * new records are embedded before the merge returns. `optional`: as `wait`, but a
   * failure is logged and the records are embedded in the background (taking a document out must not depend on them).
   */
  vectors?: 'wait' | 'defer' | 'optional';
  /**
   * With `defer`: the relationships new to the graph that have an endpoint new to it are not embedded here but left
   * in the outcome (`held`), for entity resolution to embed once it has merged what it merges (stage `resolve`,
   * ../resolve-stage.ts): a merge of that endpoint rewrites them, and their text before it would be embedded in vain.
   */
  holdForResolution?: boolean;
  /** Of the summaries the merge found due, those to write (all when absent). */
  summaries?: (job: SummaryJob, outcome: MergeOutcome) => boolean;
  /** A document run's part in the merge. */
  run?: {
    /** The document's chunk records, written with the merge, linked to what it names (outcome.counts is set). */
    chunks: ChunkRecord[];
    /** The document's claim (../embed/claims.ts): open while it is in flight, given up once its texts are queued. */
    claim: MergeClaim;
    /** Called under the lock right before the first write. */
    onWrite: () => void;
    /** Called once records are merged and summarised, before embedding. */
    onMerged: () => Promise<void>;
  };
}

/** A background refresh that fails is tried again this many times, after a pause that doubles from REFRESH_RETRY_MS. */
const REFRESH_RETRIES = 4;
const REFRESH_RETRY_MS = 100;
/**
 * How many times in a row a record whose vector could not be written (its text changed while it was embedded) is
 * queued again. Each round follows a change made meanwhile; the bound keeps a record that changes without end from
 * keeping the queue busy. A catch-up's own write fails too when the text left for it in the queue is one a document
 * queued after a newer one: with one round, such records kept no vector (docs/benchmarks.md, generated corpus at two
 * loads).
 */
const CATCH_UP_ROUNDS = 4;

/** Waits until every queued embedding of the runtime is embedded and every background refresh has written its vectors. */
export function settleEmbeddingRefreshes(deps: Pick<IngestDeps, 'ingest'>): Promise<void> {
  return deps.ingest.settle();
}

export async function mergeIntoGraph(
  deps: IngestDeps,
  scope: Scope,
  documentId: string,
  contributions: Contribution[],
  options: MergeStageOptions,
): Promise<MergeOutcome> {
  const { stores, events, log } = deps;
  const { policy, run } = options;
  const announce = (changes: MergeOutcome['changes']) =>
    events.publish({
      scope,
      changes: [...changes],
      cause: options.cause,
      document_id: documentId,
      ...(options.revision ? { revision: options.revision } : {}),
    });
  const publish = async (changes: MergeOutcome['changes']) => {
    // Before the change is announced: a query after this merge never answers from keywords cached before it.
    if (changes.length) await bumpGraphVersion(stores.kv, scope);
    announce(changes);
  };

  const committed = await commitInBatch(deps, scope, {
    documentId,
    contributions,
    policy,
    lockIds: options.lockIds ?? (await affectedEntityIds(stores, scope, documentId, contributions, options.outOfGraph)),
    outOfGraph: options.outOfGraph,
    onWrite: run?.onWrite,
    chunks: run?.chunks,
    afterWrite: async (written) => {
      await deleteGraphVectors(stores.vectors, scope, written);
      // The batch moved the graph version on once for all its merges (./merge-batch.ts).
      announce(written.changes);
    },
  });

  const keep = options.summaries;
  const due = keep ? { due: committed.due.filter((job) => keep(job, committed)) } : committed;
  const made = await summariseOutcome(deps, scope, due, policy, (_deps, s, written, p) => applyInBatch(deps, s, written, p));
  const outcome = withSummaries(committed, made);
  if (made.changes.length) await publish(made.changes);
  if (outcome.summaryFailures.length) {
    log.warn({ document_id: documentId, failures: outcome.summaryFailures }, 'description summaries fell back to joined fragments');
  }
  await run?.onMerged();

  const background = backgroundJob(deps, scope, documentId, options.embedder);
  const embed = { ...background.embed, signal: policy.signal };
  let now: Pick<MergeOutcome, 'reembed'> = outcome;
  let held: RelationshipRecord[] = [];
  if (options.vectors === 'defer') {
    const [fresh, old] = splitByAge(outcome);
    [now, held] = options.holdForResolution ? splitByNewEndpoints(outcome, fresh) : [fresh, []];
    refreshInBackground(background, old, 'later');
  }
  const embedding = embedAndStore(background, now, embed);
  // Given up once this merge's texts are queued (the first slices are queued synchronously): the refresh window
  // counts this document from then on.
  run?.claim.release();
  try {
    const vectors = await embedding;
    return { ...outcome, entityVectors: new Map(vectors.entities.map((e) => [e.point.id, e.point.vector])), held };
  } catch (err) {
    if (options.vectors !== 'optional' || isAbortError(err)) throw err;
    log.warn({ err, document_id: documentId }, 'shared records could not be re-embedded after removing a document; trying again');
    // Their texts changed with the removal: they are embedded in the background, as a refresh is.
    refreshInBackground(background, now, 'later');
    return outcome;
  }
}

/** Embeds records (the `now` lane) and writes their vectors; those changed meanwhile are caught up in the background. */
async function embedAndStore(job: Background, change: Reembed, embed: EmbedOptions): Promise<GraphVectors> {
  const vectors = await embedGraphRecords(job.embedder, job.scope, change, embed);
  catchUp(job, await storeVectorsInBatch(job.deps, job.scope, vectors), 1);
  return vectors;
}

/**
 * Records embedded (the `now` lane) and their vectors written, each only if it still has the text embedded: the
 * relationships a merge held for entity resolution (`holdForResolution`), and the records resolution's merges wrote
 * with no vector. Resolves once their vectors are written.
 */
export async function embedRecordsNow(
  deps: IngestDeps,
  scope: Scope,
  documentId: string,
  records: Reembed['reembed'],
  signal?: AbortSignal,
): Promise<void> {
  if (records.entities.length === 0 && records.relationships.length === 0) return;
  const job = backgroundJob(deps, scope, documentId);
  await embedAndStore(job, { reembed: records }, { ...job.embed, signal });
}

interface Background {
  deps: IngestDeps;
  scope: Scope;
  documentId: string;
  embedder: () => EmbeddingProvider;
  embed: EmbedOptions;
}

/** Background work for a document: the embedding queue's, with no signal (it outlives the document's run). */
function backgroundJob(deps: IngestDeps, scope: Scope, documentId: string, embedder?: () => EmbeddingProvider): Background {
  const embed = { queues: deps.ingest.queues, concurrency: deps.config.ingest.embeddingConcurrency, signal: undefined };
  return { deps, scope, documentId, embedder: embedder ?? (() => deps.providers.embedding()), embed };
}

/**
 * Re-embeds records written with the vector of an earlier text (entity resolution's merges carry vectors to the
 * survivor and the rewritten relationships) in the background, as a refresh: the `later` lane, records deleted
 * meanwhile left out, each written only if it still has the text embedded.
 */
export function refreshCarriedVectors(deps: IngestDeps, scope: Scope, documentId: string, records: Reembed['reembed']): void {
  const job = backgroundJob(deps, scope, documentId);
  const fetched = currentRecords(job, { reembed: records }).then((current) => refreshInBackground(job, current, 'later'));
  const tracked = fetched
    .catch((err: unknown) =>
      deps.log.warn({ err, document_id: documentId }, 'records could not be re-embedded; they keep their previous vectors'),
    )
    .finally(() => deps.ingest.refreshes.delete(tracked));
  deps.ingest.refreshes.add(tracked);
}

/**
 * Embeds records and writes their vectors without the document waiting (settled by settleEmbeddingRefreshes);
 * the records changed meanwhile are caught up (catchUp), for at most CATCH_UP_ROUNDS rounds in a row.
 */
function refreshInBackground(job: Background, change: Reembed, lane: Lane, round = 0, attempt = 0): void {
  const { deps, scope, documentId } = job;
  if (change.reembed.entities.length === 0 && change.reembed.relationships.length === 0) return;
  const refresh = embedGraphRecords(job.embedder, scope, change, job.embed, lane)
    .then((vectors) => storeVectorsInBatch(deps, scope, vectors))
    .then((unwritten) => (round >= CATCH_UP_ROUNDS ? undefined : catchUp(job, unwritten, round + 1)))
    .catch(async (err: unknown) => {
      // A failed embedding (a batch shared with a text the provider refused, a provider down a moment) would
      // leave records with the vector of an older text, or none: tried again with the records as they are by then
      // (those deleted meanwhile dropped), each written only if it still has the text embedded (storeVectorsInBatch).
      if (attempt < REFRESH_RETRIES && !isAbortError(err)) {
        deps.log.warn({ err, document_id: documentId, attempt }, 'records could not be re-embedded; trying again');
        await new Promise((resolve) => setTimeout(resolve, REFRESH_RETRY_MS * 2 ** attempt));
        return refreshInBackground(job, await currentRecords(job, change), lane, round, attempt + 1);
      }
      deps.log.warn({ err, document_id: documentId }, 'records could not be re-embedded; they keep their previous vectors');
    })
    .finally(() => deps.ingest.refreshes.delete(refresh));
  deps.ingest.refreshes.add(refresh);
}

/**
 * Records whose vector was not written because they changed since they were embedded, and of which no text is
 * queued or being embedded any more, are queued again with their text as it is now. A record with a text still in
 * the queue is left to that text's writer, which catches it up in turn if that text is an older one (queued after
 * the newer by a slower document): the last of them gives the record the vector of its final text. So is a record
 * last embedded with the text it has now: that embedding's writer writes it. `round`: how many catch-ups led to
 * this one.
 */
function catchUp(job: Background, unwritten: Reembed, round: number): void {
  const queue = job.deps.ingest.queues.of(job.embedder(), job.embed.concurrency);
  const { scope } = job;
  const left = (kind: VectorKind, id: string, text: string) => !queue.has(scope, kind, id) && !queue.embeddedLast(scope, kind, id, text);
  const { entities, relationships } = unwritten.reembed;
  refreshInBackground(
    job,
    {
      reembed: {
        entities: entities.filter((e) => left('entity', e.id, entityText(e))),
        relationships: relationships.filter((r) => left('relationship', r.id, relationshipText(r))),
      },
    },
    'later',
    round,
  );
}

type Reembed = Pick<MergeOutcome, 'reembed'>;

/** The records of a change as the graph holds them now. */
async function currentRecords(job: Background, change: Reembed): Promise<Reembed> {
  const { graph } = job.deps.stores;
  const { entities, relationships } = change.reembed;
  return {
    reembed: {
      entities: await graph.getEntities(
        job.scope,
        entities.map((e) => e.id),
      ),
      relationships: await graph.getRelationships(
        job.scope,
        relationships.map((r) => r.id),
      ),
    },
  };
}

/** Of the records new to the graph, those the merge embeds, and the relationships with an endpoint new to it. */
function splitByNewEndpoints(outcome: MergeOutcome, fresh: Reembed): [Reembed, RelationshipRecord[]] {
  const added = entitiesAdded(outcome);
  const held = (r: RelationshipRecord) => added.has(r.source) || added.has(r.target);
  const { entities, relationships } = fresh.reembed;
  return [{ reembed: { entities, relationships: relationships.filter((r) => !held(r)) } }, relationships.filter(held)];
}

/** The records new to the graph, and those that had a vector before the merge. */
function splitByAge(outcome: MergeOutcome): [Pick<MergeOutcome, 'reembed'>, Pick<MergeOutcome, 'reembed'>] {
  const fresh = <R extends { id: string }>(records: R[]) => records.filter((r) => !outcome.existing.has(r.id));
  const old = <R extends { id: string }>(records: R[]) => records.filter((r) => outcome.existing.has(r.id));
  const { entities, relationships } = outcome.reembed;
  return [
    { reembed: { entities: fresh(entities), relationships: fresh(relationships) } },
    { reembed: { entities: old(entities), relationships: old(relationships) } },
  ];
}
