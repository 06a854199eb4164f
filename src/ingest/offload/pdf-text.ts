import type { PageRange } from '../loaders/types';

/**
 * PDF text with page boundaries, via unpdf (pdf.js). Runs in the CPU pool (loaders/pdf.ts), where pdf.js is
 * loaded with Node's own module loader, which unpdf's dynamic import needs.
 */

/** Pages are separated by a blank line in the document text. */
export const PAGE_SEPARATOR = '\n\n';

export interface PdfPages {
  totalPages: number;
  text: string;
  pages: PageRange[];
}

export async function pdfText(data: Uint8Array): Promise<PdfPages> {
  /* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/consistent-type-imports -- loaded in the worker only */
  const { getDocumentProxy, extractText } = require('unpdf') as typeof import('unpdf');
  /* eslint-enable @typescript-eslint/no-require-imports, @typescript-eslint/consistent-type-imports */
  const pdf = await getDocumentProxy(data, { verbosity: 0, isEvalSupported: false });
  const { totalPages, text: pageTexts } = await extractText(pdf, { mergePages: false });
  // The pages are joined here: one string crosses back to the event loop, not thousands.
  let text = '';
  const pages: PageRange[] = [];
  pageTexts.forEach((raw, i) => {
    const pageText = raw.replace(/\s+$/, '');
    if (i > 0) text += PAGE_SEPARATOR;
    pages.push({ page: i + 1, char_start: text.length, char_end: text.length + pageText.length });
    text += pageText;
  });
  return { totalPages, text, pages };
}
