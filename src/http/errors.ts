import {
  type DomainError,
  type DomainErrorKind,
  InvalidInputError,
  MalformedRequestError,
  RateLimitedError,
  TooLargeError,
  UnavailableError,
  isDomainError,
  isOutage,
} from '../domain/errors';
import type { Logger } from '../logger';
import { Problem } from './problem';

/** HTTP status of each domain error kind: the one place where domain words become status codes. */
export const STATUS_OF: Record<DomainErrorKind, number> = {
  malformed: 400,
  unauthenticated: 401,
  budget_exhausted: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported_media: 415,
  invalid: 422,
  rate_limited: 429,
  not_implemented: 501,
  unavailable: 503,
};

/** Response headers a domain error asks for (`Retry-After`, `WWW-Authenticate`). */
export function headersOf(err: DomainError): Record<string, string> {
  const headers: Record<string, string> = {};
  if ((err instanceof RateLimitedError || err instanceof UnavailableError) && err.retryAfterSeconds !== null) {
    headers['Retry-After'] = String(Math.max(1, Math.ceil(err.retryAfterSeconds)));
  }
  if (err.kind === 'unauthenticated') headers['WWW-Authenticate'] = 'Bearer, ApiKey';
  return headers;
}

function fromDomain(err: DomainError): Problem {
  const extra: Record<string, unknown> = { ...err.details };
  if (err instanceof InvalidInputError) extra.errors = err.fieldErrors;
  if (err instanceof TooLargeError) extra.limit_bytes = err.limitBytes;
  return new Problem(STATUS_OF[err.kind], err.message, extra);
}

/** A JSON body koa-body could not read: over the limit (quoted), or not JSON. The one mapping of body errors. */
export function bodyError(err: unknown, limitBytes: number): MalformedRequestError | TooLargeError {
  const e = err as { type?: string; status?: number };
  if (e?.type === 'entity.too.large' || e?.status === 413) {
    return new TooLargeError(`request body exceeds the ${formatBytes(limitBytes)} limit of JSON bodies`, limitBytes);
  }
  if (/prototype property/.test(String((err as { message?: unknown })?.message))) {
    return new MalformedRequestError('the request body has a JSON member named __proto__, which is refused');
  }
  return new MalformedRequestError('failed to parse the request body as JSON');
}

function formatBytes(bytes: number): string {
  const MB = 1024 * 1024;
  return bytes % MB === 0 ? `${bytes / MB} MB` : `${bytes} bytes`;
}

/** The Neo4j driver's connection pool had no connection free in time: the database is saturated, not down. */
function isPoolExhausted(err: unknown): boolean {
  const e = err as { name?: unknown; message?: unknown };
  return e?.name === 'Neo4jError' && typeof e.message === 'string' && e.message.startsWith('Connection acquisition timed out');
}

const BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * Whether an error says a store cannot serve now (down, its connection pool exhausted, a transient database
 * error), as opposed to a verdict on the request: such a failure answers 503 with Retry-After.
 */
export function isUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return isOutage(err) || isPoolExhausted(err) || (typeof code === 'string' && code.startsWith('Neo.TransientError.'));
}

/** The 503 error of a store that could not serve, keeping the cause for the log. */
export function unavailableFrom(err: unknown, what: string): UnavailableError {
  if (err instanceof UnavailableError && err.retryAfterSeconds !== null) return err;
  const unavailable = new UnavailableError(`${what} is unavailable; retry shortly`, null, {}, BUSY_RETRY_AFTER_SECONDS);
  unavailable.cause = err;
  return unavailable;
}

/**
 * The problem an error answers with, or null for an unknown error (a 500, logged with its cause).
 * Used by JSON routes, SSE streams and the compatibility layers alike, so an outage reads the same on each.
 */
export function toProblem(err: unknown): Problem | null {
  if (err instanceof Problem) return err;
  if (isDomainError(err)) return fromDomain(err);
  const e = err as { status?: number; statusCode?: number; expose?: boolean; message?: string };
  if (isOutage(err)) return new Problem(503, 'a storage dependency is unavailable; retry shortly');
  if (isPoolExhausted(err)) return new Problem(503, 'the graph database is busy; retry shortly');
  const status = e?.status ?? e?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new Problem(status, e.expose && e.message ? e.message : 'request refused');
  }
  return null;
}

/** The problem of an error; unknown errors are logged and become a 500 quoting the request id. */
export function problemOfError(err: unknown, log: Logger, where: { requestId: string; path: string }): Problem {
  const problem = toProblem(err);
  if (!problem) {
    log.error({ err, ...where }, 'unhandled error');
    return new Problem(500, `internal error; quote request id ${where.requestId}`, { request_id: where.requestId });
  }
  if (problem.status >= 500) log.warn({ err, ...where }, problem.detail);
  return problem;
}

/** Headers to send with the problem of `err`. */
export function problemHeaders(err: unknown): Record<string, string> {
  if (isDomainError(err)) return headersOf(err);
  if (isPoolExhausted(err)) return { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) };
  const headers = (err as { headers?: Record<string, string> })?.headers;
  return headers && typeof headers === 'object' ? headers : {};
}
