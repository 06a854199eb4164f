import { PassThrough } from 'node:stream';
import type { SseStream } from '../domain/sse';
import type { AppContext } from './context';

export type { SseStream };

/**
 * Opens an SSE response. Keep-alive comments go out every `keepAliveMs` of silence,
 * and the signal aborts when the client disconnects so that work for nobody stops.
 */
export function openSse(ctx: AppContext, keepAliveMs = 15_000): SseStream {
  const stream = new PassThrough();
  const controller = new AbortController();
  let closed = false;
  let lastWrite = Date.now();
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.status = 200;
  ctx.set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  ctx.body = stream;

  const write = (chunk: string): boolean => {
    if (closed) return false;
    lastWrite = Date.now();
    stream.write(chunk);
    return true;
  };
  const timer = setInterval(
    () => {
      if (Date.now() - lastWrite >= keepAliveMs) write(': keep-alive\n\n');
    },
    Math.max(50, Math.floor(keepAliveMs / 2)),
  );
  timer.unref();

  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    controller.abort();
    stream.end();
  };
  ctx.req.on('close', close);
  ctx.res.on('close', close);

  return {
    send: (data, raw = false) => {
      const text = raw ? String(data) : JSON.stringify(data);
      return write(
        text
          .split('\n')
          .map((line) => `data: ${line}`)
          .join('\n') + '\n\n',
      );
    },
    comment: (text) => void write(`: ${text}\n\n`),
    close,
    get closed() {
      return closed;
    },
    signal: controller.signal,
  };
}
