import { parentPort } from 'node:worker_threads';
import { decodeText, type DecodeJob } from './decode';

/** Worker thread entry: decodes an uploaded text file (UTF-8 check, JSON pretty-printing) into document text. */

parentPort?.on('message', (job: DecodeJob) => {
  try {
    parentPort?.postMessage({ ok: true, output: decodeText(job) });
  } catch (err) {
    const e = err as Error;
    parentPort?.postMessage({ ok: false, name: e.name, message: e.message });
  }
});
