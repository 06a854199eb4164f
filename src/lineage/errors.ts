import { NotFoundError } from '../domain/errors';

/** Lineage errors are problem details that also carry the documented `{error, message}` pair. */
export function lineageNotFound(detail: string) {
  return new NotFoundError(detail, { error: 'NotFound', message: detail });
}
