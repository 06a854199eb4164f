import type { DocumentExtraction, Scope } from '../../domain/types';
import { isAbortError } from '../../domain/abort';
import { isOutage } from '../../domain/errors';
import type { TokenUsage } from '../../llm/ports';
import { discardDocumentRun, summaryPolicy } from '../deletion';
import type { IngestDeps } from '../deps';
import { ProgressTracker, type StageReporter } from './progress';
import { IngestCancelledError, type Run, RunSupersededError } from './run';
import { stages } from './stage';
import { chunk, DocumentFailed, embed, extract, merge, resolve, type Resolved, storedChunks } from './stages';
import { runWithUsageContext } from '../../llm/usage';
import { withSpan } from '../../llm/tracing';

export type { IngestDeps } from '../deps';
export type { StageReporter } from './progress';
export { savePageMap } from '../chunk/pages';
export { buildChunks } from '../chunk/records';
export { discardDocumentRun } from '../deletion';
export { isAbortError, IngestCancelledError, RunSupersededError };

/**
 * The ingestion pipeline (docs/architecture.md §5): chunking, extraction, merging, embedding of one stored document.
 * A chunk that fails extraction fails the document, which then contributes nothing to the graph; its
 * successful chunks stay cached so that `retry_chunks` only extracts the failed ones before merging.
 */

/** A first run, and reprocessing: the text cut afresh, every chunk extracted (from the cache where it holds them). */
export const FULL_RUN = stages(chunk).then(extract).then(merge).then(embed).then(resolve);
/** A failed document's retry: its stored chunks, only the failed ones extracted again. */
export const RETRY_CHUNKS = stages(storedChunks).then(extract).then(merge).then(embed).then(resolve);

export interface ProcessOptions {
  mode: 'full' | 'retry_chunks';
  signal?: AbortSignal;
  report?: StageReporter;
  /**
   * Whether this run still owns the document (its task was not taken over after a lost lease). Asked before
   * the run rolls back or writes the document's outcome; a run that no longer owns it leaves both to the new
   * owner and throws RunSupersededError.
   */
  owns?: () => Promise<boolean>;
}

export interface ProcessResult {
  status: 'completed' | 'failed';
  chunk_count: number;
  entity_count: number;
  relationship_count: number;
  failed_chunks: number[];
  error: string | null;
  processing_time_ms: number;
  llm_calls: number;
  usage?: TokenUsage;
}

export function processDocument(deps: IngestDeps, scope: Scope, documentId: string, options: ProcessOptions): Promise<ProcessResult> {
  // Every provider call of the run is the document's cost (docs/api.md §4.8).
  const usage = { workspace_id: scope.workspaceId, tenant_id: scope.tenantId, document_id: documentId };
  return runWithUsageContext(usage, () =>
    withSpan('ingest.document', { document_id: documentId, workspace_id: scope.workspaceId, mode: options.mode }, () =>
      processDocumentRun(deps, scope, documentId, options),
    ),
  );
}

async function processDocumentRun(deps: IngestDeps, scope: Scope, documentId: string, options: ProcessOptions): Promise<ProcessResult> {
  const doc = await deps.stores.documents.get(scope, documentId);
  if (!doc) throw new Error(`document ${documentId} not found`);
  const run: Run = {
    deps,
    scope,
    doc,
    options,
    llm: deps.llmCache.wrap(deps.providers.llm(), deps.stores.kv, scope, { log: deps.log }),
    embedder: deps.providers.embedding(),
    policy: summaryPolicy(deps, doc.options?.use_llm_summarization ?? true, options.signal),
    progress: new ProgressTracker(options.report, deps.log),
    started: Date.now(),
    llmCalls: 0,
    usage: { input_tokens: 0, output_tokens: 0 },
    chunks: [],
    merged: false,
    outOfGraph: false,
    claim: deps.ingest.claims.claim(),
    resolving: deps.ingest.verdicts.expect(scope),
  };
  try {
    return await execute(run);
  } catch (err) {
    if (err instanceof RunSupersededError) throw err;
    await ensureOwned(run);
    if (options.signal?.aborted) {
      await rollback(run, options.mode === 'full');
      throw new IngestCancelledError();
    }
    if (isOutage(err)) {
      // A dependency is down: the run is undone as far as it can be, the document is not failed, and the task
      // goes back to the queue to run again once the dependency answers (src/services/tasks/queue.ts).
      deps.log.warn({ err, document_id: documentId }, 'document processing stopped: a dependency is unreachable');
      await rollback(run, false);
      throw err;
    }
    deps.log.error({ err, document_id: documentId }, 'document processing failed');
    const reason = `processing failed: ${(err as Error).message ?? String(err)}`;
    // A failed document keeps nothing in the graph, so it is not marked failed half-undone: when a dependency
    // stops the undo, the run goes back to the queue as after an outage (the next run starts by taking the
    // document out); any other error leaves the undo to the task runner, which tries it again (tasks/runner.ts).
    const stopped = await rollback(run, false);
    if (stopped !== null) throw isOutage(stopped) ? stopped : new Error(`${reason}; its undo stopped: ${errorText(stopped)}`);
    return fail(run, reason);
  } finally {
    run.claim.release();
    run.resolving();
  }
}

