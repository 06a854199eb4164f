/**
 * Large inputs and the event loop: `npx tsx scripts/bench/large-inputs.ts [--text-mb 1] [--pdf-mb 2]`
 * (the figures the README quotes use `--text-mb 10 --pdf-mb 50`).
 * Boots the service in-process (embedded stores, mock provider), uploads a text file and then a PDF of about the
 * given sizes, and while each is uploaded and ingested, asks `/health` every 25 ms and records the event-loop delay
 * (monitorEventLoopDelay). Prints per input: ingest time, event-loop delay p99 and max, and `/health` p50, p99, max.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config/load';
import { createLogger } from '../../src/logger';
import { createRuntime } from '../../src/runtime';

const KEY = 'bench-master-key-0123456789';
const NAMES = ['Alice Johnson', 'Bob Smith', 'Carol White', 'Dana Lee', 'Evan Brown', 'Fiona Green'];
const ORGS = ['Acme Corporation', 'Globex Corporation', 'Umbrella Group', 'Initech', 'Stark Industries'];
const CITIES = ['Berlin', 'Paris', 'Madrid', 'Lisbon', 'Vienna'];

function sentence(i: number): string {
  return `${NAMES[i % NAMES.length]} of ${ORGS[(i * 7) % ORGS.length]} met ${NAMES[(i * 3 + 1) % NAMES.length]} in ${CITIES[(i * 5) % CITIES.length]} about project ${i % 997}.`;
}

function text(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const s = sentence(i) + (i % 8 === 7 ? '\n\n' : ' ');
    parts.push(s);
    size += s.length;
  }
  return parts.join('');
}

async function pdf(bytes: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  // About 45 lines of 90 characters a page; content streams are stored uncompressed.
  const pages = Math.max(1, Math.round(bytes / 5200));
  for (let p = 0; p < pages; p++) {
    const page = doc.addPage([612, 792]);
    for (let l = 0; l < 45; l++) page.drawText(sentence(p * 45 + l), { x: 40, y: 750 - l * 16, size: 9, font });
  }
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'text-mb': { type: 'string', default: '1' }, 'pdf-mb': { type: 'string', default: '2' } } });
  const config = loadConfig(
    {
      PORT: '0',
      HOST: '127.0.0.1',
      RUST_LOG: 'silent',
      SERVICE_LLM_PROVIDER: 'mock',
      SERVICE_MASTER_API_KEY: KEY,
      SERVICE_RATE_LIMIT_UPLOAD: '0',
      SERVICE_RATE_LIMIT_GRAPH: '0',
    },
    { cwd: `${__dirname}/../..` },
  );
  const rt = await createRuntime(config, createLogger('silent'));
  const { app } = createApp(rt);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  await rt.start();
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const headers = { 'X-API-Key': KEY };

  const inputs: Array<{ name: string; type: string; make: () => Promise<Buffer> }> = [
    { name: 'input.txt', type: 'text/plain', make: async () => Buffer.from(text(Number(values['text-mb']) * 1024 * 1024 - 1024)) },
    { name: 'input.pdf', type: 'application/pdf', make: () => pdf(Number(values['pdf-mb']) * 1024 * 1024) },
  ];
  process.stdout.write(
    '| input | size MB | ingest s | status | event-loop delay p99 / max ms | /health p50 / p99 / max ms (n) |\n|---|---:|---:|---|---:|---:|\n',
  );
  for (const input of inputs) {
    if (Number(values[input.name === 'input.txt' ? 'text-mb' : 'pdf-mb']) <= 0) continue;
    const data = await input.make();
    const body = new FormData();
    body.append('file', new Blob([new Uint8Array(data)], { type: input.type }), input.name);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    const health: number[] = [];
    let sampling = true;
    let failures = 0;
    const sampler = (async () => {
      while (sampling) {
        const t0 = performance.now();
        // A new connection each time: a stalled loop lets kept-alive sockets time out under the client.
        const ok = await fetch(`${url}/health`, { headers: { Connection: 'close' } }).then(
          (r) => r.arrayBuffer().then(() => true),
          () => false,
        );
        if (ok) health.push(performance.now() - t0);
        else failures += 1;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();
    delay.enable();
    const t0 = performance.now();
    const res = await fetch(`${url}/api/v1/documents/upload`, { method: 'POST', headers, body });
    const answer = (await res.json()) as { id?: string; document_id?: string; status?: string; detail?: string };
    const id = answer.document_id ?? answer.id;
    let status = answer.status ?? `HTTP ${res.status}`;
    while (id && status !== 'completed' && status !== 'failed') {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const doc = (await (await fetch(`${url}/api/v1/documents/${id}`, { headers })).json()) as { status: string; error?: string }; status = doc.status; if (status === "failed") console.error(doc.error);
    }
    const seconds = (performance.now() - t0) / 1000;
    sampling = false;
    await sampler;
    delay.disable();
    const sorted = health.sort((a, b) => a - b);
    process.stdout.write(
      `| ${input.name} | ${(data.length / 1024 / 1024).toFixed(1)} | ${seconds.toFixed(1)} | ${status}${res.status >= 400 ? ` (${answer.detail})` : ''} | ` +
        `${(delay.percentile(99) / 1e6).toFixed(0)} / ${(delay.max / 1e6).toFixed(0)} | ` +
        `${percentile(sorted, 50).toFixed(0)} / ${percentile(sorted, 99).toFixed(0)} / ${(sorted.at(-1) ?? 0).toFixed(0)} (${sorted.length}${failures ? `, ${failures} failed` : ''}) |\n`,
    );
  }
  server.closeAllConnections();
  server.close();
  await rt.close();
  process.exit(0);
}

void main();
