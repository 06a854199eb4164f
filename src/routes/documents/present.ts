import type { DeletionImpact } from '../../ingest/deletion';
import type { HistoryEntry, UpdateAccount } from '../../ingest/history';
import type { DocumentRecord } from '../../domain/types';
import type { CreateOutcome, IngestRequest, UpdateResult } from '../../services/documents';
import type { BatchFields, CreateDocumentBody, UploadFields } from './schemas';

/**
 * 201 with the stored result of a synchronous run; 202 with the task of a queued (or interrupted) one.
 * EdgeQuake's names ride beside the spec's: `document_id` (= `id`), and `track_id`, which is the task to follow
 * (`GET /documents/track/{track_id}`) unless the client chose its own.
 */
export function presentCreated(outcome: CreateOutcome): { status: number; body: Record<string, unknown> } {
  const { doc } = outcome;
  if (outcome.kind === 'queued' || outcome.report.status === 'interrupted') {
    return {
      status: 202,
      body: {
        id: doc.id,
        document_id: doc.id,
        title: doc.title,
        status: 'processing',
        task_id: doc.task_id,
        message: `document queued for processing; follow GET /api/v1/tasks/${doc.task_id}`,
        track_id: doc.track_id ?? doc.task_id,
      },
    };
  }
  const completed = outcome.report.status === 'completed';
  return {
    status: 201,
    body: {
      id: doc.id,
      document_id: doc.id,
      title: doc.title,
      status: completed ? 'completed' : 'failed',
      content_hash: doc.content_hash,
      chunk_count: doc.chunk_count,
      entity_count: doc.entity_count,
      relationship_count: doc.relationship_count,
      created_at: doc.created_at,
      processing_time_ms: Math.round(doc.processing_time_ms ?? outcome.report.processingTimeMs ?? 0),
      error: completed ? null : (doc.error ?? outcome.report.error ?? 'processing failed'),
      track_id: doc.track_id,
      warnings: doc.extraction?.warnings ?? [],
    },
  };
}

export function presentListItem(doc: DocumentRecord) {
  return {
    id: doc.id,
    title: doc.title,
    status: doc.status,
    chunk_count: doc.chunk_count,
    created_at: doc.created_at,
    // Beside the spec's fields, what EdgeQuake's clients read from a list item.
    entity_count: doc.entity_count,
    relationship_count: doc.relationship_count,
    file_size: doc.file_size,
    updated_at: doc.updated_at,
    track_id: doc.track_id,
    error_message: doc.error,
    warnings: doc.extraction?.warnings ?? [],
  };
}

/** A page of documents: `limit`/`offset` as the spec has them, `page`/`page_size` as EdgeQuake's clients ask. */
export function presentList(items: DocumentRecord[], total: number, limit: number, offset: number) {
  const pageSize = limit;
  return {
    documents: items.map(presentListItem),
    total,
    limit,
    offset,
    page: Math.floor(offset / pageSize) + 1,
    page_size: pageSize,
    total_pages: Math.ceil(total / pageSize),
    has_more: offset + items.length < total,
  };
}

export function presentDetail(doc: DocumentRecord) {
  return {
    ...presentListItem(doc),
    // EdgeQuake's detail carries the text and these names too.
    content: doc.content,
    file_name: doc.file_path.split('/').pop() ?? doc.file_path,
    file_type: doc.document_type,
    completed_at: doc.processed_at,
    content_hash: doc.content_hash,
    entity_count: doc.entity_count,
    relationship_count: doc.relationship_count,
    file_path: doc.file_path,
    file_size: doc.file_size,
    document_type: doc.document_type,
    source: doc.source,
    metadata: doc.metadata,
    updated_at: doc.updated_at,
    processed_at: doc.processed_at,
    processing_time_ms: doc.processing_time_ms === null ? null : Math.round(doc.processing_time_ms),
    error: doc.error,
    track_id: doc.track_id,
    task_id: doc.task_id,
    version: doc.version ?? 1,
    // Summaries written before overrides were recorded have no prompt_override.
    extraction: doc.extraction ? { ...doc.extraction, prompt_override: doc.extraction.prompt_override ?? null } : null,
  };
}

