import { join } from 'node:path';
import { chunkText, type ChunkOptions, type TextChunk } from '../chunker';
import { type ChunkJob, chunksFromLayout } from './chunk-layout';
import { WorkerPool } from './pool';

/**
 * Chunking off the event loop: texts past OFF_LOOP_MIN_CHARS are tokenised and cut in a worker thread (the
 * same `chunkText`, so the chunks are identical); shorter ones, which take a few milliseconds, stay here.
 */

/** About 8,000 tokens: below this, chunking takes less time than a round trip to a worker. */
export const OFF_LOOP_MIN_CHARS = 32 * 1024;

let pool: WorkerPool<ChunkJob, Int32Array> | undefined;

export async function chunkTextOffLoop(text: string, options: ChunkOptions = {}): Promise<TextChunk[]> {
  if (text.length < OFF_LOOP_MIN_CHARS) return chunkText(text, options);
  pool ??= new WorkerPool<ChunkJob, Int32Array>(join(__dirname, 'chunk-worker'));
  const layout = await pool.run({ text, options: { ...options, pages: options.pages ?? null } });
  return chunksFromLayout(text, layout);
}
