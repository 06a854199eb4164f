import { join } from 'node:path';
import { CpuJobError, type CpuPool, cpuTask, CpuTimeoutError } from '../offload/cpu-pool';
import type { PdfPages } from '../offload/pdf-text';
import { LoadError, type PageRange } from './types';

/**
 * PDF text with page boundaries, via unpdf (pdf.js) in the CPU pool: a large or hostile PDF costs CPU there, not
 * on the event loop, and a parse that hangs is cut off by the time-out.
 */

const PARSE_TIMEOUT_MS = 120_000;

const PDF_TEXT = cpuTask<Uint8Array, PdfPages>(join(__dirname, '../offload/pdf-text'), 'pdfText');

export interface PdfText {
  text: string;
  page_count: number;
  pages: PageRange[];
}

export async function loadPdf(cpu: CpuPool, data: Buffer): Promise<PdfText> {
  if (!data.subarray(0, 1024).includes('%PDF-')) throw new LoadError('not a PDF file (no %PDF- header)');
  // The bytes are moved to the worker, not cloned: cloning tens of megabytes held the event loop for a few
  // hundred milliseconds. The copy made here owns its buffer; the caller keeps `data`.
  const bytes = new Uint8Array(data);
  const parsed = await cpu.run(PDF_TEXT, bytes, { transfer: [bytes.buffer], timeoutMs: PARSE_TIMEOUT_MS }).catch((err: unknown) => {
    if (err instanceof CpuTimeoutError) throw new LoadError(`the PDF could not be parsed within ${PARSE_TIMEOUT_MS / 1000} s`);
    if (err instanceof CpuJobError && err.name === 'PasswordException') throw new LoadError('the PDF is password-protected');
    if (err instanceof CpuJobError) throw new LoadError(`the PDF could not be parsed: ${err.message}`);
    throw err;
  });
  const { text, pages } = parsed;
  if (!text.trim()) throw new LoadError('the PDF has no extractable text (scanned images are not supported)');
  return { text, page_count: parsed.totalPages, pages };
}
