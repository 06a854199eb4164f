import type { ChunkRecord, Scope } from '../../domain/types';
import type { ChunkLinks, ChunkRef, ChunkStore } from '../ports';
import { type Neo4jClient, scopeParams } from './client';
import { CHUNK_FIELDS, decode, encode } from './codecs';
import { num } from './values';

/** Rows per UNWIND batch: large documents are written in several statements of one transaction. */
const BATCH = 500;

export class Neo4jChunkStore implements ChunkStore {
  constructor(private readonly db: Neo4jClient) {}

  /** Also links each chunk to its document (HAS_CHUNK) and to the entities it mentions (MENTIONS). */
  async upsertMany(scope: Scope, chunks: ChunkRecord[]): Promise<void> {
    if (chunks.length === 0) return;
    const params = scopeParams(scope);
    await this.db.write(async (tx) => {
      for (let i = 0; i < chunks.length; i += BATCH) {
        const batch = chunks.slice(i, i + BATCH);
        const ids = batch.map((c) => c.id);
        await tx.run('chunks/upsert', { ...params, rows: batch.map((c) => encode(CHUNK_FIELDS, c)) });
        await tx.run('chunks/link-documents', { ...params, ids });
        await tx.run('chunks/link-entities', { ...params, ids });
      }
    });
  }

  async get(scope: Scope, id: string): Promise<ChunkRecord | null> {
    return (await this.getMany(scope, [id]))[0] ?? null;
  }

  async getMany(scope: Scope, ids: string[]): Promise<ChunkRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.readRows('chunks/get-many', { ...scopeParams(scope), ids });
    return rows.map((row) => decode(CHUNK_FIELDS, row.chunk));
  }

  async linksOf(scope: Scope, ids: string[]): Promise<ChunkLinks[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.readRows('chunks/links', { ...scopeParams(scope), ids });
    return rows.map((row) => ({
      id: String(row.id),
      document_id: String(row.document_id),
      entity_ids: ((row.entity_ids as unknown[] | null) ?? []).map(String),
      relationship_ids: ((row.relationship_ids as unknown[] | null) ?? []).map(String),
    }));
  }

  async setLinks(scope: Scope, links: ChunkLinks[]): Promise<void> {
    if (links.length === 0) return;
    const params = scopeParams(scope);
    await this.db.write(async (tx) => {
      for (let i = 0; i < links.length; i += BATCH) {
        const rows = links.slice(i, i + BATCH).map((l) => ({ id: l.id, entity_ids: l.entity_ids, relationship_ids: l.relationship_ids }));
        await tx.run('chunks/set-links', { ...params, rows });
      }
    });
  }

  async listByDocument(scope: Scope, documentId: string): Promise<ChunkRecord[]> {
    const rows = await this.db.readRows('chunks/list-by-document', { ...scopeParams(scope), document_id: documentId });
    return rows.map((row) => decode(CHUNK_FIELDS, row.chunk));
  }

  async deleteByDocument(scope: Scope, documentId: string, keep: readonly string[] = []): Promise<number> {
    const [row] = await this.db.writeRows('chunks/delete-by-document', { ...scopeParams(scope), document_id: documentId, keep });
    return num(row?.deleted);
  }

  async refs(scope: Scope): Promise<ChunkRef[]> {
    const rows = await this.db.readRows('chunks/refs', scopeParams(scope));
    return rows.map((row) => ({ id: String(row.id), document_id: String(row.document_id), linked: row.linked === true }));
  }

  async count(scope: Scope): Promise<number> {
    const [row] = await this.db.readRows('chunks/count', scopeParams(scope));
    return num(row?.total);
  }
}
