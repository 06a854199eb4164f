import type { CommunityFinding, CommunityRecord } from '../../domain/communities';
import type { Page, Scope } from '../../domain/types';
import type { CommunityQuery, CommunityStore } from '../ports';
import { type Neo4jClient, type Row, scopeParams } from './client';
import { scopeKey } from '../../domain/ids';
import { ReadCache } from './read-cache';
import { count, int, json, num, str, strOrNull, strings, timestamp } from './values';

const BATCH = 500;

function encodeCommunity(c: CommunityRecord): Record<string, unknown> {
  return {
    id: c.id,
    level: int(c.level),
    parent_id: c.parent_id,
    member_ids: [...c.member_ids],
    size: int(c.size),
    content_hash: c.content_hash,
    title: c.title,
    summary: c.summary,
    findings: JSON.stringify(c.findings),
    rank: c.rank,
    embedding: [...c.embedding],
    report_model: c.report_model,
    created_at: timestamp(c.created_at),
    updated_at: timestamp(c.updated_at),
  };
}

function decodeCommunity(value: unknown): CommunityRecord {
  const p = value as Row;
  return {
    id: str(p.id),
    level: num(p.level),
    parent_id: strOrNull(p.parent_id),
    member_ids: strings(p.member_ids),
    size: num(p.size),
    content_hash: str(p.content_hash),
    title: str(p.title),
    summary: str(p.summary),
    findings: json<CommunityFinding[]>(p.findings, []),
    rank: num(p.rank),
    embedding: Array.isArray(p.embedding) ? p.embedding.map(Number) : [],
    report_model: strOrNull(p.report_model),
    created_at: str(p.created_at),
    updated_at: str(p.updated_at),
  };
}

/** `(:Community {level, title, summary, rank, ...})-[:HAS_MEMBER]->(:Entity)`, replaced whole in one transaction. */
export class Neo4jCommunityStore implements CommunityStore {
  constructor(private readonly db: Neo4jClient) {}

  /** Every global, hybrid and mix query reads all reports of its workspace: kept per instance (read-cache.ts). */
  private readonly reports = new ReadCache<CommunityRecord[]>();

  /** Dropping a workspace forgets its reports. */
  forget(scope: Scope): void {
    this.reports.forget(scopeKey(scope));
  }

  async replaceAll(scope: Scope, communities: CommunityRecord[]): Promise<void> {
    const params = scopeParams(scope);
    this.forget(scope);
    await this.writeAll(params, communities).finally(() => this.forget(scope));
  }

  private async writeAll(params: ReturnType<typeof scopeParams>, communities: CommunityRecord[]): Promise<void> {
    await this.db.write(async (tx) => {
      for (;;) {
        const [row] = await tx.run('communities/delete-batch', { ...params, batch: count(BATCH * 4) });
        if (num(row?.deleted) < BATCH * 4) break;
      }
      for (let i = 0; i < communities.length; i += BATCH) {
        await tx.run('communities/create', { ...params, rows: communities.slice(i, i + BATCH).map(encodeCommunity) });
      }
    });
  }

  async list(scope: Scope, query: CommunityQuery): Promise<Page<CommunityRecord>> {
    const [row] = await this.db.readRows('communities/list', {
      ...scopeParams(scope),
      level: query.level === undefined ? null : int(query.level),
      offset: count(query.offset),
      limit: count(query.limit),
    });
    return { items: (row.communities as unknown[]).map(decodeCommunity), total: num(row.total) };
  }

  async all(scope: Scope): Promise<CommunityRecord[]> {
    const all = await this.reports.get(scopeKey(scope), async () => {
      const rows = await this.db.readRows('communities/all', scopeParams(scope));
      return rows.map((row) => decodeCommunity(row.community));
    });
    return [...all];
  }

  async get(scope: Scope, id: string): Promise<CommunityRecord | null> {
    const [row] = await this.db.readRows('communities/get', { ...scopeParams(scope), id });
    return row ? decodeCommunity(row.community) : null;
  }

  async count(scope: Scope): Promise<number> {
    const [row] = await this.db.readRows('communities/count', scopeParams(scope));
    return num(row?.total);
  }
}
