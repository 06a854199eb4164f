import type { DocumentType } from '../../domain/types';

/** A page's character range in the loaded text (1-based page numbers). */
export interface PageRange {
  page: number;
  char_start: number;
  char_end: number;
}

export interface LoadedDocument {
  text: string;
  document_type: DocumentType;
  page_count: number | null;
  pages: PageRange[] | null;
}

/** The file cannot be turned into text: corrupt, binary, empty or of an unsupported type. */
export class LoadError extends Error {
  override readonly name = 'LoadError';
}

const MB = 1024 * 1024;

/** Accepted upload types (docs/api.md §8.1): MIME type and maximum size per extension. */
export const SUPPORTED_EXTENSIONS = {
  '.pdf': { document_type: 'pdf', mime_type: 'application/pdf', max_bytes: 50 * MB },
  '.txt': { document_type: 'text', mime_type: 'text/plain', max_bytes: 10 * MB },
  '.md': { document_type: 'markdown', mime_type: 'text/markdown', max_bytes: 10 * MB },
  '.json': { document_type: 'json', mime_type: 'application/json', max_bytes: 10 * MB },
} as const satisfies Record<string, { document_type: DocumentType; mime_type: string; max_bytes: number }>;

export type SupportedExtension = keyof typeof SUPPORTED_EXTENSIONS;
