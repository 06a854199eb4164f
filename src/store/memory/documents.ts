import type { DocumentRecord, DocumentStatus, Page, Scope } from '../../domain/types';
import type { DocumentGraphCounts, DocumentQuery, DocumentStore, DocumentTitle } from '../ports';
import { applyPatch, compareIds, copyDocument, pageOf } from './records';
import { WorkspaceStates } from './workspaces';

type DocumentFilter = Omit<DocumentQuery, 'limit' | 'offset'>;

interface DocumentState {
  byId: Map<string, DocumentRecord>;
  /** Several documents may share a hash (the service refuses duplicates, the store does not). */
  idsByHash: Map<string, Set<string>>;
  /** Newest first; rebuilt lazily after inserts, deletes and created_at changes. */
  newestFirst: DocumentRecord[] | null;
}

const BARE_DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

function time(iso: string): number {
  return Date.parse(iso);
}

/** Inclusive bounds in epoch ms; a bare date as upper bound covers its whole (UTC) day. */
function dateBounds(filter: DocumentFilter): { from: number; to: number } {
  const from = filter.dateFrom ? time(filter.dateFrom) : -Infinity;
  let to = Infinity;
  if (filter.dateTo) to = BARE_DATE.test(filter.dateTo) ? time(filter.dateTo) + DAY_MS - 1 : time(filter.dateTo);
  return { from, to };
}

function matcher(filter: DocumentFilter): (doc: DocumentRecord) => boolean {
  const { from, to } = dateBounds(filter);
  const terms = filter.titleTerms?.map((t) => t.toLowerCase()).filter((t) => t.length > 0) ?? [];
  const dated = filter.dateFrom !== undefined || filter.dateTo !== undefined;
  return (doc) => {
    if (filter.status !== undefined && doc.status !== filter.status) return false;
    if (dated) {
      // Comparisons with NaN are false: an unparsable bound matches nothing.
      const created = time(doc.created_at);
      if (!(created >= from && created <= to)) return false;
    }
    if (terms.length > 0) {
      const title = doc.title.toLowerCase();
      if (!terms.some((term) => title.includes(term))) return false;
    }
    return true;
  };
}

function newestFirst(a: DocumentRecord, b: DocumentRecord): number {
  const byTime = time(b.created_at) - time(a.created_at);
  if (byTime !== 0 && !Number.isNaN(byTime)) return byTime;
  return compareIds(a.id, b.id);
}

/** Lists are newest first (created_at desc, then id); date filters compare instants, bare dates as UTC days. */
export class MemoryDocumentStore implements DocumentStore {
  private readonly workspaces = new WorkspaceStates<DocumentState>(() => ({
    byId: new Map(),
    idsByHash: new Map(),
    newestFirst: null,
  }));

  /** A second insert under the same id replaces the record (ids are UUIDs; a repeat is a retried write). */
  async insert(scope: Scope, doc: DocumentRecord): Promise<void> {
    const state = this.workspaces.obtain(scope);
    const previous = state.byId.get(doc.id);
    if (previous) this.unindexHash(state, previous);
    const stored = copyDocument(doc);
    state.byId.set(stored.id, stored);
    this.indexHash(state, stored);
    state.newestFirst = null;
  }

  async setGraphCounts(scope: Scope, counts: Map<string, DocumentGraphCounts>): Promise<void> {
    for (const [id, c] of counts) await this.update(scope, id, { entity_count: c.entities, relationship_count: c.relationships });
  }

  async update(scope: Scope, id: string, patch: Partial<DocumentRecord>): Promise<DocumentRecord | null> {
    const state = this.workspaces.find(scope);
    const current = state?.byId.get(id);
    if (!state || !current) return null;
    const next = applyPatch(current, patch, copyDocument);
    if (next.content_hash !== current.content_hash) {
      this.unindexHash(state, current);
      this.indexHash(state, next);
    }
    if (next.created_at !== current.created_at) state.newestFirst = null;
    // In place, so the cached order keeps pointing at the live record.
    Object.assign(current, next);
    return copyDocument(current);
  }

  async get(scope: Scope, id: string): Promise<DocumentRecord | null> {
    const doc = this.workspaces.find(scope)?.byId.get(id);
    return doc ? copyDocument(doc) : null;
  }

  async titles(scope: Scope, ids: string[]): Promise<Map<string, DocumentTitle>> {
    const byId = this.workspaces.find(scope)?.byId;
    const out = new Map<string, DocumentTitle>();
    for (const id of ids) {
      const doc = byId?.get(id);
      if (doc) out.set(id, { title: doc.title, file_path: doc.file_path });
    }
    return out;
  }

  async findByHash(scope: Scope, contentHash: string): Promise<DocumentRecord | null> {
    const state = this.workspaces.find(scope);
    let found: DocumentRecord | undefined;
    for (const id of state?.idsByHash.get(contentHash) ?? []) {
      const doc = state?.byId.get(id);
      // The oldest holder of the content is the original the others duplicate.
      if (doc && (!found || newestFirst(doc, found) > 0)) found = doc;
    }
    return found ? copyDocument(found) : null;
  }

  async list(scope: Scope, query: DocumentQuery): Promise<Page<DocumentRecord>> {
    return pageOf(this.matching(scope, query), query.limit, query.offset, copyDocument);
  }

  async listIds(scope: Scope, query: DocumentFilter): Promise<string[]> {
    return this.matching(scope, query).map((doc) => doc.id);
  }

  async countByStatus(scope: Scope): Promise<Record<DocumentStatus, number>> {
    const counts: Record<DocumentStatus, number> = { processing: 0, completed: 0, failed: 0 };
    for (const doc of this.workspaces.find(scope)?.byId.values() ?? []) counts[doc.status] += 1;
    return counts;
  }

  async delete(scope: Scope, id: string): Promise<boolean> {
    const state = this.workspaces.find(scope);
    const doc = state?.byId.get(id);
    if (!state || !doc) return false;
    state.byId.delete(id);
    this.unindexHash(state, doc);
    state.newestFirst = null;
    return true;
  }

  dropWorkspace(scope: Scope): void {
    this.workspaces.drop(scope);
  }

  clear(): void {
    this.workspaces.clear();
  }

  private matching(scope: Scope, filter: DocumentFilter): DocumentRecord[] {
    const state = this.workspaces.find(scope);
    if (!state) return [];
    state.newestFirst ??= [...state.byId.values()].sort(newestFirst);
    const unfiltered = filter.status === undefined && !filter.dateFrom && !filter.dateTo && !filter.titleTerms?.some((t) => t.length > 0);
    return unfiltered ? state.newestFirst : state.newestFirst.filter(matcher(filter));
  }

  private indexHash(state: DocumentState, doc: DocumentRecord): void {
    let ids = state.idsByHash.get(doc.content_hash);
    if (!ids) state.idsByHash.set(doc.content_hash, (ids = new Set()));
    ids.add(doc.id);
  }

  private unindexHash(state: DocumentState, doc: DocumentRecord): void {
    const ids = state.idsByHash.get(doc.content_hash);
    ids?.delete(doc.id);
    if (ids?.size === 0) state.idsByHash.delete(doc.content_hash);
  }
}
