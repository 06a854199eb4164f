import { Writable } from 'node:stream';
import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';
import type { AppContext, AppState } from '../../http/context';
import { badRequest, Problem, validationError } from '../../http/problem';
import type { IncomingFile } from '../../services/documents';

const MB = 1024 * 1024;
/** The largest accepted file type (PDF); smaller per-extension limits are checked at admission. */
export const MAX_PART_BYTES = 50 * MB;
/** All files of one batch body together. */
export const MAX_BATCH_BYTES = 100 * MB;

/** Text fields of one form: how many, and their bytes together. */
const MAX_FIELDS = 100;
const MAX_FIELDS_BYTES = 2 * MB;

/** Multipart parts are kept in memory: at most the limits above, and nothing left on disk afterwards. */
const partData = new WeakMap<object, Buffer[]>();

interface ParsedPart {
  originalFilename?: string | null;
}

/**
 * Parses a multipart body (upload routes only). Any other content type is refused with 400; a part over
 * 50 MB or a body over its total with 413.
 */
export function multipartBody(maxTotalBytes: number): Middleware<AppState> {
  const parse = koaBody({
    multipart: true,
    json: false,
    urlencoded: false,
    text: false,
    formidable: {
      maxFileSize: MAX_PART_BYTES,
      maxTotalFileSize: maxTotalBytes,
      allowEmptyFiles: true,
      minFileSize: 0,
      maxFields: MAX_FIELDS,
      maxFieldsSize: MAX_FIELDS_BYTES,
      // A part with a filename is a file even without a Content-Type of its own (python-requests sends none).
      onPart: (part, handle) => {
        if (!part.mimetype && part.originalFilename) part.mimetype = 'application/octet-stream';
        handle(part);
      },
      fileWriteStreamHandler: (file) => {
        const chunks: Buffer[] = [];
        if (file) partData.set(file, chunks);
        return new Writable({
          write(chunk: Buffer, _encoding, done) {
            chunks.push(chunk);
            done();
          },
        });
      },
    },
    onError: (err) => {
      throw multipartProblem(err, maxTotalBytes);
    },
  }) as unknown as Middleware<AppState>;
  return async (ctx, next) => {
    if (!ctx.is('multipart/form-data')) throw badRequest('expects Content-Type: multipart/form-data');
    await parse(ctx, next);
  };
}

function multipartProblem(err: Error, maxTotalBytes: number): Problem {
  // The field limits answer 413 too: checked first, so that their refusal names them and not the file limit.
  if (/maxFieldsSize/.test(err.message)) {
    return new Problem(413, `form fields too large: the text fields of one form may total at most ${MAX_FIELDS_BYTES / MB} MB`);
  }
  if (/maxFields/.test(err.message)) return new Problem(413, `too many form fields: at most ${MAX_FIELDS} text fields per form`);
  const httpCode = (err as { httpCode?: number }).httpCode;
  if (httpCode === 413) {
    const total = /maxTotalFileSize/.test(err.message) && maxTotalBytes > MAX_PART_BYTES;
    return new Problem(
      413,
      total
        ? `request too large: the files of one request may total at most ${maxTotalBytes / MB} MB`
        : `file too large (limit ${MAX_PART_BYTES / MB} MB per uploaded file)`,
    );
  }
  return badRequest(`malformed multipart body: ${err.message}`);
}

/** The text fields of the form (first value of a repeated field is refused by the field schemas). */
export function formFields(ctx: AppContext): Record<string, unknown> {
  const body = (ctx.request as { body?: unknown }).body;
  return body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
}

/** Every file part named `name`, in the order sent. */
export function fileParts(ctx: AppContext, name: string): IncomingFile[] {
  const files = (ctx.request as { files?: Record<string, unknown> }).files ?? {};
  const value = files[name];
  const parts = (Array.isArray(value) ? value : value ? [value] : []) as ParsedPart[];
  return parts.map((part) => ({
    filename: part.originalFilename || 'upload',
    data: Buffer.concat(partData.get(part) ?? []),
  }));
}

/** Exactly one file in part `name`. */
export function singleFile(ctx: AppContext, name: string): IncomingFile {
  const parts = fileParts(ctx, name);
  if (parts.length === 0) {
    const sentAsText = formFields(ctx)[name] !== undefined;
    throw validationError([{ field: name, message: sentAsText ? 'must be a file part (with a filename), not a text field' : 'required' }]);
  }
  if (parts.length > 1)
    throw validationError([{ field: name, message: 'exactly one file is expected; use /documents/upload/batch for several' }]);
  return parts[0];
}
