import path from 'node:path';
import { ConflictError, InvalidInputError, TooLargeError } from '../../domain/errors';
import { contentHashInSlices } from '../../domain/ids';
import type { DocumentRecord, Scope } from '../../domain/types';
import { LoadError, loadDocumentFile, SUPPORTED_EXTENSIONS } from '../../ingest/loaders';
import { updateDocumentContent, type UpdateInput, type UpdateResult } from '../../ingest/update';
import { emptyTally } from '../../ingest/call-tally';
import type { ServiceHost } from '../tasks';
import { checkFileSize, type IncomingFile } from './admission';
import { duplicateDocument, formatLimit } from './errors';
import type { AdmissionGate } from './gate';
import { underDocumentLock } from './document-lock';
import { requireDocument } from './maintenance';

/**
 * Content updates of stored documents (`PUT /documents/:id`, and uploads with `replace_existing`). Updates of one
 * document run one at a time under a lock on the document (shared by every instance on the same database):
 * each one starts from the version the previous one left, so none is lost.
 */

export interface TextUpdate {
  content: string;
  title?: string;
  metadata?: Record<string, unknown>;
  /** Refuse (409) unless the stored version is this one. */
  expectedVersion?: number;
}

export async function updateFromText(
  host: ServiceHost,
  gate: AdmissionGate,
  scope: Scope,
  id: string,
  update: TextUpdate,
): Promise<UpdateResult> {
  const size = Buffer.byteLength(update.content, 'utf8');
  const limit = SUPPORTED_EXTENSIONS['.txt'].max_bytes;
  if (size > limit) throw new TooLargeError(`content too large (limit ${formatLimit(limit)}): ${size} bytes`, limit);
  await requireDocument(host, scope, id);
  return underDocumentLock(host, scope, id, async () => {
    const doc = await requireUpdatable(host, scope, id, update.expectedVersion);
    return replaceContent(host, gate, scope, doc, await contentHashInSlices(update.content), {
      content: update.content,
      fileSize: size,
      title: update.title,
      metadata: update.metadata,
    });
  });
}

/** The document uploaded under this file name in the workspace, if any (the newest when there are several). */
export async function findByFileName(host: ServiceHost, scope: Scope, filename: string): Promise<DocumentRecord | null> {
  const name = path.basename(filename);
  const ids = await host.stores.documents.listIds(scope, { titleTerms: [name.toLowerCase()] });
  const docs = await Promise.all(ids.map((docId) => host.stores.documents.get(scope, docId)));
  const same = docs.filter((d): d is DocumentRecord => !!d && path.basename(d.file_path) === name && !d.file_path.startsWith('text://'));
  return same.sort((a, b) => b.created_at.localeCompare(a.created_at))[0] ?? null;
}

/** Replaces the content of `doc` (found by file name) with the file's text. */
export async function updateFromFile(
  host: ServiceHost,
  gate: AdmissionGate,
  scope: Scope,
  doc: DocumentRecord,
  file: IncomingFile,
  request: { title?: string; metadata?: Record<string, unknown> },
): Promise<UpdateResult> {
  checkFileSize(file.filename, file.data.length);
  const loaded = await loadDocumentFile(host.cpu, file.filename, file.data).catch((err: unknown) => {
    if (err instanceof LoadError) throw new InvalidInputError([{ field: 'file', message: `'${file.filename}': ${err.message}` }]);
    throw err;
  });
  return underDocumentLock(host, scope, doc.id, async () => {
    const current = await requireUpdatable(host, scope, doc.id);
    return replaceContent(host, gate, scope, current, await contentHashInSlices(file.data), {
      content: loaded.text,
      fileSize: file.data.length,
      title: request.title,
      metadata: request.metadata,
      pages: loaded.document_type === 'pdf' ? loaded.pages : null,
    });
  });
}

async function replaceContent(
  host: ServiceHost,
  gate: AdmissionGate,
  scope: Scope,
  doc: DocumentRecord,
  hash: string,
  input: Omit<UpdateInput, 'contentHash'>,
): Promise<UpdateResult> {
  if (hash === doc.content_hash) return unchanged(host, scope, doc, input);
  const duplicate = await gate.reserve(host.stores.documents, scope, hash, doc.id);
  if (duplicate) throw duplicateDocument(scope, duplicate);
  try {
    return await updateDocumentContent(host, scope, doc, { ...input, contentHash: hash });
  } finally {
    gate.release(scope, hash, doc.id);
  }
}

/** The same content again: only the title or metadata may change; no version is made. */
async function unchanged(
  host: ServiceHost,
  scope: Scope,
  doc: DocumentRecord,
  input: Omit<UpdateInput, 'contentHash'>,
): Promise<UpdateResult> {
  const patch: Partial<DocumentRecord> = {};
  if (input.title !== undefined) patch.title = input.title;
  if (input.metadata !== undefined) patch.metadata = input.metadata;
  const stored = Object.keys(patch).length
    ? await host.stores.documents.update(scope, doc.id, { ...patch, updated_at: new Date().toISOString() })
    : doc;
  return {
    doc: stored ?? doc,
    chunks_total: doc.chunk_count,
    chunks_reused: doc.chunk_count,
    chunks_extracted: 0,
    chunks_removed: 0,
    llm_calls: 0,
    llm_calls_by_kind: emptyTally().calls,
    usage: { input_tokens: 0, output_tokens: 0 },
    records_resummarised: 0,
    entities_resolved: 0,
    chunks_embedded: 0,
    records_reembedded: 0,
    processing_time_ms: 0,
  };
}

async function requireUpdatable(host: ServiceHost, scope: Scope, id: string, expectedVersion?: number): Promise<DocumentRecord> {
  const doc = await requireDocument(host, scope, id);
  if (doc.status !== 'completed') {
    throw new ConflictError(`document '${id}' is ${doc.status}; only a completed document's content can be replaced`, id);
  }
  const version = doc.version ?? 1;
  if (expectedVersion !== undefined && expectedVersion !== version) {
    throw new ConflictError(`document '${id}' is at version ${version}, not ${expectedVersion}`, id, { version });
  }
  return doc;
}