async function execute(run: Run): Promise<ProcessResult> {
  const list = run.options.mode === 'retry_chunks' ? RETRY_CHUNKS : FULL_RUN;
  let done: Resolved;
  try {
    done = await list.run(run, undefined);
  } catch (err) {
    if (err instanceof DocumentFailed) return fail(run, err.message, err.extraction);
    throw err;
  }
  return complete(run, done);
}

/** The document's outcome once every stage ran. */
async function complete(run: Run, { chunks, health, counts }: Resolved): Promise<ProcessResult> {
  const { deps, scope, doc, progress } = run;
  const now = new Date();
  const processingMs = now.getTime() - run.started;
  await ensureOwned(run);
  // The counts were written with the chunk links, and by the merges of resolution since (under the entity lock):
  // read back with this write.
  const stored = await deps.stores.documents.update(scope, doc.id, {
    status: 'completed',
    chunk_count: chunks.length,
    error: null,
    processed_at: now.toISOString(),
    processing_time_ms: processingMs,
    llm_model: run.llm.model,
    embedding_model: run.embedder.model,
    extraction: health,
    updated_at: now.toISOString(),
  });
  await progress.stage('embedding', 'completed');
  return {
    status: 'completed',
    chunk_count: chunks.length,
    entity_count: stored?.entity_count ?? counts.entities,
    relationship_count: stored?.relationship_count ?? counts.relationships,
    failed_chunks: [],
    error: null,
    processing_time_ms: processingMs,
    llm_calls: run.llmCalls,
    usage: run.usage,
  };
}

/**
 * Undoes what a run left in the graph and vector stores (and, with `removeChunks`, its chunks); the error that
 * stopped the undo, or null once it is complete.
 */
async function rollback(run: Run, removeChunks: boolean): Promise<unknown> {
  const { deps, scope, doc } = run;
  try {
    await discardDocumentRun(deps, scope, doc.id, { removeChunks, merged: run.merged });
    return null;
  } catch (err) {
    deps.log.error({ err, document_id: doc.id }, 'cleanup after a failed or cancelled run did not finish');
    return err ?? new Error('cleanup failed');
  }
}

/** A run taken over by another (its task lease was lost) must neither roll back nor write the document's outcome. */
async function ensureOwned(run: Run): Promise<void> {
  if (run.options.owns && !(await run.options.owns())) throw new RunSupersededError();
}

async function fail(run: Run, error: string, extraction: DocumentExtraction | null = null): Promise<ProcessResult> {
  const now = new Date();
  const result: ProcessResult = {
    status: 'failed',
    chunk_count: run.chunks.length,
    entity_count: 0,
    relationship_count: 0,
    failed_chunks: run.chunks.filter((c) => c.extraction_status === 'failed').map((c) => c.index),
    error,
    processing_time_ms: now.getTime() - run.started,
    llm_calls: run.llmCalls,
    usage: run.usage,
  };
  await ensureOwned(run);
  await run.deps.stores.documents.update(run.scope, run.doc.id, {
    status: 'failed',
    error,
    chunk_count: result.chunk_count,
    entity_count: 0,
    relationship_count: 0,
    processing_time_ms: result.processing_time_ms,
    llm_model: run.llm.model,
    extraction,
    updated_at: now.toISOString(),
  });
  return result;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
