import type { Scope } from '../../domain/types';
import type { IngestDeps } from '../deps';
import type { PageRange } from '../loaders/types';

/** The page ranges of a PDF document's text (KV namespace `pages`, key = document id), for chunk pages. */

export const PAGES_NAMESPACE = 'pages';

export async function savePageMap(
  deps: Pick<IngestDeps, 'stores'>,
  scope: Scope,
  documentId: string,
  pages: PageRange[] | null,
): Promise<void> {
  if (pages?.length) await deps.stores.kv.set(scope, PAGES_NAMESPACE, documentId, pages);
}

export function loadPageMap(deps: Pick<IngestDeps, 'stores'>, scope: Scope, documentId: string): Promise<PageRange[] | null> {
  return deps.stores.kv.get<PageRange[]>(scope, PAGES_NAMESPACE, documentId);
}

export function deletePageMap(deps: Pick<IngestDeps, 'stores'>, scope: Scope, documentId: string): Promise<void> {
  return deps.stores.kv.delete(scope, PAGES_NAMESPACE, [documentId]);
}
