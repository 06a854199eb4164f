import type { DocumentRecord } from '../../domain/types';

/** Flat metadata; page_count and pdf_id appear for PDFs only. */
export function presentMetadata(doc: DocumentRecord) {
  return {
    id: doc.id,
    title: doc.title,
    document_type: doc.document_type,
    file_path: doc.file_path,
    file_size_bytes: doc.file_size,
    sha256_checksum: doc.content_hash.replace(/^sha256:/, ''),
    ...(doc.page_count !== null ? { page_count: doc.page_count } : {}),
    ...(doc.pdf_id !== null ? { pdf_id: doc.pdf_id } : {}),
    status: doc.status,
    created_at: doc.created_at,
    processed_at: doc.processed_at,
    llm_model: doc.llm_model,
    embedding_model: doc.embedding_model,
    chunk_count: doc.chunk_count,
    source: doc.source,
    track_id: doc.track_id,
    custom: doc.metadata,
  };
}
