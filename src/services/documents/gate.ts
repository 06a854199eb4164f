import { scopeKey } from '../../domain/ids';
import type { Scope } from '../../domain/types';
import type { DocumentStore } from '../../store/ports';

/**
 * Duplicate detection that also holds while a document is being admitted: the hash is reserved before the
 * store lookup, so two concurrent uploads of the same content (or two copies in one batch) never both pass.
 */
export class AdmissionGate {
  private readonly held = new Map<string, string>();

  /** Reserves the hash for `documentId`; returns the id of the document that already holds it, if any. */
  async reserve(documents: DocumentStore, scope: Scope, hash: string, documentId: string): Promise<string | null> {
    const key = keyOf(scope, hash);
    const holder = this.held.get(key);
    if (holder) return holder;
    this.held.set(key, documentId);
    try {
      const existing = await documents.findByHash(scope, hash);
      if (existing) {
        this.held.delete(key);
        return existing.id;
      }
      return null;
    } catch (err) {
      this.held.delete(key);
      throw err;
    }
  }

  /** Once the document is stored (or refused) the store answers for the hash. */
  release(scope: Scope, hash: string, documentId: string): void {
    const key = keyOf(scope, hash);
    if (this.held.get(key) === documentId) this.held.delete(key);
  }
}

function keyOf(scope: Scope, hash: string): string {
  return `${scopeKey(scope)}\u0000${hash}`;
}
