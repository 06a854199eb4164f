import { randomUUID } from 'node:crypto';
import type { WorkspaceRecord } from '../../src/domain/accounts';
import { ConflictError } from '../../src/domain/errors';
import { type StoresCleanup, type StoresFactory, useStores } from './harness';

function workspace(tenantId: string, slug: string, at: string, extra: Partial<WorkspaceRecord> = {}): WorkspaceRecord {
  return {
    id: randomUUID(),
    tenant_id: tenantId,
    name: `Workspace ${slug}`,
    slug,
    description: '',
    is_default: false,
    llm_provider: 'mock',
    llm_model: 'mock-chat',
    embedding_provider: 'mock',
    embedding_model: 'mock-embedding',
    embedding_dimension: 256,
    rebuild_task_id: null,
    created_at: at,
    updated_at: at,
    ...extra,
  };
}

/** The account collections (RecordCollection port): one contract, run on the workspaces collection and on unique keys of the others. */
export function accountStoreContract(name: string, makeStores: StoresFactory, cleanup?: StoresCleanup): void {
  describe(`${name}: account RecordCollection contract`, () => {
    const ctx = useStores(makeStores, cleanup);
    const workspaces = () => ctx.stores().accounts.workspaces;
    let tenant: string;
    beforeEach(() => {
      tenant = randomUUID();
    });
    afterEach(async () => {
      await workspaces().deleteWhere({ tenant_id: tenant });
    });

    it('stores records as given, nulls and booleans and numbers included, and hands out copies', async () => {
      const w = workspace(tenant, 'alpha', '2026-01-01T00:00:00.000Z');
      await workspaces().insert(w);
      const got = await workspaces().get(w.id);
      expect(got).toEqual(w);
      got!.name = 'changed';
      expect((await workspaces().get(w.id))!.name).toBe(w.name);
      expect(await workspaces().get(randomUUID())).toBeNull();
    });

    it('filters by equal fields (null matches null), orders by creation, pages and counts', async () => {
      const a = workspace(tenant, 'a', '2026-01-02T00:00:00.000Z');
      const b = workspace(tenant, 'b', '2026-01-01T00:00:00.000Z', { rebuild_task_id: 't1' });
      const c = workspace(tenant, 'c', '2026-01-03T00:00:00.000Z', { is_default: true });
      for (const w of [a, b, c]) await workspaces().insert(w);
      const all = await workspaces().list({ tenant_id: tenant }, { limit: 10, offset: 0 });
      expect(all.items.map((w) => w.slug)).toEqual(['b', 'a', 'c']);
      expect(all.total).toBe(3);
      const page = await workspaces().list({ tenant_id: tenant }, { limit: 1, offset: 1 });
      expect(page).toEqual({ items: [a], total: 3 });
      expect((await workspaces().list({ tenant_id: tenant, rebuild_task_id: null }, { limit: 10, offset: 0 })).total).toBe(2);
      expect(await workspaces().findOne({ tenant_id: tenant, is_default: true })).toEqual(c);
      expect(await workspaces().count({ tenant_id: tenant, embedding_dimension: 256 })).toBe(3);
      expect(await workspaces().count({ tenant_id: randomUUID() })).toBe(0);
    });

    it('refuses a duplicate id or unique key with ConflictError and writes nothing', async () => {
      const a = workspace(tenant, 'same', '2026-01-01T00:00:00.000Z');
      await workspaces().insert(a);
      await expect(workspaces().insert(workspace(tenant, 'same', '2026-01-02T00:00:00.000Z'))).rejects.toBeInstanceOf(ConflictError);
      await expect(workspaces().insert({ ...a, slug: 'other' })).rejects.toBeInstanceOf(ConflictError);
      // The same slug in another tenant is a different key.
      const elsewhere = workspace(randomUUID(), 'same', '2026-01-01T00:00:00.000Z');
      await workspaces().insert(elsewhere);
      await workspaces().delete(elsewhere.id);
      expect(await workspaces().count({ tenant_id: tenant })).toBe(1);
      const b = workspace(tenant, 'b', '2026-01-02T00:00:00.000Z');
      await workspaces().insert(b);
      await expect(workspaces().update(b.id, { slug: 'same' })).rejects.toBeInstanceOf(ConflictError);
      expect((await workspaces().get(b.id))!.slug).toBe('b');
    });

    it('updates fields (to null too), never the id; null for an unknown id', async () => {
      const a = workspace(tenant, 'a', '2026-01-01T00:00:00.000Z', { rebuild_task_id: 'task' });
      await workspaces().insert(a);
      const updated = await workspaces().update(a.id, { name: 'renamed', rebuild_task_id: null, embedding_dimension: 8 });
      expect(updated).toEqual({ ...a, name: 'renamed', rebuild_task_id: null, embedding_dimension: 8 });
      expect(await workspaces().get(a.id)).toEqual(updated);
      expect(await workspaces().findOne({ tenant_id: tenant, rebuild_task_id: null })).toEqual(updated);
      expect(await workspaces().update(randomUUID(), { name: 'x' })).toBeNull();
    });

    it('deletes one record or every record matching a filter', async () => {
      const [a, b, c] = ['a', 'b', 'c'].map((s, i) => workspace(tenant, s, `2026-01-0${i + 1}T00:00:00.000Z`, { is_default: s === 'a' }));
      for (const w of [a, b, c]) await workspaces().insert(w);
      expect(await workspaces().delete(a.id)).toBe(true);
      expect(await workspaces().delete(a.id)).toBe(false);
      expect(await workspaces().deleteWhere({ tenant_id: tenant, is_default: false })).toBe(2);
      expect(await workspaces().count({ tenant_id: tenant })).toBe(0);
    });

    it('finds the open refresh tokens of one family, for revoking them together', async () => {
      const { refreshTokens } = ctx.stores().accounts;
      const at = new Date().toISOString();
      const family = randomUUID();
      const token = (family_id: string, revoked_at: string | null) => ({
        id: randomUUID(),
        user_id: 'u-family',
        token_hash: `f-${randomUUID()}`,
        family_id,
        created_at: at,
        updated_at: at,
        expires_at: at,
        revoked_at,
      });
      const tokens = [token(family, at), token(family, null), token(family, null), token(randomUUID(), null)];
      for (const t of tokens) await refreshTokens.insert(t);
      const open = await refreshTokens.list({ family_id: family, revoked_at: null }, { limit: 100, offset: 0 });
      expect(open.items.map((t) => t.id).sort()).toEqual([tokens[1].id, tokens[2].id].sort());
      for (const t of open.items) await refreshTokens.update(t.id, { revoked_at: at });
      expect(await refreshTokens.count({ family_id: family, revoked_at: null })).toBe(0);
      expect(await refreshTokens.findOne({ token_hash: tokens[3].token_hash })).toMatchObject({ revoked_at: null });
      for (const t of tokens) await refreshTokens.delete(t.id);
    });

    it('updates only while the record still matches: of concurrent compare-and-sets, one wins', async () => {
      const { refreshTokens } = ctx.stores().accounts;
      const at = new Date().toISOString();
      const token = {
        id: randomUUID(),
        user_id: 'u-cas',
        token_hash: `cas-${randomUUID()}`,
        family_id: randomUUID(),
        created_at: at,
        updated_at: at,
        expires_at: at,
        revoked_at: null,
      };
      await refreshTokens.insert(token);
      const attempts = await Promise.all(
        Array.from({ length: 8 }, (_, i) => refreshTokens.updateIf(token.id, { revoked_at: null }, { revoked_at: `${at}#${i}` })),
      );
      const winners = attempts.filter((r) => r !== null);
      expect(winners).toHaveLength(1);
      expect(await refreshTokens.get(token.id)).toEqual(winners[0]);
      expect(await refreshTokens.updateIf(token.id, { revoked_at: null }, { revoked_at: at })).toBeNull();
      expect(await refreshTokens.updateIf(randomUUID(), {}, { revoked_at: at })).toBeNull();
      expect(await refreshTokens.updateIf(token.id, { user_id: 'u-cas' }, { expires_at: 'later' })).toMatchObject({ expires_at: 'later' });
      await refreshTokens.delete(token.id);
    });

    it('keeps user names, tenant slugs, key hashes and token hashes unique', async () => {
      const { users, tenants, apiKeys, refreshTokens } = ctx.stores().accounts;
      const at = new Date().toISOString();
      const suffix = randomUUID().slice(0, 8);
      const user = {
        id: randomUUID(),
        tenant_id: tenant,
        username: `u-${suffix}`,
        email: 'u@example.com',
        role: 'viewer' as const,
        password_hash: 'h',
        disabled: false,
        created_at: at,
        updated_at: at,
      };
      await users.insert(user);
      await expect(users.insert({ ...user, id: randomUUID() })).rejects.toBeInstanceOf(ConflictError);
      const t = { id: randomUUID(), name: 'T', slug: `t-${suffix}`, plan: 'free', created_at: at, updated_at: at };
      await tenants.insert(t);
      await expect(tenants.insert({ ...t, id: randomUUID() })).rejects.toBeInstanceOf(ConflictError);
      const key = {
        id: randomUUID(),
        tenant_id: tenant,
        user_id: null,
        name: 'k',
        prefix: 'kgr_x',
        key_hash: `h-${suffix}`,
        role: 'viewer' as const,
        workspace_id: null,
        created_at: at,
        updated_at: at,
        last_used_at: null,
        expires_at: null,
        revoked_at: null,
      };
      await apiKeys.insert(key);
      await expect(apiKeys.insert({ ...key, id: randomUUID() })).rejects.toBeInstanceOf(ConflictError);
      const token = {
        id: randomUUID(),
        user_id: user.id,
        token_hash: `r-${suffix}`,
        created_at: at,
        updated_at: at,
        expires_at: at,
        revoked_at: null,
      };
      await refreshTokens.insert(token);
      await expect(refreshTokens.insert({ ...token, id: randomUUID() })).rejects.toBeInstanceOf(ConflictError);
      expect(await apiKeys.findOne({ key_hash: `h-${suffix}` })).toEqual(key);
      await users.delete(user.id);
      await tenants.delete(t.id);
      await apiKeys.delete(key.id);
      await refreshTokens.delete(token.id);
    });
  });
}
