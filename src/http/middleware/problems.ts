import type { Middleware } from 'koa';
import type { Logger } from '../../logger';
import type { AppState } from '../context';
import { problemHeaders, toProblem } from '../errors';
import { Problem } from '../problem';

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
      ctx.set(problemHeaders(err));
      if (ctx.headerSent || !ctx.writable) return;
      ctx.status = problem.status;
      ctx.type = 'application/problem+json';
      ctx.body = JSON.stringify(problem.body(typeBase, ctx.path));
    }
  };
}
