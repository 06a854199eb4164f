import { randomUUID } from 'node:crypto';
import { contentHash } from '../domain/ids';
import { UnavailableError } from '../domain/errors';
import type { ChunkRecord, DocumentExtraction, DocumentRecord, Scope } from '../domain/types';
import type { LlmProvider } from '../llm/ports';
import type { DocumentRevision } from '../graph/events';
import { summaryPolicy } from './deletion';
import type { IngestDeps } from './deps';
import { chunkItems, embedInto } from './embed/embed';
import { type CachedExtraction, deleteExtractions, EXTRACTION_NAMESPACE, extractFresh, isReusable, readExtractions } from './extract/cache';
import type { PageRange } from './loaders/types';
import {
  type Contribution,
  forgetNamesOf,
  mergeIntoGraph,
  type MergeOutcome,
  type SummaryJob,
  type SummaryPolicy,
  writeChunkLinks,
} from './merge';
import { deletePageMap, loadPageMap, savePageMap } from './chunk/pages';
import { buildChunks } from './chunk/records';
import { type Stage, stages } from './pipeline/stage';
import { resolveDocumentEntities } from './resolve-stage';
import { appendHistory, type UpdateAccount } from './history';
import { emptyTally, tallyingProviders, totalCalls } from './call-tally';
import { findPromptOverride } from '../prompts/overrides';
import { extractionFailure, summariseExtraction } from './extract/health';

/**
 * Replacing a completed document's content in place (docs/architecture.md §5.9). The new text is chunked;
 * a chunk whose text equals one of the previous chunks' reuses that chunk's extraction, the others are
 * extracted. Nothing is written until every extraction succeeded, so a failure leaves the previous version
 * as it was. Then, like a rerun: the cached extractions of the new chunk ids are written, the document's
 * records are rebuilt from their remaining sources (records left without a source are deleted, as in
 * deletion), changed chunks are re-embedded and the document record gets the new content and version.
 * A failure while writing restores the previous version. The caller serialises updates of one document.
 */

export interface UpdateInput {
  content: string;
  /** Of the content as received (the file's bytes for an upload). */
  contentHash: string;
  fileSize: number;
  title?: string;
  metadata?: Record<string, unknown>;
  /** Page ranges of a replaced PDF's text; null for text; undefined keeps the stored map. */
  pages?: PageRange[] | null;
}

export interface UpdateResult extends UpdateAccount {
  doc: DocumentRecord;
  processing_time_ms: number;
}

interface Version {
  chunks: ChunkRecord[];
  extractions: Map<string, CachedExtraction>;
  policy: SummaryPolicy;
}

/** An update under way: the document, its new content and the version it replaces. */
interface UpdateRun {
  deps: IngestDeps;
  scope: Scope;
  doc: DocumentRecord;
  input: UpdateInput;
  llm: LlmProvider;
  previous: Version;
}

/** The new version's chunks and extractions, and how many chunks were extracted (the others reused). */
interface Extracted {
  next: Version;
  extracted: number;
  health: DocumentExtraction;
}

interface Merged extends Extracted {
  merged: Written;
  /** Named in the graph changes the update writes: the community run that follows charges its report calls to it. */
  revision: DocumentRevision;
}

interface Resolved extends Merged {
  resolved: number;
}

/** The new text cut into chunks (with the page map given, or the stored one). */
const chunk: Stage<UpdateRun, void, ChunkRecord[]> = {
  name: 'chunk',
  async run({ deps, scope, doc, input }) {
    const pages = input.pages === undefined ? await loadPageMap(deps, scope, doc.id) : input.pages;
    return buildChunks(deps, doc.id, input.content, pages);
  },
};

