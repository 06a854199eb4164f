import type { ChunkRecord, DocumentExtraction } from '../../domain/types';
import { withSpan } from '../../llm/tracing';
import { removeDocumentFromGraph } from '../deletion';
import { buildChunks } from '../chunk/records';
import { loadPageMap } from '../chunk/pages';
import { chunkItems, embedInto } from '../embed/embed';
import { type CachedExtraction, deleteExtractions } from '../extract/cache';
import { extractionFailure, summariseExtraction } from '../extract/health';
import { extractChunks } from '../extract/stage';
import { type Contribution, type DocumentCounts, mergeIntoGraph, type MergeOutcome } from '../merge';
import { resolveDocumentEntities } from '../resolve-stage';
import { type ResolutionSettings, resolutionSettings } from '../../graph/resolution/settings';
import { addUsage, checkCancelled, type Run } from './run';
import type { Stage } from './stage';

/**
 * The stages of a document run (docs/architecture.md §5): chunk, extract, merge, embed, resolve. Each takes the
 * result of the one before; a document the extraction fails stops the list with DocumentFailed.
 */

/** The document's chunks and their extractions, with the extraction's health. */
export interface Extracted {
  chunks: ChunkRecord[];
  extractions: Map<string, CachedExtraction>;
  health: DocumentExtraction;
}

/** The document merged into the graph. */
export interface Merged {
  chunks: ChunkRecord[];
  health: DocumentExtraction;
  outcome: MergeOutcome;
  /** The chunk vectors being written (stage `embed`), awaited by stage `resolve`, which runs meanwhile. */
  chunkVectors?: Promise<void>;
  /** The workspace's resolution settings, read before the merge (it holds relationships back for resolution). */
  resolution: ResolutionSettings;
}

/** The document once its entities are resolved. */
export interface Resolved {
  chunks: ChunkRecord[];
  health: DocumentExtraction;
  /** Its counts as its merge wrote them; resolution's merges may have changed the stored ones since. */
  counts: DocumentCounts;
}

/** The extraction failed the document: it is marked failed, with the extraction's health, and keeps nothing in the graph. */
export class DocumentFailed extends Error {
  constructor(
    message: string,
    readonly extraction: DocumentExtraction,
  ) {
    super(message);
  }
}

/** A full run (first ingestion, reprocessing): what an earlier run left goes, the text is cut afresh. */
export const chunk: Stage<Run, void, ChunkRecord[]> = {
  name: 'chunk',
  run: (run) => chunking(run, () => chunkDocument(run)),
};

/** retry_chunks: the chunks stored (their extractions cached but the failed ones), or a fresh cut when none are. */
export const storedChunks: Stage<Run, void, ChunkRecord[]> = {
  name: 'chunk',
  run: (run) =>
    chunking(run, async () => {
      const existing = await run.deps.stores.chunks.listByDocument(run.scope, run.doc.id);
      return existing.length ? existing.sort((a, b) => a.index - b.index) : chunkDocument(run);
    }),
};

export const extract: Stage<Run, ChunkRecord[], Extracted> = {
  name: 'extract',
  async run(run, chunks) {
    const { deps, scope, doc, progress } = run;
    await progress.stage('extraction', 'running');
    const extractions = await extractChunks(run);
    checkCancelled(run);
    await deps.stores.chunks.upsertMany(scope, chunks);
    const health = summariseExtraction(chunks, extractions, run.timedOut);
    const failed = chunks.filter((c) => c.extraction_status === 'failed');
    if (failed.length) {
      const first = failed[0];
      throw new DocumentFailed(
        `${failed.length} of ${chunks.length} chunks failed extraction; first error (chunk ${first.index}): ${first.extraction_error}`,
        health,
      );
    }
    const unusable = extractionFailure(health);
    if (unusable) {
      deps.log.warn({ document_id: doc.id, workspace_id: scope.workspaceId, extraction: health }, `document failed: ${unusable}`);
      throw new DocumentFailed(unusable, health);
    }
    if (health.warnings.length) {
      deps.log.warn(
        { document_id: doc.id, workspace_id: scope.workspaceId, warnings: health.warnings.map((w) => w.code), extraction: health },
        `document extraction warnings: ${health.warnings.map((w) => w.message).join('; ')}`,
      );
    }
    await progress.stage('extraction', 'completed');
    return { chunks, extractions, health };
  },
};

