import type { CompatAnswer } from './answer';

/** Wire framing of the compatibility streams: NDJSON lines (local runtime) and SSE `data:` frames (OpenAI). */

export const NDJSON_TYPE = 'application/x-ndjson';
export const SSE_TYPE = 'text/event-stream; charset=utf-8';

/** One JSON object on one line; JSON.stringify escapes every newline inside strings. */
export const ndjsonLine = (value: unknown): string => `${JSON.stringify(value)}\n`;

/** One SSE event: a single `data:` line, no `event:` line (OpenAI clients read only data). */
export const sseData = (value: unknown): string => `data: ${JSON.stringify(value)}\n\n`;

export const SSE_DONE = 'data: [DONE]\n\n';

/**
 * The frames of a streamed answer: the opening frames (sent before any work), one per fragment, then the
 * closing frames built from the whole answer. Stops asking for fragments as soon as the consumer stops reading.
 */
export async function* answerFrames(
  run: AsyncGenerator<string, CompatAnswer, void>,
  frames: { opening?: string[]; fragment: (text: string) => string; closing: (answer: CompatAnswer) => string[] },
): AsyncGenerator<string, void, void> {
  const { fragment, closing } = frames;
  let done = false;
  try {
    yield* frames.opening ?? [];
    for (;;) {
      const next = await run.next();
      if (next.done) {
        done = true;
        yield* closing(next.value);
        return;
      }
      yield fragment(next.value);
    }
  } finally {
    if (!done) await run.return(undefined as never).catch(() => undefined);
  }
}
