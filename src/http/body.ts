import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';
import type { AppState } from './context';
import { bodyError } from './errors';

const MB = 1024 * 1024;

/**
 * JSON bodies everywhere (multipart is parsed only by the upload routes). On the paths `alwaysJson` accepts, a
 * body is JSON whatever its Content-Type says: clients of the local runtime often send none (`curl -d`).
 */
export function jsonBody(limitBytes = 12 * MB, alwaysJson: (path: string) => boolean = () => false): Middleware<AppState> {
  const parse = koaBody({
    json: true,
    jsonLimit: limitBytes,
    jsonStrict: true,
    multipart: false,
    urlencoded: false,
    text: false,
    onError: (err) => {
      throw bodyError(err, limitBytes);
    },
  }) as unknown as Middleware<AppState>;
  return (ctx, next) => {
    if (alwaysJson(ctx.path) && ctx.request.length !== 0 && !ctx.is('application/json')) {
      ctx.req.headers['content-type'] = 'application/json';
    }
    return parse(ctx, next);
  };
}
