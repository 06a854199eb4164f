import { chunkId } from '../domain/ids';
import type { ChunkRecord, DocumentExtraction, Scope } from '../domain/types';
import { isAbortError } from '../domain/abort';
import { isOutage } from '../domain/errors';
import type { TokenUsage } from '../llm/ports';
import { discardDocumentRun, removeDocumentFromGraph, summaryPolicy } from './deletion';
import type { IngestDeps } from './deps';
import { chunkItems, embedInto } from './embed';
import type { DocumentCounts } from './chunk-links';
import { type CachedExtraction, deleteExtractions } from './extract/cache';
import { extractChunks } from './extraction-stage';
import { extractionFailure, summariseExtraction } from './health';
import { affectedEntityIds, type Contribution, type MergeOutcome } from './merge';
import { resolveDocumentEntities } from './resolve-stage';
import { mergeIntoGraph } from './merge-stage';
import { mergeClaims } from './merge-claims';
import { loadPageMap } from './pages';
import { chunkTextOffLoop } from './offload/chunk';
import type { PageRange } from './loaders/types';
import { ProgressTracker, type StageReporter } from './progress';
import { addUsage, checkCancelled, IngestCancelledError, type Run, RunSupersededError } from './run';
import { runWithUsageContext } from '../llm/usage';
import { withSpan } from '../llm/tracing';

export type { IngestDeps } from './deps';
export type { StageReporter } from './progress';
export { savePageMap } from './pages';
export { discardDocumentRun } from './deletion';
export { isAbortError, IngestCancelledError, RunSupersededError };

/**
 * The ingestion pipeline (docs/architecture.md §5): chunking, extraction, merging, embedding of one stored document.
 * A chunk that fails extraction fails the document, which then contributes nothing to the graph; its
 * successful chunks stay cached so that `retry_chunks` only extracts the failed ones before merging.
 */

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
    claim: mergeClaims.claim(scope),
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
  }
}

async function execute(run: Run): Promise<ProcessResult> {
  const { deps, scope, doc, options, progress } = run;
  await progress.stage('chunking', 'running');
  const existing = options.mode === 'retry_chunks' ? await deps.stores.chunks.listByDocument(scope, doc.id) : [];
  run.chunks = existing.length ? existing.sort((a, b) => a.index - b.index) : await chunkDocument(run);
  progress.stats.chunks_total = run.chunks.length;
  await progress.stage('chunking', 'completed');
  checkCancelled(run);

  await progress.stage('extraction', 'running');
  const extracted = await extractChunks(run);
  checkCancelled(run);
  await deps.stores.chunks.upsertMany(scope, run.chunks);
  const health = summariseExtraction(run.chunks, extracted, run.timedOut);
  const failed = run.chunks.filter((c) => c.extraction_status === 'failed');
  if (failed.length) {
    const first = failed[0];
    return fail(
      run,
      `${failed.length} of ${run.chunks.length} chunks failed extraction; first error (chunk ${first.index}): ${first.extraction_error}`,
      health,
    );
  }
  const unusable = extractionFailure(health);
  if (unusable) {
    deps.log.warn({ document_id: doc.id, workspace_id: scope.workspaceId, extraction: health }, `document failed: ${unusable}`);
    return fail(run, unusable, health);
  }
  if (health.warnings.length) {
    deps.log.warn(
      { document_id: doc.id, workspace_id: scope.workspaceId, warnings: health.warnings.map((w) => w.code), extraction: health },
      `document extraction warnings: ${health.warnings.map((w) => w.message).join('; ')}`,
    );
  }
  await progress.stage('extraction', 'completed');

  await progress.stage('merging', 'running');
  const contributions: Contribution[] = run.chunks.map((c) => ({ chunkId: c.id, extraction: extracted.get(c.id) as CachedExtraction }));
  const lockIds = await affectedEntityIds(deps.stores, scope, doc.id, contributions, run.outOfGraph);
  // The chunks are written with the merge, before their vectors: a run that fails after it is rolled back.
  for (const chunk of run.chunks) chunk.embedding_model = run.embedder.model;
  const merged = await withSpan('ingest.merge', { chunks: contributions.length }, () =>
    mergeIntoGraph(deps, scope, doc.id, contributions, {
      lockIds,
      policy: run.policy,
      cause: 'ingest',
      embedder: () => run.embedder,
      embed: embedOptions(run),
      deferRefresh: true,
      claim: run.claim,
      outOfGraph: run.outOfGraph,
      // Written with the merge, linked to what they name, under the lock it holds: not in an acquisition of their own.
      chunks: run.chunks,
      // Set before the writes: a merge that fails half-way is rolled back too.
      onWrite: () => (run.merged = true),
      onMerged: async () => {
        await progress.stage('merging', 'completed');
        await progress.stage('embedding', 'running');
      },
    }),
  );
  run.llmCalls += merged.llm_calls;
  addUsage(run.usage, merged.usage);
  progress.stats.entities_found = merged.entityIds.length;
  progress.stats.relationships_found = merged.relationshipIds.length;

  await withSpan('ingest.embed', { chunks: run.chunks.length }, () =>
    embedInto(deps.stores.vectors, scope, 'chunk', run.embedder, chunkItems(run.chunks), {
      ...embedOptions(run),
      onProgress: (done) => progress.within('embedding', done / Math.max(1, run.chunks.length)),
    }),
  );
  // Written with the chunk links (what the document's chunks name), by the merge.
  const linked = merged.counts ?? { entities: merged.entityIds.length, relationships: merged.relationshipIds.length };
  const counts = await resolveAndCount(run, merged, linked);

  const now = new Date();
  const result: ProcessResult = {
    status: 'completed',
    chunk_count: run.chunks.length,
    entity_count: counts.entities,
    relationship_count: counts.relationships,
    failed_chunks: [],
    error: null,
    processing_time_ms: now.getTime() - run.started,
    llm_calls: run.llmCalls,
    usage: run.usage,
  };
  await ensureOwned(run);
  await deps.stores.documents.update(scope, doc.id, {
    status: 'completed',
    chunk_count: result.chunk_count,
    // The counts were written with the chunk links, and by the merges of resolution since: under the entity lock.
    error: null,
    processed_at: now.toISOString(),
    processing_time_ms: result.processing_time_ms,
    llm_model: run.llm.model,
    embedding_model: run.embedder.model,
    extraction: health,
    updated_at: now.toISOString(),
  });
  await progress.stage('embedding', 'completed');
  return result;
}

