import type { SseStream } from '../domain/sse';
import type { AppContext } from './context';
import { openStreamBody } from './stream';

export type { SseStream };

/** One SSE event: each line of the text as a `data:` line. */
function frame(data: unknown, raw = false): string {
  const text = raw ? String(data) : JSON.stringify(data);
  return (
    text
      .split('\n')
      .map((line) => `data: ${line}`)
      .join('\n') + '\n\n'
  );
}

/**
 * Opens an SSE response. Keep-alive comments go out every `keepAliveMs` of silence,
 * and the signal aborts when the client disconnects so that work for nobody stops. `finalEvent` is the last
 * event sent when the service shuts down while the stream is open.
 */
export function openSse(ctx: AppContext, keepAliveMs = 15_000, finalEvent?: unknown): SseStream {
  const body = openStreamBody(ctx, {
    contentType: 'text/event-stream; charset=utf-8',
    headers: { Connection: 'keep-alive' },
    keepAlive: { everyMs: keepAliveMs, text: ': keep-alive\n\n' },
    ...(finalEvent === undefined ? {} : { finalText: frame(finalEvent) }),
  });
  return {
    send: (data, raw = false) => body.write(frame(data, raw)),
    comment: (text) => void body.write(`: ${text}\n\n`),
    close: body.close,
    get closed() {
      return body.closed;
    },
    signal: body.signal,
  };
}
