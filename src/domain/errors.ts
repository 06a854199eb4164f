/**
 * Domain errors: what went wrong, in the words of the domain. Services, stores and providers throw these;
 * the HTTP layer translates them once (`src/http/errors.ts`) into RFC 7807 problems, SSE `error` events or
 * a compatibility layer's own error shape. Nothing below the HTTP layer knows a status code.
 */

export interface FieldError {
  field: string;
  message: string;
}

/** Members a problem body carries beside the standard ones (e.g. lineage's `{error, message}` pair). */
export type ErrorDetails = Record<string, unknown>;

export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;

  constructor(
    message: string,
    /** Extra, client-safe members of the answer. Never secrets. */
    readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export type DomainErrorKind =
  | 'malformed'
  | 'invalid'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'unsupported_media'
  | 'forbidden'
  | 'unauthenticated'
  | 'unavailable'
  | 'budget_exhausted'
  | 'rate_limited'
  | 'not_implemented';

/** The request cannot be read at all (unparsable JSON, a wrong content type). */
export class MalformedRequestError extends DomainError {
  readonly kind = 'malformed' as const;
}

/** The request is readable but breaks a rule; `fieldErrors` names each field. */
export class InvalidInputError extends DomainError {
  readonly kind = 'invalid' as const;

  constructor(
    readonly fieldErrors: FieldError[],
    details: ErrorDetails = {},
  ) {
    super(fieldErrors.map((e) => `${e.field}: ${e.message}`).join('; '), details);
  }

  static field(field: string, message: string, details?: ErrorDetails): InvalidInputError {
    return new InvalidInputError([{ field, message }], details);
  }
}

export class NotFoundError extends DomainError {
  readonly kind = 'not_found' as const;
}

/** What a write returned, or 404 when the object went away between its read and the write (a concurrent delete). */
export function stillThere<T>(value: T | null, what: string): T {
  if (value === null) throw new NotFoundError(`${what} was not found`);
  return value;
}

/** The request collides with an existing object; `existingId` names it when there is one. */
export class ConflictError extends DomainError {
  readonly kind = 'conflict' as const;

  constructor(
    message: string,
    readonly existingId: string | null = null,
    details: ErrorDetails = {},
  ) {
    super(message, details);
  }
}

/** A duplicate document: a conflict whose `duplicate_of` is the existing document's id. */
export class DuplicateError extends ConflictError {
  constructor(message: string, existingId: string) {
    super(message, existingId, { duplicate_of: existingId });
  }
}

/** Content over a size limit; `limitBytes` is the limit of the kind of content that was exceeded. */
export class TooLargeError extends DomainError {
  readonly kind = 'too_large' as const;

  constructor(
    message: string,
    readonly limitBytes: number,
    details: ErrorDetails = {},
  ) {
    super(message, details);
  }
}

export class UnsupportedMediaError extends DomainError {
  readonly kind = 'unsupported_media' as const;
}

/** The caller is known but may not do this. */
export class ForbiddenError extends DomainError {
  readonly kind = 'forbidden' as const;
}

/** No valid credential came with the request. */
export class UnauthenticatedError extends DomainError {
  readonly kind = 'unauthenticated' as const;
}

/** A dependency (database, provider, rate-limit store) cannot serve now; `component` names it. */
export class UnavailableError extends DomainError {
  readonly kind = 'unavailable' as const;

  constructor(
    message: string,
    readonly component: string | null = null,
    details: ErrorDetails = {},
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message, details);
  }
}

/** The workspace's or tenant's LLM budget for the period is spent. */
export class BudgetExhaustedError extends DomainError {
  readonly kind = 'budget_exhausted' as const;
}

/** Too many requests or too much queued work; `retryAfterSeconds` says when to come back. */
export class RateLimitedError extends DomainError {
  readonly kind = 'rate_limited' as const;

  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    details: ErrorDetails = {},
  ) {
    super(message, details);
  }
}

/** The operation exists but not in this deployment (e.g. raw Cypher in embedded mode). */
export class NotImplementedError extends DomainError {
  readonly kind = 'not_implemented' as const;
}

export function isDomainError(err: unknown): err is DomainError {
  return err instanceof DomainError;
}

/** Error codes of the Neo4j driver and of sockets that mean the other side cannot be reached. */
export const UNREACHABLE_CODES: ReadonlySet<unknown> = new Set(['ServiceUnavailable', 'SessionExpired', 'ECONNREFUSED']);

/**
 * Whether an error means that a dependency (a database, the vector store, a provider) cannot be reached now, not
 * that the request or the data is wrong: our own UnavailableError, and the codes the Neo4j driver, the Qdrant
 * adapter and sockets use for it.
 */
export function isOutage(err: unknown): boolean {
  if (err instanceof UnavailableError) return true;
  if (UNREACHABLE_CODES.has((err as { code?: unknown })?.code)) return true;
  // fetch (a model provider's HTTP API) reports a refused connection as the cause of a TypeError.
  const cause = (err as { cause?: { code?: unknown } })?.cause;
  return err instanceof TypeError && cause?.code === 'ECONNREFUSED';
}

/** The existing object's id of a conflict, or null for any other error. */
export function conflictingId(err: unknown): string | null {
  return err instanceof ConflictError ? err.existingId : null;
}
