export { createDocumentService } from './service';
export type { DeletionImpact, DocumentListQuery, DocumentService, ReplaceOutcome, TextUpdate, UpdateResult } from './service';
export type { IncomingFile, IngestRequest } from './admission';
export type { BatchItem, BatchResult } from './batch';
export type { CreateOutcome } from './commit';
export type { FailedChunk, QueuedDocuments } from './maintenance';
export type { ScanInput, ScanResult } from './scan';
