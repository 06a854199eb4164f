import { isDomainError } from '../../domain/errors';
import type { Scope } from '../../domain/types';
import { type Admission, admitFile, checkFileSize, type IngestRequest } from './admission';
import { checkBacklog } from './backlog';
import { type CommitDeps, type CreateOutcome, runStored, storeAdmission } from './commit';
import { duplicateOf, itemError } from './errors';

export type BatchItemStatus = 'success' | 'duplicate' | 'failed';

export interface BatchItem {
  filename: string;
  document_id: string | null;
  status: BatchItemStatus;
  /** Null while the document waits in the queue. */
  chunk_count: number | null;
  duplicate_of: string | null;
  error: string | null;
  task_id: string | null;
}

export interface BatchResult {
  results: BatchItem[];
  processed: number;
  duplicates: number;
  failed: number;
}

/** A file of a batch or a scan, read only once it passed its size check. */
export interface FileSource {
  filename: string;
  size: number;
  filePath?: string;
  read(): Promise<Buffer>;
}

/**
 * Ingests several files, each on its own: a refused file becomes a `duplicate` or `failed` item and the others
 * go on. Files are admitted one after another (so copies inside the batch are caught), then processed together.
 */
export async function ingestFiles(deps: CommitDeps, scope: Scope, sources: FileSource[], request: IngestRequest): Promise<BatchResult> {
  // A batch or a scan is refused whole when the queue has no room for all of its files.
  await checkBacklog(deps.host, scope, sources.length);
  const items: BatchItem[] = sources.map((s) => emptyItem(s.filename));
  const stored: Array<{ index: number; admission: Admission }> = [];
  for (const [index, source] of sources.entries()) {
    try {
      checkFileSize(source.filename, source.size);
      const data = await source.read();
      const admission = await admitFile(
        deps.host,
        deps.gate,
        scope,
        { filename: source.filename, data, filePath: source.filePath },
        request,
      );
      await storeAdmission(deps, scope, admission);
      stored.push({ index, admission });
    } catch (err) {
      items[index] = refusedItem(source.filename, err);
      if (!isDomainError(err)) deps.host.log.error({ err, filename: source.filename }, 'batch item failed');
    }
  }
  await Promise.all(
    stored.map(async ({ index, admission }) => {
      try {
        items[index] = itemOf(sources[index].filename, await runStored(deps, scope, admission));
      } catch (err) {
        deps.host.log.error({ err, filename: sources[index].filename }, 'batch item failed');
        items[index] = { ...emptyItem(sources[index].filename), status: 'failed', error: itemError(err) };
      }
    }),
  );
  return summarize(items);
}

export function summarize(items: BatchItem[]): BatchResult {
  return {
    results: items,
    processed: items.filter((i) => i.status === 'success').length,
    duplicates: items.filter((i) => i.status === 'duplicate').length,
    failed: items.filter((i) => i.status === 'failed').length,
  };
}

function emptyItem(filename: string): BatchItem {
  return { filename, document_id: null, status: 'failed', chunk_count: null, duplicate_of: null, error: null, task_id: null };
}

function refusedItem(filename: string, err: unknown): BatchItem {
  const duplicate = duplicateOf(err);
  if (duplicate) return { ...emptyItem(filename), status: 'duplicate', duplicate_of: duplicate };
  return { ...emptyItem(filename), status: 'failed', error: itemError(err) };
}

function itemOf(filename: string, outcome: CreateOutcome): BatchItem {
  const base = { ...emptyItem(filename), document_id: outcome.doc.id, task_id: outcome.doc.task_id };
  if (outcome.kind === 'queued' || outcome.report.status === 'interrupted') return { ...base, status: 'success' };
  if (outcome.report.status === 'completed') return { ...base, status: 'success', chunk_count: outcome.doc.chunk_count };
  return { ...base, status: 'failed', chunk_count: outcome.doc.chunk_count, error: outcome.doc.error ?? outcome.report.error };
}
