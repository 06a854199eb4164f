import type { Middleware } from 'koa';
import { UnauthenticatedError } from '../../domain/errors';
import type { AuthService } from '../../services/auth';
import type { AppState } from '../context';
import { isUnavailable, unavailableFrom } from '../errors';

/**
 * Reads the credentials a request presents (`X-API-Key`, `Authorization: Bearer`) and records who is calling,
 * or why the credentials were refused. It refuses nothing itself: the rate limiter that follows counts per
 * caller, and each route's guard answers 401 or 403 (docs/api.md §5.3).
 */
export function credentials(auth: AuthService): Middleware<AppState> {
  return async (ctx, next) => {
    const apiKey = ctx.get('X-API-Key').trim() || null;
    const authorization = ctx.get('Authorization').trim();
    const bearer = /^Bearer\s+\S/i.test(authorization) ? authorization.replace(/^Bearer\s+/i, '').trim() : null;
    try {
      const principal = await auth.authenticate({ apiKey, bearer });
      if (principal) ctx.state.principal = principal;
      else if (authorization && !bearer) ctx.state.credentialError = new Error('Authorization must use the Bearer scheme');
    } catch (err) {
      const failure = lookupFailure(err);
      if (failure) ctx.state.credentialLookupFailure = failure;
      else ctx.state.credentialError = err as Error;
    }
    await next();
  };
}

/**
 * A look-up that failed without judging the credential: a store outage or an exhausted connection pool becomes a 503
 * with Retry-After, anything else unexpected stays itself (a 500). Null for a refusal of the credential (a 401).
 */
export function lookupFailure(err: unknown): Error | null {
  if (err instanceof UnauthenticatedError) return null;
  return isUnavailable(err) ? unavailableFrom(err, 'the credential store') : (err as Error);
}
