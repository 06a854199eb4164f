import type { Middleware } from 'koa';
import { isAbortError } from '../domain/abort';
import type { Logger } from '../logger';
import { type CompatFlavour, compatFlavourOf } from './compat-paths';
import type { AppState } from './context';
import { problemHeaders, problemOfError } from './errors';
import { Problem } from './problem';
import type { Presented, StreamError } from './sse-pump';

/**
 * Errors of the compatibility APIs in their clients' shapes (docs/api.md §4.12): the local runtime's
 * `{"error": "..."}` and OpenAI's `{"error": {message, type, param, code}}`, from the same translator as the
 * problem details of the rest of the API. Validation failures are 400 there, as both APIs answer them.
 */

export interface CompatErrorReply {
  status: number;
  body: unknown;
}

const OPENAI_TYPES: Record<number, [type: string, code: string | null]> = {
  400: ['invalid_request_error', null],
  401: ['invalid_request_error', 'invalid_api_key'],
  402: ['insufficient_quota', 'insufficient_quota'],
  403: ['permission_error', 'forbidden'],
  404: ['invalid_request_error', 'not_found'],
  405: ['invalid_request_error', 'method_not_allowed'],
  409: ['invalid_request_error', 'conflict'],
  413: ['invalid_request_error', 'payload_too_large'],
  429: ['requests', 'rate_limit_exceeded'],
  501: ['server_error', 'not_implemented'],
  503: ['server_error', 'service_unavailable'],
};

/** The reply of a problem in a flavour's shape. */
export function compatReply(problem: Problem, flavour: CompatFlavour): CompatErrorReply {
  const status = problem.status === 422 || problem.status === 415 ? 400 : problem.status;
  if (flavour === 'ollama') return { status, body: { error: problem.detail } };
  const [type, defaultCode] = OPENAI_TYPES[status] ?? (status >= 500 ? ['server_error', null] : ['invalid_request_error', null]);
  const extra = problem.extra as { param?: unknown; code?: unknown; errors?: Array<{ field: string }> };
  const param = typeof extra.param === 'string' ? extra.param : (extra.errors?.[0]?.field ?? null);
  const code = typeof extra.code === 'string' ? extra.code : defaultCode;
  return { status, body: { error: { message: problem.detail, type, param, code } } };
}

/**
 * Answers errors on the compatibility paths in their API's shape. It sits outside the rate limiter, the body
 * parser and the workspace context, so that their refusals read the same as the handlers'.
 */
export function compatErrors(log: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    const flavour = compatFlavourOf(ctx.path);
    if (!flavour) return next();
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new Problem(404, `no route for ${ctx.method} ${ctx.path}`);
      if (ctx.status === 405 && (ctx.body === undefined || typeof ctx.body === 'string')) {
        throw new Problem(405, `method ${ctx.method} is not allowed on ${ctx.path}`);
      }
    } catch (err) {
      // A client that left is nobody to answer.
      if (isAbortError(err) && (ctx.req.destroyed || !ctx.writable)) return;
      const problem = problemOfError(err, log, { requestId: ctx.state.requestId, path: ctx.path });
      ctx.set(problemHeaders(err));
      if (ctx.headerSent || !ctx.writable) return;
      const reply = compatReply(problem, flavour);
      ctx.status = reply.status;
      ctx.type = 'application/json';
      ctx.body = reply.body;
    }
  };
}

/** The stream error event in a flavour's shape: the last NDJSON line or `data:` frame of a failed answer. */
export const compatErrorEvent =
  (flavour: CompatFlavour) =>
  ({ problem }: StreamError): Presented => ({ data: compatReply(problem, flavour).body });
