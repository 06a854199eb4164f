import zlib from 'node:zlib';
import type { Readable } from 'node:stream';
import bourne from '@hapi/bourne';
import type { Context, Middleware } from 'koa';
import getRawBody from 'raw-body';
import type { AppState } from './context';
import { bodyError } from './errors';
import { Problem } from './problem';

const MB = 1024 * 1024;
const JSON_TYPES = ['application/json', 'application/*+json', 'application/csp-report'];
const PARSED_METHODS = new Set(['POST', 'PUT', 'PATCH']);
/** RFC 8259: a JSON text exchanged between systems is UTF-8. Fatal: a byte sequence that is not UTF-8 throws. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });
/** Only an object or an array is a request body (leading whitespace as JSON allows it). */
const STRICT_START = /^[ \t\n\r]*[[{]/;

/** The problem of a body that is not UTF-8: 400, with a type of its own so clients can tell it from bad JSON. */
export function invalidEncoding(): Problem {
  return new Problem(400, 'the request body is not valid UTF-8; JSON bodies must be encoded in UTF-8', {}, [
    'invalid-encoding',
    'Invalid Encoding',
  ]);
}

/**
 * JSON bodies everywhere (multipart is parsed only by the upload routes). On the paths `alwaysJson` accepts, a
 * body is JSON whatever its Content-Type says: clients of the local runtime often send none (`curl -d`).
 * The bytes are decoded strictly: invalid UTF-8 is refused (400 `invalid-encoding`), never replaced.
 */
export function jsonBody(limitBytes = 12 * MB, alwaysJson: (path: string) => boolean = () => false): Middleware<AppState> {
  return async (ctx, next) => {
    if (alwaysJson(ctx.path) && ctx.request.length !== 0 && !ctx.is('application/json')) {
      ctx.req.headers['content-type'] = 'application/json';
    }
    if (PARSED_METHODS.has(ctx.method) && ctx.is(JSON_TYPES)) {
      ctx.request.body = (await readJson(ctx, limitBytes)) as typeof ctx.request.body;
    }
    return next();
  };
}

async function readJson(ctx: Context, limitBytes: number): Promise<unknown> {
  const encoding = (ctx.get('Content-Encoding') || 'identity').toLowerCase();
  const declared = ctx.request.length;
  let bytes: Buffer;
  try {
    bytes = await getRawBody(decompressed(ctx, encoding), {
      limit: limitBytes,
      length: encoding === 'identity' && declared !== undefined ? declared : null,
    });
  } catch (err) {
    if (err instanceof Problem) throw err;
    throw bodyError(err, limitBytes);
  }
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw invalidEncoding();
  }
  if (text.length === 0) return {};
  try {
    if (!STRICT_START.test(text)) throw new SyntaxError('only an object or an array is a JSON body');
    return bourne.parse(text, { protoAction: 'error' });
  } catch (err) {
    throw bodyError(err, limitBytes);
  }
}

function decompressed(ctx: Context, encoding: string): Readable {
  switch (encoding) {
    case 'identity':
      return ctx.req;
    case 'gzip':
    case 'deflate':
      return ctx.req.pipe(zlib.createUnzip());
    case 'br':
      return ctx.req.pipe(zlib.createBrotliDecompress());
    default:
      throw new Problem(415, `Content-Encoding '${encoding}' is not supported; send identity, gzip, deflate or br`);
  }
}
