import type { SseStream } from '../domain/sse';
import type { AppContext } from './context';
import { openStreamBody } from './stream';

export type { SseStream };

/** One SSE event: an `id:` line when given, then each line of the text as a `data:` line. */
function frame(data: unknown, raw = false, id?: string): string {
  const text = raw ? String(data) : JSON.stringify(data);
  const lines = text
    .split('\n')
    .map((line) => `data: ${line}`)
    .join('\n');
  return `${id === undefined ? '' : `id: ${id}\n`}${lines}\n\n`;
}

/**
 * Opens an SSE response. Keep-alive comments go out every `keepAliveMs` of silence (none when null),
 * and the signal aborts when the client disconnects so that work for nobody stops. `finalEvent` is the last
 * event sent when the service shuts down while the stream is open.
 */
export function openSse(ctx: AppContext, keepAliveMs: number | null = 15_000, finalEvent?: unknown): SseStream {
  const body = openStreamBody(ctx, {
    contentType: 'text/event-stream; charset=utf-8',
    headers: { Connection: 'keep-alive' },
    ...(keepAliveMs === null ? {} : { keepAlive: { everyMs: keepAliveMs, text: ': keep-alive\n\n' } }),
    ...(finalEvent === undefined ? {} : { finalText: frame(finalEvent) }),
  });
  return {
    send: (data, raw = false, id) => body.write(frame(data, raw, id)),
    buffered: body.buffered,
    comment: (text) => void body.write(`: ${text}\n\n`),
    close: body.close,
    get closed() {
      return body.closed;
    },
    signal: body.signal,
  };
}
