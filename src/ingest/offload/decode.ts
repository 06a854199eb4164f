import { join } from 'node:path';
import { decodeUtf8, jsonText } from '../loaders/text';
import { LoadError } from '../loaders/types';
import { OFF_LOOP_MIN_CHARS } from './chunk';
import { CpuJobError, type CpuPool, cpuTask } from './cpu-pool';

/**
 * Text files into document text: UTF-8 decoding with its checks, and JSON parsed and pretty-printed. A large
 * file is decoded in the CPU pool (a 10 MB JSON file takes a good part of a second); a small one here.
 */

export interface DecodeJob {
  data: Uint8Array;
  json: boolean;
}

export function decodeText({ data, json }: DecodeJob): string {
  const raw = decodeUtf8(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  if (!raw.trim()) throw new LoadError('file is empty');
  return json ? jsonText(raw) : raw;
}

const DECODE_TEXT = cpuTask<DecodeJob, string>(join(__dirname, 'decode'), 'decodeText');

export async function decodeTextOffLoop(cpu: CpuPool, data: Buffer, json: boolean): Promise<string> {
  if (data.length < OFF_LOOP_MIN_CHARS) return decodeText({ data, json });
  try {
    // The bytes are copied to the worker: the caller keeps its buffer.
    return await cpu.run(DECODE_TEXT, { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), json });
  } catch (err) {
    if (err instanceof CpuJobError && err.name === 'LoadError') throw new LoadError(err.message);
    throw err;
  }
}
