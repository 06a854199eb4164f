import type { CompatAnswer } from './answer';

/** The events of a streamed answer: `start` before any work, a `fragment` per piece of text, then the whole `answer`. */
export type AnswerEvent = { type: 'start' } | { type: 'fragment'; text: string } | { type: 'answer'; answer: CompatAnswer };

/**
 * A turn's run as stream events (docs/architecture.md, Streams); the routes present them in their API's shape.
 * Stops asking for fragments as soon as the consumer stops reading.
 */
export async function* answerEvents(run: AsyncGenerator<string, CompatAnswer, void>): AsyncGenerator<AnswerEvent, void, void> {
  let done = false;
  try {
    yield { type: 'start' };
    for (;;) {
      const next = await run.next();
      if (next.done) {
        done = true;
        yield { type: 'answer', answer: next.value };
        return;
      }
      yield { type: 'fragment', text: next.value };
    }
  } finally {
    if (!done) await run.return(undefined as never).catch(() => undefined);
  }
}
