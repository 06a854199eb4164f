import { InvalidInputError, MalformedRequestError, TooLargeError } from '../../domain/errors';
import path from 'node:path';
import { contentHashInSlices, newId } from '../../domain/ids';
import type { DocumentRecord, DocumentType, IngestOptions, Scope } from '../../domain/types';
import {
  extensionOf as supportedExtensionOf,
  type PageRange,
  LoadError,
  SUPPORTED_EXTENSIONS,
  loadDocumentFile,
} from '../../ingest/loaders';
import { duplicateDocument, FileTooLarge, formatLimit } from './errors';
import type { AdmissionGate } from './gate';
import type { ServiceHost } from '../tasks';

/** A file as received: from a multipart part or read from a scanned directory. */
export interface IncomingFile {
  filename: string;
  data: Buffer;
  /** Where the file lives on the server (scans); uploads are known by their filename. */
  filePath?: string;
}

/** What the caller asked for, besides the content itself. */
export interface IngestRequest {
  title?: string;
  source?: string;
  metadata: Record<string, unknown>;
  trackId: string | null;
  options: IngestOptions;
  /** true: always queue; false: queue only content over the async threshold. */
  asyncProcessing: boolean;
}

/**
 * A validated document not yet stored: everything that can refuse the input has run, nothing was written.
 * The hash stays reserved in the gate until the caller stores or drops the admission.
 */
export interface Admission {
  doc: DocumentRecord;
  pages: PageRange[] | null;
  queue: boolean;
}

const TITLE_MAX = 120;

export function extensionOf(filename: string): string {
  return path.extname(filename).toLowerCase();
}

export function supportedExtensions(): string[] {
  return Object.keys(SUPPORTED_EXTENSIONS);
}

/** Per-extension limit, or a 400 naming the supported extensions. */
export function sizeLimitFor(filename: string): number {
  const ext = supportedExtensionOf(filename);
  if (!ext) {
    throw new MalformedRequestError(
      `unsupported file type '${extensionOf(filename) || '(none)'}' of '${filename}'; supported extensions: ${supportedExtensions().join(', ')}`,
    );
  }
  return SUPPORTED_EXTENSIONS[ext].max_bytes;
}

/** Refuses a file over its extension's limit before it is read or parsed. */
export function checkFileSize(filename: string, size: number): void {
  const limit = sizeLimitFor(filename);
  if (size > limit) throw new FileTooLarge(filename, size, limit);
}

/** Admission of an uploaded or scanned file: type, size, duplicate, then parsing. */
export async function admitFile(
  host: ServiceHost,
  gate: AdmissionGate,
  scope: Scope,
  file: IncomingFile,
  request: IngestRequest,
): Promise<Admission> {
  checkFileSize(file.filename, file.data.length);
  const hash = await contentHashInSlices(file.data);
  const id = newId();
  const duplicate = await gate.reserve(host.stores.documents, scope, hash, id);
  if (duplicate) throw duplicateDocument(scope, duplicate);
  try {
    const loaded = await loadDocumentFile(host.cpu, file.filename, file.data).catch((err: unknown) => {
      if (err instanceof LoadError) throw new InvalidInputError([{ field: 'file', message: `'${file.filename}': ${err.message}` }]);
      throw err;
    });
    const isPdf = loaded.document_type === 'pdf';
    const doc = buildRecord(host, {
      id,
      hash,
      text: loaded.text,
      documentType: loaded.document_type,
      fileSize: file.data.length,
      filePath: file.filePath ?? file.filename,
      defaultTitle: path.basename(file.filename),
      request,
      pageCount: isPdf ? loaded.page_count : null,
      pdfId: isPdf ? newId() : null,
    });
    return { doc, pages: isPdf ? loaded.pages : null, queue: shouldQueue(host, request, doc) };
  } catch (err) {
    gate.release(scope, hash, id);
    throw err;
  }
}

/** Admission of JSON text (`POST /documents`). */
export async function admitText(
  host: ServiceHost,
  gate: AdmissionGate,
  scope: Scope,
  content: string,
  request: IngestRequest,
): Promise<Admission> {
  const size = Buffer.byteLength(content, 'utf8');
  // JSON text has no extension; it is held to the plain-text limit.
  const limit = SUPPORTED_EXTENSIONS['.txt'].max_bytes;
  if (size > limit) {
    throw new TooLargeError(`content too large (limit ${formatLimit(limit)}): ${size} bytes`, limit);
  }
  const hash = await contentHashInSlices(content);
  const id = newId();
  const duplicate = await gate.reserve(host.stores.documents, scope, hash, id);
  if (duplicate) throw duplicateDocument(scope, duplicate);
  const doc = buildRecord(host, {
    id,
    hash,
    text: content,
    documentType: 'text',
    fileSize: size,
    filePath: request.source ?? `text://${id}`,
    defaultTitle: firstLine(content) || request.source || id,
    request,
    pageCount: null,
    pdfId: null,
  });
  return { doc, pages: null, queue: shouldQueue(host, request, doc) };
}

function shouldQueue(host: ServiceHost, request: IngestRequest, doc: DocumentRecord): boolean {
  return request.asyncProcessing || Buffer.byteLength(doc.content, 'utf8') > host.config.ingest.asyncThresholdBytes;
}

function buildRecord(
  host: ServiceHost,
  p: {
    id: string;
    hash: string;
    text: string;
    documentType: DocumentType;
    fileSize: number;
    filePath: string;
    defaultTitle: string;
    request: IngestRequest;
    pageCount: number | null;
    pdfId: string | null;
  },
): DocumentRecord {
  const now = new Date().toISOString();
  const title = p.request.title?.trim() || p.defaultTitle;
  return {
    id: p.id,
    title: truncate(title, TITLE_MAX),
    status: 'processing',
    content_hash: p.hash,
    content: p.text,
    document_type: p.documentType,
    file_path: p.filePath,
    file_size: p.fileSize,
    source: p.request.source ?? null,
    metadata: p.request.metadata,
    chunk_count: 0,
    entity_count: 0,
    relationship_count: 0,
    created_at: now,
    updated_at: now,
    processed_at: null,
    processing_time_ms: null,
    error: null,
    track_id: p.request.trackId,
    task_id: newId(),
    llm_model: host.config.llm.model,
    embedding_model: host.config.embedding.model,
    page_count: p.pageCount,
    pdf_id: p.pdfId,
    options: { ...p.request.options },
    version: 1,
  };
}

function firstLine(text: string): string {
  return (
    text
      .split(/\r?\n/)
      .map((line) => line.replace(/^#+\s*/, '').trim())
      .find((line) => line.length > 0) ?? ''
  );
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}
