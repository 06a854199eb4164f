import { join } from 'node:path';
import { chunkText, type ChunkOptions, type TextChunk } from '../chunk/chunker';
import { type ChunkJob, chunksFromLayout } from './chunk-layout';
import { type CpuPool, cpuTask } from './cpu-pool';

/**
 * Chunking off the event loop: texts past OFF_LOOP_MIN_CHARS are tokenised and cut in the CPU pool (the same
 * `chunkText`, so the chunks are identical); shorter ones, which take a few milliseconds, stay here.
 */

/** About 8,000 tokens: below this, chunking takes less time than a round trip to a worker. */
export const OFF_LOOP_MIN_CHARS = 32 * 1024;

const CHUNK_LAYOUT = cpuTask<ChunkJob, Int32Array>(join(__dirname, 'chunk-layout'), 'chunkLayout');

export async function chunkTextOffLoop(cpu: CpuPool, text: string, options: ChunkOptions = {}): Promise<TextChunk[]> {
  if (text.length < OFF_LOOP_MIN_CHARS) return chunkText(text, options);
  const layout = await cpu.run(CHUNK_LAYOUT, { text, options: { ...options, pages: options.pages ?? null } });
  return chunksFromLayout(text, layout);
}
