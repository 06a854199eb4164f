import { isAbortError } from '../domain/abort';
import type { Logger } from '../logger';
import type { AppContext } from './context';
import { toProblem } from './errors';
import { Problem } from './problem';
import { openSse } from './sse';

/** The detail of the last event of a stream the service ends because it shuts down. */
export const SHUTDOWN_DETAIL = 'the service is shutting down; retry on another instance or shortly';

/** What one event becomes on the wire: JSON, raw text (`v1`), or nothing. */
export type Presented = { data: unknown; raw?: boolean } | null;

/**
 * Opens the SSE response and pumps the events into it in the background (Koa starts writing the body once
 * the handler returns). The stream's signal reaches the producer, so a client that leaves stops the work. A
 * failure after the stream opened becomes an `error` event carrying the problem a JSON route would answer
 * (same translator), then the stream ends; so does a shutdown while the stream is open (a 503 problem).
 */
export function pumpEvents<E>(
  ctx: AppContext,
  host: { log: Logger; errorTypeBase: string },
  events: (signal: AbortSignal) => AsyncGenerator<E, void, void>,
  present: (event: E) => Presented,
): void {
  const { requestId } = ctx.state;
  const path = ctx.path;
  const errorEvent = (problem: Problem) => {
    const { type, title, status, detail } = problem.body(host.errorTypeBase, path) as {
      type: string;
      title: string;
      status: number;
      detail: string;
    };
    return { type: 'error', error: { type, title, status, detail } };
  };
  const sse = openSse(ctx, undefined, errorEvent(new Problem(503, SHUTDOWN_DETAIL)));
  void (async () => {
    try {
      for await (const event of events(sse.signal)) {
        if (sse.closed) break;
        const out = present(event);
        if (out) sse.send(out.data, out.raw);
      }
    } catch (err) {
      if (sse.closed || sse.signal.aborted || isAbortError(err)) return;
      let problem = toProblem(err);
      if (!problem) {
        host.log.error({ err, requestId, path }, 'stream failed');
        problem = new Problem(500, `internal error; quote request id ${requestId}`, { request_id: requestId });
      } else if (problem.status >= 500) {
        host.log.warn({ err, requestId, path }, problem.detail);
      }
      sse.send(errorEvent(problem));
    } finally {
      sse.close();
    }
  })();
}
