import type { DocumentRecord, Scope } from '../domain/types';
import type { Stores } from '../store/ports';

export interface WorkspaceStats {
  workspace_id: string;
  documents: { total: number; completed: number; processing: number; failed: number };
  chunks: { total: number; avg_per_document: number };
  entities: { total: number; by_type: Record<string, number> };
  relationships: { total: number };
  storage: { documents_bytes: number; embeddings_bytes: number; total_bytes: number };
  /** Extraction health summed over the documents' last runs (absent from snapshots taken before it was counted). */
  extraction?: ExtractionCounters;
}

export interface ExtractionCounters {
  /** Completed documents with extraction warnings. */
  documents_with_warnings: number;
  /** Failed documents whose model output yielded no grounded record (or whose extraction failed). */
  documents_failed_extraction: number;
  records_parsed: number;
  records_kept: number;
  records_dropped: number;
  dropped: Record<string, number>;
  truncated_chunks: number;
  timed_out_chunks: number;
}

function emptyCounters(): ExtractionCounters {
  return {
    documents_with_warnings: 0,
    documents_failed_extraction: 0,
    records_parsed: 0,
    records_kept: 0,
    records_dropped: 0,
    dropped: {},
    truncated_chunks: 0,
    timed_out_chunks: 0,
  };
}

function countExtraction(into: ExtractionCounters, doc: DocumentRecord): void {
  const e = doc.extraction;
  if (!e) return;
  if (doc.status === 'failed') into.documents_failed_extraction++;
  else if (e.warnings.length) into.documents_with_warnings++;
  into.records_parsed += e.records_parsed;
  into.records_kept += e.records_kept;
  into.records_dropped += e.records_dropped;
  for (const [reason, n] of Object.entries(e.dropped)) into.dropped[reason] = (into.dropped[reason] ?? 0) + n;
  into.truncated_chunks += e.truncated_chunks.length;
  into.timed_out_chunks += e.timed_out_chunks.length;
}

const PAGE = 200;

/** UTF-8 bytes of every document's text and of its chunks' texts, and the extraction counters, read page by page. */
async function documentFigures(stores: Stores, scope: Scope): Promise<{ bytes: number; extraction: ExtractionCounters }> {
  let bytes = 0;
  const extraction = emptyCounters();
  for (let offset = 0; ; offset += PAGE) {
    const page = await stores.documents.list(scope, { limit: PAGE, offset });
    for (const doc of page.items) {
      countExtraction(extraction, doc);
      bytes += Buffer.byteLength(doc.content, 'utf8');
      for (const chunk of await stores.chunks.listByDocument(scope, doc.id)) bytes += Buffer.byteLength(chunk.content, 'utf8');
    }
    if (page.items.length < PAGE || offset + PAGE >= page.total) return { bytes, extraction };
  }
}

/** Statistics of one workspace (docs/api.md §4.9); an unknown workspace has all counts at zero. */
export async function workspaceStats(stores: Stores, scope: Scope): Promise<WorkspaceStats> {
  const [byStatus, chunkTotal, graph, figures, embeddingsBytes] = await Promise.all([
    stores.documents.countByStatus(scope),
    stores.chunks.count(scope),
    stores.graph.stats(scope),
    documentFigures(stores, scope),
    stores.vectors.bytes(scope),
  ]);
  const documentsBytes = figures.bytes;
  const documentTotal = byStatus.completed + byStatus.processing + byStatus.failed;
  return {
    workspace_id: scope.workspaceId,
    documents: { total: documentTotal, ...byStatus },
    chunks: {
      total: chunkTotal,
      avg_per_document: documentTotal === 0 ? 0 : Math.round((chunkTotal / documentTotal) * 100) / 100,
    },
    entities: { total: graph.total_nodes, by_type: graph.node_types },
    relationships: { total: graph.total_edges },
    storage: {
      documents_bytes: documentsBytes,
      embeddings_bytes: embeddingsBytes,
      total_bytes: documentsBytes + embeddingsBytes,
    },
    extraction: figures.extraction,
  };
}