/** A chunk whose text one of the previous chunks had reuses its extraction; the others are extracted. Nothing is written. */
const extract: Stage<UpdateRun, ChunkRecord[], Extracted> = {
  name: 'extract',
  async run({ deps, scope, doc, llm, previous }, chunks) {
    const override = findPromptOverride(deps.config.promptsDir, 'extraction', { workspaceId: scope.workspaceId, model: llm.model });
    const reusable = new Map<string, CachedExtraction>();
    for (const c of previous.chunks) {
      const entry = previous.extractions.get(c.id);
      if (c.extraction_status === 'completed' && isReusable(entry, c.content, llm, override)) reusable.set(entry.content_hash, entry);
    }
    const extractions = new Map<string, CachedExtraction>();
    const fresh = chunks.filter((c) => {
      const reused = reusable.get(contentHash(c.content));
      if (reused) extractions.set(c.id, reused);
      return !reused;
    });
    const options = {
      enableGleaning: doc.options?.enable_gleaning ?? true,
      maxGleaning: doc.options?.max_gleaning ?? deps.config.ingest.maxGleaning,
      override,
    };
    const outcomes = await Promise.allSettled(fresh.map((c) => extractFresh(llm, c, options)));
    outcomes.forEach((outcome, i) => {
      if (outcome.status === 'rejected') return;
      extractions.set(fresh[i].id, outcome.value.extraction);
    });
    const failed = outcomes.findIndex((o) => o.status === 'rejected');
    if (failed >= 0) {
      const reason = (outcomes[failed] as PromiseRejectedResult).reason as Error;
      throw new UnavailableError(
        `extraction of chunk ${fresh[failed].index} failed (${reason?.message ?? String(reason)}); the document keeps its previous version`,
        'llm_provider',
      );
    }
    for (const c of chunks) {
      const extraction = extractions.get(c.id) as CachedExtraction;
      c.extraction_status = 'completed';
      c.llm_model = extraction.llm_model;
    }
    // The model failing the new text (docs/api.md §4.1) is an extraction failure: the previous version stays.
    const health = summariseExtraction(chunks, extractions);
    const unusable = extractionFailure(health);
    if (unusable) {
      deps.log.warn({ document_id: doc.id, workspace_id: scope.workspaceId, extraction: health }, `document update refused: ${unusable}`);
      throw new UnavailableError(`${unusable}; the document keeps its previous version`, 'llm_provider');
    }
    const next: Version = { chunks, extractions, policy: summaryPolicy(deps, doc.options?.use_llm_summarization ?? true) };
    return { next, extracted: fresh.length, health };
  },
};

/** The new version written (graph merge, chunk vectors, chunks, page map); a failure restores the previous one. */
const merge: Stage<UpdateRun, Extracted, Merged> = {
  name: 'merge',
  async run({ deps, scope, doc, input, previous }, extracted) {
    const { next } = extracted;
    const revision: DocumentRevision = { version: (doc.version ?? 1) + 1, id: randomUUID() };
    try {
      const merged = await writeVersion(deps, scope, doc.id, previous, next, revision);
      if (input.pages !== undefined) {
        if (input.pages?.length) await savePageMap(deps, scope, doc.id, input.pages);
        else await deletePageMap(deps, scope, doc.id);
      }
      return { ...extracted, merged, revision };
    } catch (err) {
      deps.log.error({ err, document_id: doc.id }, 'document update failed while writing; restoring the previous version');
      await writeVersion(deps, scope, doc.id, next, previous).catch((restoreErr: unknown) =>
        deps.log.error({ err: restoreErr, document_id: doc.id }, 'restoring the previous version of a document did not finish'),
      );
      throw err;
    }
  },
};

const resolve: Stage<UpdateRun, Merged, Resolved> = {
  name: 'resolve',
  async run({ deps, scope, doc }, merged) {
    const resolved = await resolveDocumentEntities(deps, scope, merged.merged, { documentId: doc.id });
    return { ...merged, resolved: resolved.checked };
  },
};

/** An update: the new text chunked, extracted where it changed, written in place of the previous version, resolved. */
export const UPDATE = stages(chunk).then(extract).then(merge).then(resolve);

export async function updateDocumentContent(
  deps: IngestDeps,
  scope: Scope,
  doc: DocumentRecord,
  input: UpdateInput,
): Promise<UpdateResult> {
  const started = Date.now();
  // Every LLM call of the update, whichever stage makes it, is counted by kind (./call-tally.ts).
  const tally = emptyTally();
  deps = { ...deps, providers: tallyingProviders(deps.providers, tally) };
  const { stores } = deps;
  const llm = deps.llmCache.wrap(deps.providers.llm(), stores.kv, scope, { log: deps.log });
  const previousChunks = (await stores.chunks.listByDocument(scope, doc.id)).sort((a, b) => a.index - b.index);
  const previous: Version = {
    chunks: previousChunks,
    extractions: await readExtractions(
      stores.kv,
      scope,
      previousChunks.map((c) => c.id),
    ),
    policy: summaryPolicy(deps, doc.options?.use_llm_summarization ?? true),
  };
  const done = await UPDATE.run({ deps, scope, doc, input, llm, previous }, undefined);
  const { next, merged, revision } = done;
  const { chunks } = next;

  const now = new Date();
  const processingTime = now.getTime() - started;
  const updated = await stores.documents.update(scope, doc.id, {
    content: input.content,
    content_hash: input.contentHash,
    file_size: input.fileSize,
    ...(input.title !== undefined ? { title: input.title } : {}),
    ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
    status: 'completed',
    extraction: done.health,
    error: null,
    chunk_count: chunks.length,
    // The counts were written with the chunk links, and by the merges of resolution since: under the entity lock.
    version: revision.version,
    processed_at: now.toISOString(),
    processing_time_ms: processingTime,
    llm_model: llm.model,
    embedding_model: deps.providers.embedding().model,
    updated_at: now.toISOString(),
  });
  const previousTexts = new Set(chunks.map((c) => c.content));
  const account: UpdateAccount = {
    chunks_total: chunks.length,
    chunks_reused: chunks.length - done.extracted,
    chunks_extracted: done.extracted,
    chunks_removed: previous.chunks.filter((c) => !previousTexts.has(c.content)).length,
    llm_calls: totalCalls(tally),
    llm_calls_by_kind: { ...tally.calls },
    usage: { ...tally.usage },
    records_resummarised: merged.summarised ?? 0,
    entities_resolved: done.resolved,
    chunks_embedded: merged.chunksEmbedded,
    records_reembedded: merged.reembed.entities.length + merged.reembed.relationships.length,
  };
  await appendHistory(deps, scope, doc.id, {
    version: revision.version,
    at: now.toISOString(),
    processing_time_ms: processingTime,
    revision_id: revision.id,
    ...account,
  });
  return { doc: updated ?? doc, processing_time_ms: processingTime, ...account };
}

