import { MergeClaims } from './embed/claims';
import { EmbeddingQueues } from './embed/queue';
import { RuntimeBatches } from './batches';
import { VerdictQueue } from './verdict-queue';

/**
 * What ingestion keeps between documents, one per runtime (on the ingest deps as `ingest`): the documents in flight,
 * the embedding queues, resolution's shared confirmation calls, the merges, summaries and
 * vectors waiting for their workspace's batch, the background refreshes of record vectors still writing, the records
 * held for summarising. Closed before the stores are.
 */
export interface IngestState {
  /** The documents in flight, counted (./embed/claims.ts). */
  readonly claims: MergeClaims;
  /** One embedding queue per provider, shared by every document in flight (./embed/queue.ts). */
  readonly queues: EmbeddingQueues;
  /** Entity resolution's confirmation calls, shared by the documents in flight of a workspace (./verdict-queue.ts). */
  readonly verdicts: VerdictQueue;
  /** The merges, summaries and vectors of each workspace waiting for the batch committing before them (./batches.ts). */
  readonly batches: RuntimeBatches;
  /** Background refreshes of record vectors still writing (./merge/merge-stage.ts). */
  readonly refreshes: Set<Promise<void>>;
  /** Records held by a document of this runtime for summarising, by workspace and record key (./merge/summary-stage.ts). */
  readonly held: Map<string, { again: boolean }>;
  /** Waits until every queued embedding is embedded and every background refresh has written its vectors. */
  settle(): Promise<void>;
  /** Settles what is under way, batches included; the runtime calls it on shutdown, before the stores close. */
  close(): Promise<void>;
}

export function createIngestState(): IngestState {
  const claims = new MergeClaims();
  const queues = new EmbeddingQueues(claims);
  const batches = new RuntimeBatches();
  const verdicts = new VerdictQueue(claims);
  const refreshes = new Set<Promise<void>>();
  const settle = async () => {
    do {
      await queues.settle();
      await Promise.all([...refreshes]);
    } while (refreshes.size > 0);
  };
  // A batch's merges queue embeddings and refreshes; a refresh writes its vectors in a batch.
  const close = async () => {
    do {
      await batches.settle();
      await settle();
    } while (batches.busy);
  };
  return { claims, queues, verdicts, batches, refreshes, held: new Map(), settle, close };
}
