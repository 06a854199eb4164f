import { Worker } from 'node:worker_threads';
import { LoadError, type PageRange } from './types';

/**
 * PDF text with page boundaries, via unpdf (pdf.js). Parsing runs in a short-lived worker thread: a large or
 * hostile PDF costs CPU there, not on the event loop, and a parse that hangs is cut off by the timeout.
 * (The worker also loads pdf.js with Node's own module loader, which unpdf's dynamic import needs.)
 */

const PARSE_TIMEOUT_MS = 120_000;
/** Pages are separated by a blank line in the document text. */
export const PAGE_SEPARATOR = '\n\n';

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
parentPort.once('message', async (data) => {
  try {
    const { getDocumentProxy, extractText } = require(workerData.unpdfPath);
    const pdf = await getDocumentProxy(data, { verbosity: 0, isEvalSupported: false });
    const { totalPages, text: pages } = await extractText(pdf, { mergePages: false });
    // The pages are joined here: one string crosses back to the event loop, not thousands.
    let text = '';
    const ranges = [];
    pages.forEach((raw, i) => {
      const pageText = raw.replace(/\\s+$/, '');
      if (i > 0) text += workerData.separator;
      ranges.push({ page: i + 1, char_start: text.length, char_end: text.length + pageText.length });
      text += pageText;
    });
    parentPort.postMessage({ ok: true, totalPages, text, pages: ranges });
  } catch (err) {
    parentPort.postMessage({ ok: false, name: err && err.name, message: String((err && err.message) || err) });
  }
});
`;

type WorkerReply = { ok: true; totalPages: number; text: string; pages: PageRange[] } | { ok: false; name?: string; message: string };

export interface PdfText {
  text: string;
  page_count: number;
  pages: PageRange[];
}

export async function loadPdf(data: Buffer): Promise<PdfText> {
  if (!data.subarray(0, 1024).includes('%PDF-')) throw new LoadError('not a PDF file (no %PDF- header)');
  const reply = await parseInWorker(new Uint8Array(data));
  if (!reply.ok) {
    if (reply.name === 'PasswordException') throw new LoadError('the PDF is password-protected');
    throw new LoadError(`the PDF could not be parsed: ${reply.message}`);
  }
  const { text, pages } = reply;
  if (!text.trim()) throw new LoadError('the PDF has no extractable text (scanned images are not supported)');
  return { text, page_count: reply.totalPages, pages };
}

/**
 * The bytes are moved to the worker, not cloned: cloning tens of megabytes into the worker's start-up data
 * held the event loop for a few hundred milliseconds. `data` must own its buffer (it is detached here).
 */
function parseInWorker(data: Uint8Array): Promise<WorkerReply> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { unpdfPath: require.resolve('unpdf'), separator: PAGE_SEPARATOR },
    });
    worker.postMessage(data, [data.buffer as ArrayBuffer]);
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new LoadError(`the PDF could not be parsed within ${PARSE_TIMEOUT_MS / 1000} s`));
    }, PARSE_TIMEOUT_MS);
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      void worker.terminate();
      settle();
    };
    worker.once('message', (reply: WorkerReply) => finish(() => resolve(reply)));
    worker.once('error', (err) => finish(() => reject(new LoadError(`the PDF could not be parsed: ${err.message}`))));
    worker.once('exit', (code) => finish(() => reject(new LoadError(`the PDF parser stopped (exit code ${code})`))));
  });
}