type Written = MergeOutcome & { chunksEmbedded: number };

/**
 * A summary the merge found due is written only for a record whose fragments changed: one that a chunk of only one
 * of the two versions names (the records a chunk names are read from its links, aliases followed). The records the
 * unchanged chunks alone name have the fragments they had, and keep the description the previous version left them
 * (a record past the summary threshold that no merge summarised, such as the survivor of a resolution merge, is not
 * summarised by an update that does not change its fragments).
 */
function changedRecords(from: Version, to: Version): (job: SummaryJob, outcome: MergeOutcome) => boolean {
  let touched: Set<string> | null = null;
  return (job, outcome) => {
    if (!touched) {
      touched = new Set();
      const add = (kind: string, ids: string[]) => ids.forEach((id) => touched?.add(`${kind}:${id}`));
      const oldTexts = new Set(from.chunks.map((c) => c.content));
      const newTexts = new Set(to.chunks.map((c) => c.content));
      for (const chunk of to.chunks) {
        if (oldTexts.has(chunk.content)) continue;
        const links = outcome.chunks.get(chunk.id);
        add('entity', links?.entity_ids ?? []);
        add('relationship', links?.relationship_ids ?? []);
      }
      for (const chunk of from.chunks) {
        if (newTexts.has(chunk.content)) continue;
        add('entity', chunk.entity_ids);
        add('relationship', chunk.relationship_ids);
      }
    }
    return touched.has(`${job.kind}:${job.id}`);
  };
}

/**
 * Moves the document's stored data from one version to the other: cached extractions under the chunk ids,
 * the graph merge of the new contributions, chunk vectors and chunk records. `revision` names the update in the
 * graph changes (none when a failed update's previous version is restored).
 */
async function writeVersion(
  deps: IngestDeps,
  scope: Scope,
  documentId: string,
  from: Version,
  to: Version,
  revision?: DocumentRevision,
): Promise<Written> {
  const { stores } = deps;
  const kept = new Map(to.chunks.map((c) => [c.id, c]));
  const before = new Map(from.chunks.map((c) => [c.id, c]));
  const removedIds = from.chunks.filter((c) => !kept.has(c.id)).map((c) => c.id);

  for (const chunk of to.chunks) {
    const extraction = to.extractions.get(chunk.id);
    if (extraction && from.extractions.get(chunk.id) !== extraction) await stores.kv.set(scope, EXTRACTION_NAMESPACE, chunk.id, extraction);
  }
  await deleteExtractions(stores.kv, scope, removedIds);

  const contributions: Contribution[] = to.chunks.map((c) => ({ chunkId: c.id, extraction: to.extractions.get(c.id) as CachedExtraction }));
  const embedder = deps.providers.embedding();
  const embed = { queues: deps.ingest.queues, concurrency: deps.config.ingest.embeddingConcurrency };
  const merged = await mergeIntoGraph(deps, scope, documentId, contributions, {
    policy: to.policy,
    cause: 'update',
    revision,
    embedder: () => embedder,
    vectors: 'defer',
    summaries: changedRecords(from, to),
  });
  const said = new Set(contributions.flatMap((c) => c.extraction.entities.map((e) => e.id)));
  const unsaid = [...from.extractions.values()].filter((e) => e.entities.some((x) => !said.has(x.id)));
  await forgetNamesOf(stores, deps.entityLocks, scope, unsaid);

  if (removedIds.length) await stores.vectors.delete(scope, 'chunk', removedIds);
  const changed = to.chunks.filter((c) => before.get(c.id)?.content !== c.content);
  await embedInto(stores.vectors, scope, 'chunk', embedder, chunkItems(changed), embed);
  for (const chunk of to.chunks) {
    chunk.embedding_model = embedder.model;
    const old = before.get(chunk.id);
    if (old && old.content === chunk.content) chunk.created_at = old.created_at;
  }
  // The new chunks are written before the old ones go: the document never has its graph records without chunks.
  await writeChunkLinks(deps, scope, documentId, to.chunks, contributions);
  await stores.chunks.deleteByDocument(
    scope,
    documentId,
    to.chunks.map((c) => c.id),
  );
  return Object.assign(merged, { chunksEmbedded: changed.length });
}
