/**
 * Large inputs and the event loop: `npx tsx scripts/bench/large-inputs.ts [--text-mb 10] [--pdf-mb 50] [--pdf-text-mb 10]`
 * Boots the service in-process (embedded stores, mock provider), uploads a text file and then a PDF of about the
 * given sizes (the PDF carries `--pdf-text-mb` of text on its pages and raw image data for the rest, as large PDFs
 * do), and while each is uploaded and ingested records the service's event-loop delay (monitorEventLoopDelay) and
 * asks `/health` every 25 ms from a worker thread, whose own event loop times the answers independently of the
 * service's (the upload is sent from another worker thread). Prints per input: ingest time, chunks, loop delay p50 / p99 / max, `/health` p50 / p99 / max, peak RSS.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { createApp } from '../../src/app';
import { createLogger } from '../../src/logger';
import { createRuntime } from '../../src/runtime';

import { largePdf, pagesForText, proseText } from './large-pdf';
import { benchConfig, runAsBuilt, serve } from './service';
import { BENCH_MASTER_KEY as KEY } from './workspace';
const MB = 1024 * 1024;

/** Asks /health every 25 ms from its own thread until told to stop, then answers with the latencies. */
const SAMPLER = `
const { parentPort, workerData } = require('node:worker_threads');
let sampling = true;
const latencies = [];
let failures = 0;
parentPort.on('message', () => (sampling = false));
(async () => {
  while (sampling) {
    const t0 = performance.now();
    const ok = await fetch(workerData.url, { headers: { Connection: 'close' } }).then((r) => r.arrayBuffer().then(() => r.ok), () => false);
    if (ok) latencies.push(performance.now() - t0);
    else failures += 1;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  parentPort.postMessage({ latencies, failures });
})();
`;

/**
 * Uploads the file from its own thread (a 50 MB request body is streamed there, not on the service's loop). The
 * bytes are moved to it before the measurement starts (cloning them would hold the service's loop), and it
 * sends them when told to.
 */
const UPLOADER = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, key, name, type } = workerData;
let data;
parentPort.on('message', (message) => {
  if (message !== 'go') {
    data = message;
    parentPort.postMessage('ready');
    return;
  }
  const body = new FormData();
  body.append('file', new Blob([data], { type }), name);
  fetch(url, { method: 'POST', headers: { 'X-API-Key': key }, body })
    .then(async (res) => parentPort.postMessage({ status: res.status, answer: await res.json() }))
    .catch((err) => parentPort.postMessage({ status: 0, answer: { detail: String(err) } }));
});
`;

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface Answer {
  id?: string;
  document_id?: string;
  task_id?: string;
  status?: string;
  detail?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'text-mb': { type: 'string', default: '10' },
      'pdf-mb': { type: 'string', default: '50' },
      'pdf-text-mb': { type: 'string', default: '10' },
    },
  });
  runAsBuilt();
  const rt = await createRuntime(benchConfig(), createLogger('silent'));
  const service = await serve(rt, createApp(rt).app);
  const { url } = service;
  const headers = { 'X-API-Key': KEY };

  const textMb = Number(values['text-mb']);
  const pdfMb = Number(values['pdf-mb']);
  const pdfTextMb = Math.min(Number(values['pdf-text-mb']), pdfMb);
  const inputs = [
    { name: 'input.txt', type: 'text/plain', size: textMb, make: async () => Buffer.from(proseText(textMb * MB - 1024)) },
    {
      name: 'input.pdf',
      type: 'application/pdf',
      size: pdfMb,
      make: () => largePdf(pdfMb * MB - 256 * 1024, pagesForText(pdfTextMb * MB)),
    },
  ];
  process.stdout.write(
    '| input | file MB | text MB | chunks | ingest s | status | event-loop delay p50 / p99 / max ms | /health p50 / p99 / max ms (n) | peak RSS MB |\n' +
      '|---|---:|---:|---:|---:|---|---:|---:|---:|\n',
  );
  for (const input of inputs) {
    if (input.size <= 0) continue;
    let data: Buffer | null = await input.make();
    const fileBytes = data.length;
    const uploader = new Worker(UPLOADER, {
      eval: true,
      workerData: { url: `${url}/api/v1/documents/upload`, key: KEY, name: input.name, type: input.type },
    });
    const bytes = new Uint8Array(data);
    data = null;
    const ready = new Promise((resolve) => uploader.once('message', resolve));
    uploader.postMessage(bytes, [bytes.buffer]);
    await ready;
    let peakRss = process.memoryUsage.rss();
    const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 100);
    const sampler = new Worker(SAMPLER, { eval: true, workerData: { url: `${url}/health` } });
    const samples = new Promise<{ latencies: number[]; failures: number }>((resolve) => sampler.once('message', resolve));
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const t0 = performance.now();
    const answered = new Promise<{ status: number; answer: Answer }>((resolve) => uploader.once('message', resolve));
    uploader.postMessage('go');
    const res = await answered;
    await uploader.terminate();
    const { answer } = res;
    const id = answer.document_id ?? answer.id;
    // The task is small to poll; the document detail carries the whole text.
    let status = answer.status ?? `HTTP ${res.status}`;
    while (answer.task_id && !['completed', 'failed', 'cancelled'].includes(status)) {
      await sleep(500);
      status = ((await (await fetch(`${url}/api/v1/tasks/${answer.task_id}`, { headers })).json()) as { status: string }).status;
    }
    const seconds = (performance.now() - t0) / 1000;
    delay.disable();
    clearInterval(rssTimer);
    sampler.postMessage('stop');
    const { latencies, failures } = await samples;
    await sampler.terminate();
    const doc = id
      ? ((await (await fetch(`${url}/api/v1/documents/${id}`, { headers })).json()) as {
          status: string;
          error?: string;
          chunk_count?: number;
          content?: string;
        })
      : null;
    if (doc?.status === 'failed') process.stderr.write(`${input.name}: ${doc.error}\n`);
    const sorted = latencies.sort((a, b) => a - b);
    const ms = (ns: number) => (ns / 1e6).toFixed(0);
    process.stdout.write(
      `| ${input.name} | ${(fileBytes / MB).toFixed(1)} | ${doc?.content ? (Buffer.byteLength(doc.content) / MB).toFixed(1) : '-'} | ${doc?.chunk_count ?? '-'} | ` +
        `${seconds.toFixed(1)} | ${doc?.status ?? status}${res.status >= 400 ? ` (${answer.detail})` : ''} | ` +
        `${ms(delay.percentile(50))} / ${ms(delay.percentile(99))} / ${ms(delay.max)} | ` +
        `${percentile(sorted, 50).toFixed(0)} / ${percentile(sorted, 99).toFixed(0)} / ${(sorted.at(-1) ?? 0).toFixed(0)} (${sorted.length}${failures ? `, ${failures} failed` : ''}) | ` +
        `${(peakRss / MB).toFixed(0)} |\n`,
    );
  }
  await service.close();
  process.exit(0);
}

void main();
