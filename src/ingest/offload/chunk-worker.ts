import { parentPort } from 'node:worker_threads';
import { chunkLayout, type ChunkJob } from './chunk-layout';

/** Worker thread entry: tokenises and chunks a text, answering with the chunks' positions (chunk-layout.ts). */

parentPort?.on('message', (job: ChunkJob) => {
  try {
    const output = chunkLayout(job);
    parentPort?.postMessage({ ok: true, output }, [output.buffer as ArrayBuffer]);
  } catch (err) {
    const e = err as Error;
    parentPort?.postMessage({ ok: false, name: e.name, message: e.message });
  }
});
