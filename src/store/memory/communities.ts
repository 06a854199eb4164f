import type { CommunityRecord } from '../../domain/communities';
import type { Page, Scope } from '../../domain/types';
import type { CommunityQuery, CommunityStore } from '../ports';
import { compareIds, pageOf } from './records';
import { WorkspaceStates } from './workspaces';

function copyCommunity(c: CommunityRecord): CommunityRecord {
  return { ...c, member_ids: [...c.member_ids], findings: c.findings.map((f) => ({ ...f })), embedding: [...c.embedding] };
}

export function compareCommunities(a: CommunityRecord, b: CommunityRecord): number {
  return a.level - b.level || b.rank - a.rank || compareIds(a.id, b.id);
}

/** A workspace's communities in list order, replaced whole by each run. */
export class MemoryCommunityStore implements CommunityStore {
  private readonly workspaces = new WorkspaceStates<CommunityRecord[]>(() => []);

  async replaceAll(scope: Scope, communities: CommunityRecord[]): Promise<void> {
    const ordered = communities.map(copyCommunity).sort(compareCommunities);
    if (ordered.length === 0) this.workspaces.drop(scope);
    else this.workspaces.obtain(scope).splice(0, Infinity, ...ordered);
  }

  async list(scope: Scope, query: CommunityQuery): Promise<Page<CommunityRecord>> {
    const all = this.workspaces.find(scope) ?? [];
    const matching = query.level === undefined ? all : all.filter((c) => c.level === query.level);
    return pageOf(matching, query.limit, query.offset, copyCommunity);
  }

  async all(scope: Scope): Promise<CommunityRecord[]> {
    return (this.workspaces.find(scope) ?? []).map(copyCommunity);
  }

  async get(scope: Scope, id: string): Promise<CommunityRecord | null> {
    const found = this.workspaces.find(scope)?.find((c) => c.id === id);
    return found ? copyCommunity(found) : null;
  }

  async count(scope: Scope): Promise<number> {
    return this.workspaces.find(scope)?.length ?? 0;
  }

  dropWorkspace(scope: Scope): void {
    this.workspaces.drop(scope);
  }

  clear(): void {
    this.workspaces.clear();
  }
}
