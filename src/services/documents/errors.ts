import type { Scope } from '../../domain/types';
import { Problem, conflict, notFound } from '../../http/problem';

const MB = 1024 * 1024;

/** `10 MB`, `512 KB`: limits as people say them. */
export function formatLimit(bytes: number): string {
  if (bytes >= MB && bytes % MB === 0) return `${bytes / MB} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

/** 413 naming the limit; batch and scan items report the short form `file too large (limit 10 MB)`. */
export class FileTooLarge extends Problem {
  readonly itemError: string;

  constructor(filename: string, size: number, limit: number) {
    const label = `file too large (limit ${formatLimit(limit)})`;
    super(413, `${label}: '${filename}' is ${size} bytes`);
    this.itemError = label;
  }
}

export function duplicateDocument(scope: Scope, existingId: string): Problem {
  return conflict(`the same content already exists in workspace '${scope.workspaceId}' as document '${existingId}'`, {
    duplicate_of: existingId,
  });
}

export function documentNotFound(scope: Scope, id: string): Problem {
  return notFound(`document '${id}' not found in workspace '${scope.workspaceId}'`);
}

/** The `duplicate_of` of a duplicate problem, or null for any other error. */
export function duplicateOf(err: unknown): string | null {
  if (!(err instanceof Problem) || err.status !== 409) return null;
  const id = err.extra.duplicate_of;
  return typeof id === 'string' ? id : null;
}

/** What a batch or scan item says about a refused file. */
export function itemError(err: unknown): string {
  if (err instanceof FileTooLarge) return err.itemError;
  if (err instanceof Problem) return err.detail;
  return 'internal error while admitting the file';
}
