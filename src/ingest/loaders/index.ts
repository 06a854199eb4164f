import { extname } from 'node:path';
import type { DocumentType } from '../../domain/types';
import { loadPdf } from './pdf';
import type { CpuPool } from '../offload/cpu-pool';
import { decodeTextOffLoop } from '../offload/decode';
import { type LoadedDocument, LoadError, SUPPORTED_EXTENSIONS, type SupportedExtension } from './types';

export { LoadError, SUPPORTED_EXTENSIONS };
export type { LoadedDocument, PageRange, SupportedExtension } from './types';

/** The supported extension of a file name (lower-cased, with the dot), or null. */
export function extensionOf(filename: string): SupportedExtension | null {
  const ext = extname(filename).toLowerCase();
  return Object.hasOwn(SUPPORTED_EXTENSIONS, ext) ? (ext as SupportedExtension) : null;
}

export function documentTypeOf(filename: string): DocumentType | null {
  const ext = extensionOf(filename);
  return ext ? SUPPORTED_EXTENSIONS[ext].document_type : null;
}

/** Turns an uploaded file into document text (the heavy parts in `cpu`); PDFs keep the character range of every page. */
export async function loadDocumentFile(cpu: CpuPool, filename: string, data: Buffer): Promise<LoadedDocument> {
  const ext = extensionOf(filename);
  if (!ext) {
    throw new LoadError(
      `unsupported file type '${extname(filename) || filename}': expected ${Object.keys(SUPPORTED_EXTENSIONS).join(', ')}`,
    );
  }
  if (data.length === 0) throw new LoadError('file is empty');
  const document_type = SUPPORTED_EXTENSIONS[ext].document_type;
  if (document_type === 'pdf') {
    const pdf = await loadPdf(cpu, data);
    return { text: pdf.text, document_type, page_count: pdf.page_count, pages: pdf.pages };
  }
  const text = await decodeTextOffLoop(cpu, data, document_type === 'json');
  return { text, document_type, page_count: null, pages: null };
}