/** Entity resolution of what the document added; the document's counts after it. */
async function resolveAndCount(run: Run, merged: MergeOutcome, linked: DocumentCounts): Promise<DocumentCounts> {
  const { deps, scope, doc } = run;
  const resolved = await resolveDocumentEntities(deps, scope, merged);
  run.llmCalls += resolved.llm_calls;
  addUsage(run.usage, resolved.usage);
  if (resolved.merged === 0) return linked;
  // Each merge recounted the documents it touched, this one among them (graph/merge.ts): no second count of the graph.
  const stored = await deps.stores.documents.get(scope, doc.id);
  return stored ? { entities: stored.entity_count, relationships: stored.relationship_count } : linked;
}

/**
 * A full run starts clean: earlier chunks, their vectors and graph contributions go (the graph then holds nothing
 * of the document, and its merge need not read what it held); the cache stays.
 */
async function chunkDocument(run: Run): Promise<ChunkRecord[]> {
  const { deps, scope, doc } = run;
  const previous = await deps.stores.chunks.listByDocument(scope, doc.id);
  const removed = await removeDocumentFromGraph(deps, scope, doc.id, { ...run.policy, signal: undefined }, 'reprocess');
  run.llmCalls += removed?.llm_calls ?? 0;
  run.outOfGraph = true;
  if (previous.length) {
    await deps.stores.vectors.delete(
      scope,
      'chunk',
      previous.map((c) => c.id),
    );
    await deps.stores.chunks.deleteByDocument(scope, doc.id);
  }
  const chunks = await buildChunks(deps, doc.id, doc.content, await loadPageMap(deps, scope, doc.id));
  const kept = new Set(chunks.map((c) => c.id));
  await deleteExtractions(
    deps.stores.kv,
    scope,
    previous.map((c) => c.id).filter((id) => !kept.has(id)),
  );
  await deps.stores.chunks.upsertMany(scope, chunks);
  return chunks;
}

/** The chunk records of a document's text (ids by index), not yet extracted; a long text is cut off the event loop. */
export async function buildChunks(
  deps: Pick<IngestDeps, 'config' | 'cpu'>,
  documentId: string,
  content: string,
  pages: PageRange[] | null,
): Promise<ChunkRecord[]> {
  const { chunkTokens, chunkOverlapTokens } = deps.config.ingest;
  const chunks = await chunkTextOffLoop(deps.cpu, content, { chunkTokens, overlapTokens: chunkOverlapTokens, pages });
  const now = new Date().toISOString();
  return chunks.map((c) => ({
    id: chunkId(documentId, c.index),
    document_id: documentId,
    index: c.index,
    content: c.content,
    tokens: c.tokens,
    char_start: c.char_start,
    char_end: c.char_end,
    start_line: c.start_line,
    end_line: c.end_line,
    page_start: c.page_start,
    page_end: c.page_end,
    extraction_status: 'pending',
    extraction_error: null,
    entity_ids: [],
    relationship_ids: [],
    llm_model: null,
    embedding_model: null,
    created_at: now,
  }));
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

function embedOptions(run: Run) {
  return { concurrency: run.deps.config.ingest.embeddingConcurrency, signal: run.options.signal };
}
