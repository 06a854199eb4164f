import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';
import type { AppState } from './context';
import { Problem } from './problem';

/** JSON bodies everywhere (multipart is parsed only by the upload routes). */
export function jsonBody(limit = '12mb'): Middleware<AppState> {
  return koaBody({
    json: true,
    jsonLimit: limit,
    jsonStrict: true,
    multipart: false,
    urlencoded: false,
    text: false,
    onError: (err) => {
      const status = (err as { status?: number }).status;
      if (status === 413) throw new Problem(413, `request body exceeds the ${limit} limit`);
      throw new Problem(400, 'failed to parse the request body as JSON');
    },
  }) as unknown as Middleware<AppState>;
}
