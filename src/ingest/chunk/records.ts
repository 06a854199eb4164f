import { chunkId } from '../../domain/ids';
import type { ChunkRecord } from '../../domain/types';
import type { IngestDeps } from '../deps';
import type { PageRange } from '../loaders/types';
import { chunkTextOffLoop } from '../offload/chunk';

/** The chunk records of a document's text (ids by index), not yet extracted; a long text is cut off the event loop. */
export async function buildChunks(
  deps: Pick<IngestDeps, 'config' | 'cpu'>,
  documentId: string,
  content: string,
  pages: PageRange[] | null,
): Promise<ChunkRecord[]> {
  const { chunkTokens, chunkOverlapTokens } = deps.config.ingest;
  const chunks = await chunkTextOffLoop(deps.cpu, content, { chunkTokens, overlapTokens: chunkOverlapTokens, pages });
  const now = new Date().toISOString();
  return chunks.map((c) => ({
    id: chunkId(documentId, c.index),
    document_id: documentId,
    index: c.index,
    content: c.content,
    tokens: c.tokens,
    char_start: c.char_start,
    char_end: c.char_end,
    start_line: c.start_line,
    end_line: c.end_line,
    page_start: c.page_start,
    page_end: c.page_end,
    extraction_status: 'pending',
    extraction_error: null,
    entity_ids: [],
    relationship_ids: [],
    llm_model: null,
    embedding_model: null,
    created_at: now,
  }));
}
