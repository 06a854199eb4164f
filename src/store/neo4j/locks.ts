import type { Scope } from '../../domain/types';
import type { LockStore } from '../ports';
import { type Neo4jClient, scopeParams } from './client';
import { int, num } from './values';

/**
 * `(:Lock {tenant_id, workspace_id, key, owner, expires_at})`, one node per held key, deleted on release.
 * Each call is one write transaction that first takes the write locks of the key nodes in sorted order (no
 * two callers wait for each other in a cycle), then reads and changes the owners; expiry is measured by the
 * database clock.
 */
export class Neo4jLockStore implements LockStore {
  constructor(private readonly db: Neo4jClient) {}

  async acquire(scope: Scope, keys: string[], owner: string, ttlMs: number): Promise<boolean> {
    const params = this.params(scope, keys, owner, ttlMs);
    if (params.keys.length === 0) return true;
    try {
      return await this.db.write(async (tx) => {
        const taken = await tx.run('locks/take', params);
        const [row] = await tx.run('locks/grant', { ...params, taken, count: int(params.keys.length) });
        // Rolled back: a refused attempt leaves no node behind, so every committed key node has an owner.
        if (row?.acquired !== true) throw new Refused();
        return true;
      });
    } catch (err) {
      if (err instanceof Refused) return false;
      throw err;
    }
  }

  async release(scope: Scope, keys: string[], owner: string): Promise<void> {
    const params = this.params(scope, keys, owner, 0);
    if (params.keys.length === 0) return;
    await this.db.write(async (tx) => {
      await tx.run('locks/hold', params);
      await tx.run('locks/release', params);
    });
  }

  async renew(scope: Scope, keys: string[], owner: string, ttlMs: number): Promise<boolean> {
    const params = this.params(scope, keys, owner, ttlMs);
    if (params.keys.length === 0) return true;
    return this.db.write(async (tx) => {
      await tx.run('locks/hold', params);
      const [row] = await tx.run('locks/renew', params);
      return num(row?.renewed) === params.keys.length;
    });
  }

  private params(scope: Scope, keys: string[], owner: string, ttlMs: number) {
    return { ...scopeParams(scope), keys: [...new Set(keys)].sort(), owner, ttl_ms: int(Math.max(0, Math.round(ttlMs))) };
  }
}

class Refused extends Error {}
