import type { Scope } from '../domain/types';
import type { Stores } from '../store/ports';

export interface WorkspaceStats {
  workspace_id: string;
  documents: { total: number; completed: number; processing: number; failed: number };
  chunks: { total: number; avg_per_document: number };
  entities: { total: number; by_type: Record<string, number> };
  relationships: { total: number };
  storage: { documents_bytes: number; embeddings_bytes: number; total_bytes: number };
}

const PAGE = 200;

/** UTF-8 bytes of every document's text and of its chunks' texts, read page by page. */
async function documentBytes(stores: Stores, scope: Scope): Promise<number> {
  let bytes = 0;
  for (let offset = 0; ; offset += PAGE) {
    const page = await stores.documents.list(scope, { limit: PAGE, offset });
    for (const doc of page.items) {
      bytes += Buffer.byteLength(doc.content, 'utf8');
      for (const chunk of await stores.chunks.listByDocument(scope, doc.id)) bytes += Buffer.byteLength(chunk.content, 'utf8');
    }
    if (page.items.length < PAGE || offset + PAGE >= page.total) return bytes;
  }
}

/** Statistics of one workspace (docs/api.md §4.9); an unknown workspace has all counts at zero. */
export async function workspaceStats(stores: Stores, scope: Scope): Promise<WorkspaceStats> {
  const [byStatus, chunkTotal, graph, documentsBytes, embeddingsBytes] = await Promise.all([
    stores.documents.countByStatus(scope),
    stores.chunks.count(scope),
    stores.graph.stats(scope),
    documentBytes(stores, scope),
    stores.vectors.bytes(scope),
  ]);
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
  };
}
