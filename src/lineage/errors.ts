import { notFound } from '../http/problem';

/** Lineage errors are problem details that also carry the documented `{error, message}` pair. */
export function lineageNotFound(detail: string) {
  return notFound(detail, { error: 'NotFound', message: detail });
}
