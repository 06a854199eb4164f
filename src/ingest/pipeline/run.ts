import type { ChunkRecord, DocumentRecord, Scope } from '../../domain/types';
import type { EmbeddingProvider, LlmProvider, TokenUsage } from '../../llm/ports';
import type { IngestDeps } from '../deps';
import type { MergeClaim } from '../embed/claims';
import type { StageReporter, ProgressTracker } from './progress';
import type { SummaryPolicy } from '../merge';

/** The state of one processing run, shared by the pipeline stages. */
export interface Run {
  deps: IngestDeps;
  scope: Scope;
  doc: DocumentRecord;
  options: { mode: 'full' | 'retry_chunks'; signal?: AbortSignal; report?: StageReporter; owns?: () => Promise<boolean> };
  llm: LlmProvider;
  embedder: EmbeddingProvider;
  policy: SummaryPolicy;
  progress: ProgressTracker;
  started: number;
  llmCalls: number;
  usage: TokenUsage;
  chunks: ChunkRecord[];
  /** Set once this run's merge may have written to the graph. */
  merged: boolean;
  /** Set once the graph is known to hold nothing of the document: its merge need not read what it held. */
  outOfGraph: boolean;
  /** The document in flight, counted until its merge has queued its texts (../embed/claims.ts). */
  claim: MergeClaim;
  /**
   * Called once the run has asked resolution's shared calls about its pairs or passed resolution (or stopped): the
   * pairs other documents have waiting stop waiting for it (../verdict-queue.ts).
   */
  resolving: () => void;
  /** Chunks whose extraction call timed out. */
  timedOut?: Set<string>;
}

/** Thrown when a run is cancelled through its signal; `isAbortError` recognises it. */
export class IngestCancelledError extends Error {
  override readonly name = 'AbortError';
  constructor() {
    super('document processing was cancelled');
  }
}

/** Thrown when a run finds it no longer owns its document: the new owner's data is left alone. */
export class RunSupersededError extends Error {
  constructor() {
    super('document processing was taken over by another run');
  }
}

export function checkCancelled(run: Run): void {
  if (run.options.signal?.aborted) throw new IngestCancelledError();
}

export function addUsage(total: TokenUsage, more: TokenUsage): void {
  total.input_tokens += more.input_tokens;
  total.output_tokens += more.output_tokens;
}
