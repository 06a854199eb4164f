import { DomainError, DuplicateError, NotFoundError, TooLargeError, conflictingId } from '../../domain/errors';
import type { Scope } from '../../domain/types';

const MB = 1024 * 1024;

/** `10 MB`, `512 KB`: limits as people say them. */
export function formatLimit(bytes: number): string {
  if (bytes >= MB && bytes % MB === 0) return `${bytes / MB} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

/** 413 naming the limit; batch and scan items report the short form `file too large (limit 10 MB)`. */
export class FileTooLarge extends TooLargeError {
  readonly itemError: string;

  constructor(filename: string, size: number, limit: number) {
    const label = `file too large (limit ${formatLimit(limit)})`;
    super(`${label}: '${filename}' is ${size} bytes`, limit);
    this.itemError = label;
  }
}

export function duplicateDocument(scope: Scope, existingId: string): DuplicateError {
  return new DuplicateError(`the same content already exists in workspace '${scope.workspaceId}' as document '${existingId}'`, existingId);
}

export function documentNotFound(scope: Scope, id: string): NotFoundError {
  return new NotFoundError(`document '${id}' not found in workspace '${scope.workspaceId}'`);
}

/** The `duplicate_of` of a duplicate-document error, or null for any other error. */
export function duplicateOf(err: unknown): string | null {
  return err instanceof DuplicateError ? conflictingId(err) : null;
}

/** What a batch or scan item says about a refused file. */
export function itemError(err: unknown): string {
  if (err instanceof FileTooLarge) return err.itemError;
  if (err instanceof DomainError) return err.message;
  return 'internal error while admitting the file';
}
