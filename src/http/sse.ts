import type { SseStream } from '../domain/sse';
import type { AppContext } from './context';
import { openStreamBody } from './stream';

export type { SseStream };

/**
 * Opens an SSE response. Keep-alive comments go out every `keepAliveMs` of silence,
 * and the signal aborts when the client disconnects so that work for nobody stops.
 */
export function openSse(ctx: AppContext, keepAliveMs: number | null = 15_000): SseStream {
  const body = openStreamBody(ctx, {
    contentType: 'text/event-stream; charset=utf-8',
    headers: { Connection: 'keep-alive' },
    ...(keepAliveMs === null ? {} : { keepAlive: { everyMs: keepAliveMs, text: ': keep-alive\n\n' } }),
  });
  return {
    send: (data, raw = false, id) => {
      const text = raw ? String(data) : JSON.stringify(data);
      const lines = text
        .split('\n')
        .map((line) => `data: ${line}`)
        .join('\n');
      return body.write(`${id === undefined ? '' : `id: ${id}\n`}${lines}\n\n`);
    },
    buffered: body.buffered,
    comment: (text) => void body.write(`: ${text}\n\n`),
    close: body.close,
    get closed() {
      return body.closed;
    },
    signal: body.signal,
  };
}
