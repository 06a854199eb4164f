import type { Scope } from '../../domain/types';
import type { DocumentStore } from '../../store/ports';
import type { DocumentFilter } from '../types';

/**
 * The documents retrieval may draw from: null means every document, an empty set means none.
 * Resolved once per query so that every later step filters by the same set.
 */
export async function resolveAllowedDocuments(
  documents: DocumentStore,
  scope: Scope,
  filter: DocumentFilter | null,
): Promise<Set<string> | null> {
  if (!filter) return null;
  const titleTerms = titleTermsOf(filter.document_pattern);
  if (!filter.date_from && !filter.date_to && titleTerms.length === 0) return null;
  const ids = await documents.listIds(scope, {
    dateFrom: filter.date_from || undefined,
    dateTo: filter.date_to || undefined,
    titleTerms: titleTerms.length ? titleTerms : undefined,
  });
  return new Set(ids);
}

/** Comma-separated, trimmed, lower-cased, blanks dropped. */
export function titleTermsOf(pattern: string | undefined): string[] {
  if (!pattern) return [];
  return pattern
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t.length > 0);
}

export function isAllowed(allowed: Set<string> | null, documentIds: readonly string[]): boolean {
  if (!allowed) return true;
  for (const id of documentIds) if (allowed.has(id)) return true;
  return false;
}
