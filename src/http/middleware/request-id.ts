import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { AppState } from '../context';

const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Every response carries X-Request-ID: the caller's when well-formed, else a new UUID. */
export function requestId(): Middleware<AppState> {
  return async (ctx, next) => {
    const given = ctx.get('X-Request-ID');
    ctx.state.requestId = ACCEPTABLE.test(given) ? given : randomUUID();
    ctx.set('X-Request-ID', ctx.state.requestId);
    await next();
  };
}
