import { chunkText, type ChunkOptions, type TextChunk } from '../chunk/chunker';

/**
 * Chunking split in two: a worker thread cuts the text (`chunkLayout`) and answers with the chunks' positions
 * only, packed in one transferable Int32Array; the caller slices the contents out of its own copy of the text
 * (`chunksFromLayout`). Neither the chunk strings nor per-chunk objects cross between threads.
 */

export interface ChunkJob {
  text: string;
  options: ChunkOptions;
}

/** Integers per chunk: char_start, char_end, tokens, start_line, end_line, page_start, page_end (-1: none). */
const FIELDS = 7;

export function chunkLayout({ text, options }: ChunkJob): Int32Array<ArrayBuffer> {
  const chunks = chunkText(text, options);
  const out = new Int32Array(chunks.length * FIELDS);
  chunks.forEach((c, i) => {
    out.set([c.char_start, c.char_end, c.tokens, c.start_line, c.end_line, c.page_start ?? -1, c.page_end ?? -1], i * FIELDS);
  });
  return out;
}

export function chunksFromLayout(text: string, layout: Int32Array): TextChunk[] {
  const chunks: TextChunk[] = [];
  for (let at = 0; at < layout.length; at += FIELDS) {
    const [char_start, char_end, tokens, start_line, end_line, page_start, page_end] = layout.subarray(at, at + FIELDS);
    chunks.push({
      index: chunks.length,
      content: text.slice(char_start, char_end),
      tokens,
      char_start,
      char_end,
      start_line,
      end_line,
      page_start: page_start < 0 ? null : page_start,
      page_end: page_end < 0 ? null : page_end,
    });
  }
  return chunks;
}
