import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';
import type { AppState } from './context';
import { bodyError } from './errors';

const MB = 1024 * 1024;

/** JSON bodies everywhere (multipart is parsed only by the upload routes). */
export function jsonBody(limitBytes = 12 * MB): Middleware<AppState> {
  return koaBody({
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
}
