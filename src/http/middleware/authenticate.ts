import type { Middleware } from 'koa';
import type { AuthService } from '../../services/auth';
import type { AppState } from '../context';

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
      ctx.state.credentialError = err as Error;
    }
    await next();
  };
}
