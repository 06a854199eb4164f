import type { Middleware } from 'koa';
import type { AppState } from '../context';
import { isPlainObject, jsonBytes } from '../json-bytes';

/**
 * JSON answers are serialised here, once, into the bytes that are sent (../json-bytes.ts), instead of by Koa,
 * which serialises to a string, measures its UTF-8 length in one pass and encodes it in another while writing.
 * Same bytes, same `Content-Type`. Sits inside the problem mapping, so that a body that cannot be serialised
 * is answered as a 500 problem.
 */
export function jsonResponses(): Middleware<AppState> {
  return async (ctx, next) => {
    await next();
    const body = ctx.body;
    if (Array.isArray(body) || isPlainObject(body)) {
      // Koa typed the object as JSON when it was set; a Buffer keeps the type already there.
      const typed = ctx.response.get('Content-Type') !== '';
      ctx.body = jsonBytes(body);
      if (!typed) ctx.type = 'json';
    }
  };
}