export function requestFromBody(body: CreateDocumentBody): IngestRequest {
  return {
    title: body.title ?? undefined,
    source: body.source ?? undefined,
    metadata: body.metadata ?? {},
    trackId: body.track_id ?? null,
    asyncProcessing: body.async_processing,
    options: {
      enable_gleaning: body.enable_gleaning,
      max_gleaning: body.max_gleaning,
      use_llm_summarization: body.use_llm_summarization,
    },
  };
}

/**
 * The ingest request of an upload form. Text fields the form does not define are metadata entries, as
 * EdgeQuake's clients send metadata (`author=...`), beside the `metadata` JSON field.
 */
export function requestFromForm(fields: UploadFields | BatchFields, raw: Record<string, unknown> = {}): IngestRequest {
  const known = new Set([
    'file',
    'files',
    'title',
    'metadata',
    'config',
    'async_processing',
    'track_id',
    'enable_gleaning',
    'max_gleaning',
    'use_llm_summarization',
    'replace_existing',
  ]);
  const extra = Object.entries(raw).filter(([k, v]) => !known.has(k) && typeof v === 'string');
  const metadata: Record<string, unknown> = { ...Object.fromEntries(extra), ...(fields.metadata ?? {}) };
  if ('config' in fields && fields.config) metadata.pdf_config = fields.config;
  return {
    title: 'title' in fields ? fields.title : undefined,
    metadata,
    trackId: fields.track_id ?? null,
    asyncProcessing: fields.async_processing,
    options: {
      enable_gleaning: fields.enable_gleaning,
      max_gleaning: fields.max_gleaning,
      use_llm_summarization: fields.use_llm_summarization,
    },
  };
}

/** What deleting a document would do, with EdgeQuake's names beside the spec's. */
export function presentDeletionImpact(impact: DeletionImpact, chunkCount: number) {
  return {
    ...impact,
    entity_count: impact.entities_affected,
    relationship_count: impact.relationships_affected,
    chunk_count: chunkCount,
    exclusive_entities: impact.entities_to_delete,
    exclusive_relationships: impact.relationships_to_delete,
  };
}

/** Batch results with EdgeQuake's `total_files` beside the counts. */
export function presentBatch<T extends { results: unknown[] }>(batch: T, totalFiles: number) {
  return { ...batch, total_files: totalFiles };
}

/** Scan results with EdgeQuake's names beside: `files_queued` (admitted) and `files_skipped`. */
export function presentScan<T extends { results: Array<{ status: string }>; skipped: number }>(scan: T) {
  return { ...scan, files_queued: scan.results.filter((r) => r.status === 'success').length, files_skipped: scan.skipped };
}

export function presentUpdated(result: UpdateResult) {
  const { doc } = result;
  return {
    id: doc.id,
    document_id: doc.id,
    title: doc.title,
    status: 'completed' as const,
    content_hash: doc.content_hash,
    version: doc.version ?? 1,
    chunk_count: doc.chunk_count,
    entity_count: doc.entity_count,
    relationship_count: doc.relationship_count,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
    processing_time_ms: Math.round(result.processing_time_ms),
    update: presentAccount(result),
  };
}

/** What an update cost and reused (docs/api.md §4.2), as the update's answer and the document's history give it. */
export function presentAccount(account: UpdateAccount) {
  return {
    chunks_total: account.chunks_total,
    chunks_reused: account.chunks_reused,
    chunks_extracted: account.chunks_extracted,
    chunks_removed: account.chunks_removed,
    llm_calls: account.llm_calls,
    llm_calls_by_kind: { ...account.llm_calls_by_kind },
    usage: { input_tokens: account.usage.input_tokens, output_tokens: account.usage.output_tokens },
    records_resummarised: account.records_resummarised,
    entities_resolved: account.entities_resolved,
    chunks_embedded: account.chunks_embedded,
    records_reembedded: account.records_reembedded,
  };
}

export function presentHistory(documentId: string, entries: HistoryEntry[]) {
  return {
    document_id: documentId,
    history: entries.map((e) => ({ version: e.version, at: e.at, processing_time_ms: e.processing_time_ms, ...presentAccount(e) })),
  };
}
