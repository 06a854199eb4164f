import { join } from 'node:path';
import { BroadcastChannel, threadId } from 'node:worker_threads';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { type CpuPool, cpuTask } from '../../src/ingest/offload/cpu-pool';
import { WorkerCpuPool } from '../../src/ingest/offload/worker-pool';
import { HELD_PDF_CHANNEL, type HeldParse } from '../fixtures/held-pdf-text';
import { json, upload, waitForTask } from '../fixtures/documents';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * The structural property behind probes that answer during a large ingest: an upload's PDF is parsed in a worker
 * thread of the runtime's CPU pool, so the event loop that answers requests stays free while the parse holds its
 * thread. The parse is held at its start (test/fixtures/held-pdf-text.ts) until the probes have answered:
 * ordering, not timing.
 */

const HELD = cpuTask(join(__dirname, '../fixtures/held-pdf-text'), 'heldPdfText');

/** The real worker pool, with the PDF task swapped for the held one (same parse after the hold). */
function holdingPdfParses(inner: CpuPool): CpuPool {
  return {
    run: (task, input, options) => (task.name === 'pdfText' ? inner.run(HELD, input, options) : inner.run(task, input, options)) as never,
    close: () => inner.close(),
  };
}

async function pdfOf(pages: string[]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of pages) doc.addPage([612, 792]).drawText(text, { x: 40, y: 700, size: 11, font });
  return Buffer.from(await doc.save());
}

describe('probes while a PDF upload is parsed', () => {
  let app: TestApp;
  let channel: BroadcastChannel;

  beforeAll(async () => {
    app = await startTestApp({}, { cpu: holdingPdfParses(new WorkerCpuPool()) });
    channel = new BroadcastChannel(HELD_PDF_CHANNEL);
  });
  afterAll(async () => {
    channel.close();
    await app.close();
  });

  it('answers /live, /ready and /health while the parse holds its worker thread, then ingests the PDF', async () => {
    const held = new Promise<HeldParse>((resolve) => {
      channel.onmessage = (event) => resolve((event as unknown as { data: HeldParse }).data);
    });
    const pages = ['Alice Johnson founded Acme Corporation in Berlin.', 'Bob Smith joined Acme Corporation in Paris.'];
    let answered = false;
    const uploading = upload(
      app,
      { name: 'held.pdf', data: await pdfOf(pages), type: 'application/pdf' },
      { async_processing: 'true' },
    ).then((res) => {
      answered = true;
      return res;
    });

    const parse = await held;
    // The parse runs in a thread of its own, not in the one that serves requests.
    expect(parse.threadId).not.toBe(threadId);
    for (const path of ['/live', '/ready', '/health']) {
      const res = await app.request(path);
      expect(res.status).toBe(200);
    }
    // The parse is still held: the upload cannot have been answered yet.
    expect(answered).toBe(false);

    Atomics.store(parse.release, 0, 1);
    Atomics.notify(parse.release, 0);
    const res = await uploading;
    expect(res.status).toBe(202);
    const done = await waitForTask(app, (await json(res)).task_id);
    expect(done.status).toBe('completed');
    const doc = await json(await app.request(`/api/v1/documents/${done.document_id}`));
    expect(doc.status).toBe('completed');
    expect(doc.content).toBe(pages.join('\n\n'));
  });
});
