import { PassThrough } from 'node:stream';
import type { AppContext } from './context';

/** A streamed response body as its producer sees it: text goes out as written. */
export interface StreamBody {
  /** False when the stream is already closed (the text is dropped). */
  write(text: string): boolean;
  close(): void;
  readonly closed: boolean;
  /** Aborted when the client goes away or the stream is closed. */
  readonly signal: AbortSignal;
  /** Bytes written but not yet handed to the socket (they pile up while the client does not read). */
  buffered(): number;
}

export interface StreamBodyOptions {
  contentType: string;
  headers?: Record<string, string>;
  /** Text written after `everyMs` of silence (an SSE comment, or an event built then); none when absent. */
  keepAlive?: { everyMs: number; text: string | (() => string) };
  /** The last text written when the service shuts down while the stream is open (a final event); none when absent. */
  finalText?: string;
}

/**
 * Opens a streamed 200 response (SSE, NDJSON). The signal aborts when the client disconnects, so that work for
 * nobody stops; nothing is buffered (no Nagle delay, no socket timeout). When the service shuts down, the stream
 * ends with `finalText`.
 */
export function openStreamBody(ctx: AppContext, options: StreamBodyOptions): StreamBody {
  const stream = new PassThrough();
  const controller = new AbortController();
  let closed = false;
  let lastWrite = Date.now();
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.status = 200;
  ctx.set({
    'Content-Type': options.contentType,
    'Cache-Control': 'no-cache, no-transform',
    'X-Accel-Buffering': 'no',
    ...options.headers,
  });
  ctx.body = stream;

  const write = (text: string): boolean => {
    if (closed) return false;
    lastWrite = Date.now();
    stream.write(text);
    return true;
  };
  let timer: NodeJS.Timeout | undefined;
  const keepAlive = options.keepAlive;
  if (keepAlive) {
    timer = setInterval(
      () => {
        if (Date.now() - lastWrite >= keepAlive.everyMs) {
          write(typeof keepAlive.text === 'string' ? keepAlive.text : keepAlive.text());
        }
      },
      Math.max(50, Math.floor(keepAlive.everyMs / 2)),
    );
    timer.unref();
  }

  let forget = () => {};
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    controller.abort();
    stream.end();
    forget();
  };
  const drain = ctx.state.drain;
  if (drain) {
    forget = drain.track({
      shutdown() {
        if (options.finalText) write(options.finalText);
        close();
      },
    });
  }
  ctx.req.on('close', close);
  ctx.res.on('close', close);

  return {
    write,
    close,
    get closed() {
      return closed;
    },
    signal: controller.signal,
    buffered: () => stream.writableLength + stream.readableLength + ctx.res.writableLength,
  };
}

/**
 * Aborts when the client goes away before the response is complete: the signal of a request answered in one
 * piece, so that a client that gives up waiting stops the work too.
 */
export function requestSignal(ctx: AppContext): AbortSignal {
  const controller = new AbortController();
  const onClose = () => {
    if (!ctx.res.writableFinished) controller.abort(new DOMException('the client closed the connection', 'AbortError'));
  };
  ctx.res.once('close', onClose);
  ctx.req.once('close', () => {
    if (!ctx.req.complete) onClose();
  });
  return controller.signal;
}
