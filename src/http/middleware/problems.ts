import type { Middleware } from 'koa';
import type { Logger } from '../../logger';
import type { AppState } from '../context';
import { Problem, isProblem } from '../problem';

/** Infrastructure errors that are the caller's fault or a dependency's, mapped to problems. */
function toProblem(err: unknown): Problem | null {
  if (isProblem(err)) return err;
  const e = err as { status?: number; statusCode?: number; expose?: boolean; message?: string; type?: string; code?: string };
  if (e?.type === 'entity.parse.failed') return new Problem(400, 'failed to parse the request body as JSON');
  if (e?.type === 'entity.too.large') return new Problem(413, 'request body exceeds the size limit');
  if (e?.code === 'ServiceUnavailable' || e?.code === 'SessionExpired' || e?.code === 'ECONNREFUSED') {
    return new Problem(503, 'a storage dependency is unavailable; retry shortly');
  }
  const status = e?.status ?? e?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new Problem(status, e.expose && e.message ? e.message : 'request refused');
  }
  return null;
}

/**
 * Turns every error into RFC 7807 problem details. Unknown errors become 500 with the request id,
 * logged with their cause; their messages never reach the client.
 */
export function problems(log: Logger, typeBase: string): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new Problem(404, `no route for ${ctx.method} ${ctx.path}`);
      }
      if (ctx.status === 405 && (ctx.body === undefined || typeof ctx.body === 'string')) {
        throw new Problem(405, `method ${ctx.method} is not allowed on ${ctx.path}`);
      }
    } catch (err) {
      let problem = toProblem(err);
      if (!problem) {
        log.error({ err, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path }, 'unhandled error');
        problem = new Problem(500, `internal error; quote request id ${ctx.state.requestId}`, {
          request_id: ctx.state.requestId,
        });
      } else if (problem.status >= 500) {
        log.warn({ err, requestId: ctx.state.requestId, path: ctx.path }, problem.detail);
      }
      const headers = (err as { headers?: Record<string, string> })?.headers;
      if (headers) ctx.set(headers);
      if (ctx.headerSent || !ctx.writable) return;
      ctx.status = problem.status;
      ctx.type = 'application/problem+json';
      ctx.body = JSON.stringify(problem.body(typeBase, ctx.path));
    }
  };
}
