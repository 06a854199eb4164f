import type { Scope } from '../../domain/types';
import type { ServiceHost } from '../tasks';

/**
 * Runs `fn` while holding the document's lock: content updates of one document, and its deletion, run one after
 * another. The key is an entity-lock key no entity id can take (ids are upper case), so the lock is shared by every
 * instance on the same database.
 */
export function underDocumentLock<T>(host: ServiceHost, scope: Scope, id: string, fn: () => Promise<T>): Promise<T> {
  return host.entityLocks.run(scope, [`document:${id}`], fn);
}
