import type { DocumentRecord, DocumentStatus, Page, Scope } from '../../domain/types';
import type { DocumentGraphCounts, DocumentQuery, DocumentStore, DocumentTitle } from '../ports';
import { type Neo4jClient, scopeParams } from './client';
import { DOCUMENT_FIELDS, decode, encode, encodePatch } from './codecs';
import { count, int, num } from './values';

type DocumentFilter = Omit<DocumentQuery, 'limit' | 'offset'>;

const BARE_DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/**
 * Filter parameters with the date bounds as stored timestamps (UTC ISO strings); null when a bound cannot be
 * parsed, which matches nothing. A bare date as upper bound covers its whole (UTC) day.
 */
function filterParams(filter: DocumentFilter): Record<string, unknown> | null {
  const bound = (value: string | undefined, endOfDay: boolean): string | null | undefined => {
    if (!value) return null;
    let ms = Date.parse(value);
    if (Number.isNaN(ms)) return undefined;
    if (endOfDay && BARE_DATE.test(value)) ms += DAY_MS - 1;
    return new Date(ms).toISOString();
  };
  const from = bound(filter.dateFrom, false);
  const to = bound(filter.dateTo, true);
  if (from === undefined || to === undefined) return null;
  return {
    status: filter.status ?? null,
    date_from: from,
    date_to: to,
    title_terms: (filter.titleTerms ?? []).map((t) => t.toLowerCase()).filter((t) => t.length > 0),
  };
}

export class Neo4jDocumentStore implements DocumentStore {
  constructor(private readonly db: Neo4jClient) {}

  async insert(scope: Scope, doc: DocumentRecord): Promise<void> {
    await this.db.writeRows('documents/insert', { ...scopeParams(scope), props: encode(DOCUMENT_FIELDS, doc) });
  }

  async update(scope: Scope, id: string, patch: Partial<DocumentRecord>): Promise<DocumentRecord | null> {
    const rows = await this.db.writeRows('documents/update', {
      ...scopeParams(scope),
      id,
      patch: encodePatch(DOCUMENT_FIELDS, patch),
    });
    return rows.length ? decode(DOCUMENT_FIELDS, rows[0].document) : null;
  }

  async setGraphCounts(scope: Scope, counts: Map<string, DocumentGraphCounts>): Promise<void> {
    if (counts.size === 0) return;
    const rows = [...counts].map(([id, c]) => ({ id, entities: int(c.entities), relationships: int(c.relationships) }));
    await this.db.writeRows('documents/set-graph-counts', { ...scopeParams(scope), rows });
  }

  async get(scope: Scope, id: string): Promise<DocumentRecord | null> {
    const rows = await this.db.readRows('documents/get', { ...scopeParams(scope), id });
    return rows.length ? decode(DOCUMENT_FIELDS, rows[0].document) : null;
  }

  async titles(scope: Scope, ids: string[]): Promise<Map<string, DocumentTitle>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.readRows('documents/titles', { ...scopeParams(scope), ids: [...new Set(ids)] });
    return new Map(rows.map((row) => [String(row.id), { title: String(row.title ?? ''), file_path: String(row.file_path ?? '') }]));
  }

  async findByHash(scope: Scope, contentHash: string): Promise<DocumentRecord | null> {
    const rows = await this.db.readRows('documents/find-by-hash', { ...scopeParams(scope), content_hash: contentHash });
    return rows.length ? decode(DOCUMENT_FIELDS, rows[0].document) : null;
  }

  async list(scope: Scope, query: DocumentQuery): Promise<Page<DocumentRecord>> {
    const filter = filterParams(query);
    if (!filter) return { items: [], total: 0 };
    const [row] = await this.db.readRows('documents/list', {
      ...scopeParams(scope),
      ...filter,
      offset: count(query.offset),
      limit: count(query.limit),
    });
    const items = (row.documents as unknown[]).map((props) => decode(DOCUMENT_FIELDS, props));
    return { items, total: num(row.total) };
  }

  async listIds(scope: Scope, query: DocumentFilter): Promise<string[]> {
    const filter = filterParams(query);
    if (!filter) return [];
    const rows = await this.db.readRows('documents/list-ids', { ...scopeParams(scope), ...filter });
    return rows.map((row) => String(row.id));
  }

  async countByStatus(scope: Scope): Promise<Record<DocumentStatus, number>> {
    const counts: Record<DocumentStatus, number> = { processing: 0, completed: 0, failed: 0 };
    const rows = await this.db.readRows('documents/count-by-status', scopeParams(scope));
    for (const row of rows) {
      const status = row.status as DocumentStatus;
      if (status in counts) counts[status] = num(row.total);
    }
    return counts;
  }

  async delete(scope: Scope, id: string): Promise<boolean> {
    const [row] = await this.db.writeRows('documents/delete', { ...scopeParams(scope), id });
    return num(row?.deleted) > 0;
  }
}
