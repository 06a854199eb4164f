import type { DocumentQuery } from '../../store/ports';
import type { DocumentRecord, Page, Scope } from '../../domain/types';
import { deletionImpact } from '../../ingest/deletion';
import type { ServiceHost, TaskService } from '../tasks';
import { admitFile, admitText, type IncomingFile, type IngestRequest } from './admission';
import { type BatchResult, ingestFiles } from './batch';
import { type CommitDeps, commitAdmission, type CreateOutcome } from './commit';
import { AdmissionGate } from './gate';
import { checkBacklog } from './backlog';
import {
  type FailedChunk,
  failedChunksOf,
  type QueuedDocuments,
  type Recovery,
  recoverStuck,
  recoverStuckEverywhere,
  removeDocument,
  reprocessFailed,
  reprocessAll,
  requireDocument,
  retryFailedChunks,
} from './maintenance';
import { findByFileName, type TextUpdate, updateFromFile, updateFromText } from './update';
import type { UpdateResult } from '../../ingest/update';
import { type HistoryEntry, readHistory } from '../../ingest/history';
import { type ScanInput, type ScanResult, scanDirectory } from './scan';

/** A page of a workspace's documents: the store's query, as the routes build it. */
export type DocumentListQuery = DocumentQuery;

export type { TextUpdate, UpdateResult };

/** A replacing upload: a new document when no document had the file's name, else the update of that one. */
export type ReplaceOutcome = { kind: 'created'; outcome: CreateOutcome } | { kind: 'updated'; result: UpdateResult };

export type DeletionImpact = Awaited<ReturnType<typeof deletionImpact>>;

export interface DocumentService {
  createFromText(scope: Scope, content: string, request: IngestRequest): Promise<CreateOutcome>;
  createFromFile(scope: Scope, file: IncomingFile, request: IngestRequest): Promise<CreateOutcome>;
  uploadBatch(scope: Scope, files: IncomingFile[], request: IngestRequest): Promise<BatchResult>;
  scan(scope: Scope, input: ScanInput, request: IngestRequest): Promise<ScanResult>;
  list(scope: Scope, query: DocumentListQuery): Promise<Page<DocumentRecord>>;
  get(scope: Scope, id: string): Promise<DocumentRecord>;
  remove(scope: Scope, id: string): Promise<void>;
  /** Replaces a completed document's content in place (incremental: unchanged chunks are not extracted again). */
  update(scope: Scope, id: string, update: TextUpdate): Promise<UpdateResult>;
  /** The document's content updates, oldest first (404 for an unknown document). */
  history(scope: Scope, id: string): Promise<HistoryEntry[]>;
  /**
   * An upload that replaces the document of the same file name in the workspace, when there is one; otherwise
   * an ordinary upload.
   */
  replaceFromFile(scope: Scope, file: IncomingFile, request: IngestRequest): Promise<ReplaceOutcome>;
  deletionImpact(scope: Scope, id: string): Promise<DeletionImpact>;
  failedChunks(scope: Scope, id: string): Promise<FailedChunk[]>;
  retryChunks(scope: Scope, id: string): Promise<{ taskId: string; failedChunks: number }>;
  reprocessFailed(scope: Scope): Promise<QueuedDocuments>;
  /** Every finished document again, with the workspace's current models. */
  reprocessAll(scope: Scope): Promise<QueuedDocuments>;
  recoverStuck(scope: Scope): Promise<QueuedDocuments>;
  /** Start-up: documents left in processing without a live task, in every known workspace, are queued again. */
  recoverStuckEverywhere(): Promise<Recovery>;
}

/** Admission, storage and upkeep of documents; processing runs through the task service. */
export function createDocumentService(host: ServiceHost, tasks: TaskService): DocumentService {
  const gate = new AdmissionGate();
  const deps = (): CommitDeps => ({ host: host, tasks, gate });

  return {
    async createFromText(scope, content, request) {
      await checkBacklog(host, scope, 1);
      return commitAdmission(deps(), scope, await admitText(host, gate, scope, content, request));
    },
    async createFromFile(scope, file, request) {
      await checkBacklog(host, scope, 1);
      return commitAdmission(deps(), scope, await admitFile(host, gate, scope, file, request));
    },
    uploadBatch(scope, files, request) {
      const sources = files.map((f) => ({ filename: f.filename, size: f.data.length, read: async () => f.data }));
      return ingestFiles(deps(), scope, sources, request);
    },
    scan: (scope, input, request) => scanDirectory(deps(), scope, input, request),
    list: (scope, query) => host.stores.documents.list(scope, query),
    get: (scope, id) => requireDocument(host, scope, id),
    remove: (scope, id) => removeDocument(host, tasks, scope, id),
    update: (scope, id, update) => updateFromText(host, gate, scope, id, update),
    history: async (scope, id) => {
      await requireDocument(host, scope, id);
      return readHistory(host, scope, id);
    },
    async replaceFromFile(scope, file, request) {
      const existing = await findByFileName(host, scope, file.filename);
      if (!existing) {
        await checkBacklog(host, scope, 1);
        return { kind: 'created', outcome: await commitAdmission(deps(), scope, await admitFile(host, gate, scope, file, request)) };
      }
      const given = { title: request.title, metadata: Object.keys(request.metadata).length ? request.metadata : undefined };
      return { kind: 'updated', result: await updateFromFile(host, gate, scope, existing, file, given) };
    },
    async deletionImpact(scope, id) {
      await requireDocument(host, scope, id);
      return deletionImpact(host, scope, id);
    },
    failedChunks: (scope, id) => failedChunksOf(host, scope, id),
    retryChunks: (scope, id) => retryFailedChunks(host, tasks, scope, id),
    reprocessFailed: (scope) => reprocessFailed(host, tasks, scope),
    reprocessAll: (scope) => reprocessAll(host, tasks, scope),
    recoverStuck: (scope) => recoverStuck(host, tasks, scope),
    recoverStuckEverywhere: () => recoverStuckEverywhere(host, tasks),
  };
}