export const merge: Stage<Run, Extracted, Merged> = {
  name: 'merge',
  async run(run, { chunks, extractions, health }) {
    const { deps, scope, doc, progress } = run;
    await progress.stage('merging', 'running');
    const contributions: Contribution[] = chunks.map((c) => ({ chunkId: c.id, extraction: extractions.get(c.id) as CachedExtraction }));
    // The chunks are written with the merge, before their vectors: a run that fails after it is rolled back.
    for (const c of chunks) c.embedding_model = run.embedder.model;
    const resolution = await resolutionSettings(deps.stores.kv, scope, deps.config.resolution);
    const outcome = await withSpan('ingest.merge', { chunks: contributions.length }, () =>
      mergeIntoGraph(deps, scope, doc.id, contributions, {
        policy: run.policy,
        cause: 'ingest',
        embedder: () => run.embedder,
        vectors: 'defer',
        holdForResolution: resolution.enabled,
        outOfGraph: run.outOfGraph,
        run: {
          // Written with the merge, linked to what they name, under the lock it holds: not in an acquisition of their own.
          chunks,
          claim: run.claim,
          // Set before the writes: a merge that fails half-way is rolled back too.
          onWrite: () => (run.merged = true),
          onMerged: async () => {
            await progress.stage('merging', 'completed');
            await progress.stage('embedding', 'running');
          },
        },
      }),
    );
    run.llmCalls += outcome.llm_calls;
    addUsage(run.usage, outcome.usage);
    progress.stats.entities_found = outcome.entityIds.length;
    progress.stats.relationships_found = outcome.relationshipIds.length;
    return { chunks, health, outcome, resolution };
  },
};

/**
 * The chunk vectors (those of the records the merge wrote were written by it), started here and awaited by stage
 * `resolve`: nothing in resolution waits for them.
 */
export const embed: Stage<Run, Merged, Merged> = {
  name: 'embed',
  async run(run, merged) {
    const { deps, scope, progress } = run;
    const { chunks } = merged;
    const chunkVectors = withSpan('ingest.embed', { chunks: chunks.length }, () =>
      embedInto(deps.stores.vectors, scope, 'chunk', run.embedder, chunkItems(chunks), {
        ...embedOptions(run),
        onProgress: (done) => progress.within('embedding', done / Math.max(1, chunks.length)),
      }),
    ).then(() => undefined);
    // Awaited by stage `resolve`; a failure is not unhandled meanwhile.
    chunkVectors.catch(() => undefined);
    return { ...merged, chunkVectors };
  },
};

/**
 * Entity resolution of what the document added, while the chunk vectors are written. The chunk vectors are written when the stage ends, even when resolution fails: a run rolled back after it
 * leaves no vector behind.
 */
export const resolve: Stage<Run, Merged, Resolved> = {
  name: 'resolve',
  async run(run, { chunks, health, outcome, chunkVectors, resolution }) {
    const { deps, scope, doc } = run;
    // Written with the chunk links (what the document's chunks name), by the merge.
    const linked = outcome.counts ?? { entities: outcome.entityIds.length, relationships: outcome.relationshipIds.length };
    const resolving = (async () => {
      try {
        return await resolveDocumentEntities(deps, scope, outcome, {
          documentId: doc.id,
          asked: run.resolving,
          settings: resolution,
          signal: run.options.signal,
        });
      } finally {
        run.resolving();
      }
    })();
    const [resolvedOr, vectors] = await Promise.allSettled([resolving, chunkVectors]);
    if (resolvedOr.status === 'rejected') throw resolvedOr.reason;
    if (vectors.status === 'rejected') throw vectors.reason;
    const resolved = resolvedOr.value;
    run.llmCalls += resolved.llm_calls;
    addUsage(run.usage, resolved.usage);
    // Each merge recounted the documents it touched, this one among them (graph/merge.ts): the completion's write
    // reads the counts back, no second count of the graph and no read of the document here.
    return { chunks, health, counts: linked };
  },
};

async function chunking(run: Run, cut: () => Promise<ChunkRecord[]>): Promise<ChunkRecord[]> {
  await run.progress.stage('chunking', 'running');
  run.chunks = await cut();
  run.progress.stats.chunks_total = run.chunks.length;
  await run.progress.stage('chunking', 'completed');
  checkCancelled(run);
  return run.chunks;
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

function embedOptions(run: Run) {
  return { queues: run.deps.ingest.queues, concurrency: run.deps.config.ingest.embeddingConcurrency, signal: run.options.signal };
}
