import { isAbortError } from '../domain/abort';
import type { EventSource, StreamSink } from '../domain/stream';
import type { Logger } from '../logger';
import type { AppContext } from './context';
import { problemOfError } from './errors';
import { Problem } from './problem';
import { type StreamBody, openStreamBody } from './stream';

/** The detail of the last event of a stream the service ends because it shuts down. */
export const SHUTDOWN_DETAIL = 'the service is shutting down; retry on another instance or shortly';

/**
 * The one error event of every stream: a failure after the stream opened, or a shutdown while it is open, as the
 * problem a JSON route would answer (same translator). Protocols with an error shape of their own (Ollama, OpenAI,
 * the graph feed) map it in their presenter.
 */
export interface StreamError {
  type: 'error';
  problem: Problem;
}

/** Whether the error event is the one a shutdown sends. */
export const isShutdown = (error: StreamError): boolean => error.problem.status === 503 && error.problem.detail === SHUTDOWN_DETAIL;

/** What one event becomes on the wire: JSON, or raw text (SSE only: `v1`, `[DONE]`), with an SSE `id:`; null: nothing. */
export type Presented = { data: unknown; raw?: boolean; id?: string } | null;

export interface PumpOptions<E> {
  log: Logger;
  /** The base of problem `type` URIs in the default error event. */
  errorTypeBase: string;
  /** `sse` (default): `data:` events (`id:` when presented with one); `ndjson`: one JSON object per line. */
  framing?: 'sse' | 'ndjson';
  /**
   * What goes out after `everyMs` of silence: an SSE comment, or the event `event()` builds (a heartbeat that
   * carries the stream's position). Default: a comment every 15 s on SSE, nothing on NDJSON; null: nothing.
   */
  keepAlive?: { everyMs: number; event?: () => E } | null;
  /**
   * A resumable stream: the sink carries the id of the last event the client received, `given` when set (a query
   * parameter, for clients that cannot send headers), else the `Last-Event-ID` header.
   */
  resume?: { given?: string };
  /**
   * Open the response only once the first event exists, so that a failure before it (an unknown start node, a
   * malformed last event id) is an ordinary problem response. Default: the response opens at once.
   */
  openOnFirstEvent?: boolean;
  /** The wire form of the error event; default `{type: 'error', error: {type, title, status, detail}}`. */
  presentError?: (error: StreamError) => Presented;
}

const SSE_KEEP_ALIVE_MS = 15_000;

/** One event in its framing: an SSE event (`id:`, then each line of the text as a `data:` line), or an NDJSON line. */
function frame(out: Presented | Presented[], framing: 'sse' | 'ndjson'): string {
  return (Array.isArray(out) ? out : [out])
    .map((one) => {
      if (!one) return '';
      if (framing === 'ndjson') return `${JSON.stringify(one.data)}\n`;
      const text = one.raw ? String(one.data) : JSON.stringify(one.data);
      const lines = text
        .split('\n')
        .map((line) => `data: ${line}`)
        .join('\n');
      return `${one.id === undefined ? '' : `id: ${one.id}\n`}${lines}\n\n`;
    })
    .join('');
}

/**
 * Pumps a stream of events to the client, SSE or NDJSON, in the background (Koa starts writing the body once the
 * handler returns). `present` gives each event its wire form (one or several frames, or nothing). The sink's
 * signal reaches the producer, so a client that leaves stops the work; a stream the pump stops (the client left,
 * a shutdown) returns the producer's generator, which runs its `finally`. A failure after the stream opened
 * becomes the error event, then the stream ends; so does a shutdown while the stream is open (a 503 problem).
 * Resolves once the response is open (at once unless `openOnFirstEvent`).
 */
export async function pumpEvents<E>(
  ctx: AppContext,
  events: EventSource<E>,
  present: (event: E) => Presented | Presented[],
  options: PumpOptions<E>,
): Promise<void> {
  const framing = options.framing ?? 'sse';
  const where = { requestId: ctx.state.requestId, path: ctx.path };
  const presentError =
    options.presentError ??
    (({ problem }: StreamError): Presented => {
      const { type, title, status, detail } = problem.body(options.errorTypeBase, where.path);
      return { data: { type: 'error', error: { type, title, status, detail } } };
    });
  const errorFrame = (problem: Problem) => frame(presentError({ type: 'error', problem }), framing);

  const controller = new AbortController();
  let body: StreamBody | null = null;
  const header = ctx.get('Last-Event-ID').trim() || undefined;
  const sink: StreamSink = {
    signal: controller.signal,
    buffered: () => body?.buffered() ?? 0,
    ...(options.resume ? { lastEventId: options.resume.given ?? header } : {}),
  };
  const stream = events(sink);
  // A failure here is thrown to the handler: nothing went out yet.
  const first = options.openOnFirstEvent ? await stream.next() : null;

  const keepAlive = options.keepAlive === undefined ? (framing === 'sse' ? { everyMs: SSE_KEEP_ALIVE_MS } : null) : options.keepAlive;
  const heartbeat = keepAlive?.event;
  const opened = openStreamBody(ctx, {
    ...(framing === 'sse'
      ? { contentType: 'text/event-stream; charset=utf-8', headers: { Connection: 'keep-alive' } }
      : { contentType: 'application/x-ndjson' }),
    ...(keepAlive
      ? { keepAlive: { everyMs: keepAlive.everyMs, text: heartbeat ? () => frame(present(heartbeat()), framing) : ': keep-alive\n\n' } }
      : {}),
    finalText: errorFrame(new Problem(503, SHUTDOWN_DETAIL)),
  });
  body = opened;
  opened.signal.addEventListener('abort', () => controller.abort(), { once: true });

  void (async () => {
    try {
      if (first && !first.done) opened.write(frame(present(first.value), framing));
      if (first?.done) return;
      for await (const event of stream) {
        if (opened.closed) break;
        opened.write(frame(present(event), framing));
      }
    } catch (err) {
      if (opened.closed || opened.signal.aborted || isAbortError(err)) return;
      opened.write(errorFrame(problemOfError(err, options.log, where)));
    } finally {
      opened.close();
      // A producer that was not run to its end (the pump stopped early) runs its cleanup.
      await stream.return(undefined).catch(() => undefined);
    }
  })();
}
