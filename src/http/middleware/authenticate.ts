import type { Middleware } from 'koa';
import { UnauthenticatedError } from '../../domain/errors';
import type { Logger } from '../../logger';
import type { AuthService, Credentials } from '../../services/auth';
import type { AppContext, AppState } from '../context';
import { onBehalfOf } from '../../domain/work-owner';
import { isUnavailable, unavailableFrom } from '../errors';

/**
 * Whose share of the store's connections credential look-ups draw on: their own, not that of the caller whose
 * tenant they have yet to tell, so that no tenant's load turns another's valid key into a refusal.
 */
const CREDENTIAL_CHECKS = '(credential checks)';

/**
 * Reads the credentials a request presents (`X-API-Key`, `Authorization: Bearer`) and records who is calling,
 * or why the credentials were refused. It refuses nothing itself: the rate limiter that follows counts per
 * caller, and each route's guard answers 401 or 403 (docs/api.md §5.3). X-API-Key is read before a Bearer token; an
 * empty or malformed value in either header is refused as an invalid credential is, even beside a valid one. While the API
 * is open (dev mode, authentication off) a credential that is not valid is ignored, as local model servers ignore
 * the made-up key an SDK insists on (§5.4).
 */
export function credentials(auth: AuthService, log: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      const presented = presentedCredentials(ctx as AppContext);
      const principal = await onBehalfOf(CREDENTIAL_CHECKS, () => auth.authenticate(presented));
      if (principal) ctx.state.principal = principal;
    } catch (err) {
      const failure = lookupFailure(err);
      if (failure) ctx.state.credentialLookupFailure = failure;
      else if (auth.open) log.debug({ reason: (err as Error).message, path: ctx.path }, 'invalid credential ignored: the API is open');
      else ctx.state.credentialError = err as Error;
    }
    await next();
  };
}

/** The credentials of the two headers; a header that is sent but holds no usable credential is refused. */
function presentedCredentials(ctx: AppContext): Credentials {
  const keyHeader = headerValue(ctx, 'x-api-key');
  const authorization = headerValue(ctx, 'authorization');
  if (keyHeader !== null && !keyHeader) throw new UnauthenticatedError('X-API-Key is empty');
  let bearer: string | null = null;
  if (authorization !== null) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (!match) {
      throw new UnauthenticatedError(
        /^Bearer\b/i.test(authorization) ? 'Authorization: Bearer carries no single token' : 'Authorization must use the Bearer scheme',
      );
    }
    bearer = match[1];
  }
  return { apiKey: keyHeader, bearer };
}

/** A header as sent (trimmed; repeated ones joined), or null when absent. */
function headerValue(ctx: AppContext, name: string): string | null {
  const value = ctx.headers[name];
  if (value === undefined) return null;
  return (Array.isArray(value) ? value.join(',') : value).trim();
}

/**
 * A look-up that failed without judging the credential: a store outage or an exhausted connection pool becomes a 503
 * with Retry-After, anything else unexpected stays itself (a 500). Null for a refusal of the credential (a 401).
 */
export function lookupFailure(err: unknown): Error | null {
  if (err instanceof UnauthenticatedError) return null;
  return isUnavailable(err) ? unavailableFrom(err, 'the credential store') : (err as Error);
}
