import type { Middleware } from 'koa';
import type { AppState } from '../context';

/**
 * Response headers every answer carries: no content sniffing, no framing by other sites, no referrer sent on, and
 * API answers (JSON, problems, streams) are not to be cached by shared caches.
 */
export function secureHeaders(): Middleware<AppState> {
  return async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
    await next();
  };
}
